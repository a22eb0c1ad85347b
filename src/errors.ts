/**
 * Errors a user can act on: a stable code, a message that says what to do, and JSON-safe details.
 * Anything else that escapes to the CLI is a bug and is reported with its stack.
 */
export type FailureStatus = 'error' | 'input-needed' | 'interrupted';

/**
 * Every code a user error can carry, one list so a new one is a deliberate act (and documented in
 * docs/troubleshooting.md). Codes are stable: scripts match on them. Anything thrown that is not a
 * ScrapeformError or an ApiError is an internal bug, reported with its stack.
 */
export const ERROR_CODES = [
  'api.empty-patch',
  'api.unsafe-path',
  'apply.adopt-not-approved',
  'apply.archive-unconfirmed',
  'apply.create-unconfirmed',
  'apply.credits-refused',
  'apply.delete-unconfirmed',
  'apply.destroy-not-approved',
  'apply.forget-not-approved',
  'apply.generation-failed',
  'apply.interrupted',
  'apply.not-approved',
  'apply.plan-stale',
  'apply.plan-unreadable',
  'apply.recreate-not-approved',
  'apply.schedule-not-taken',
  'apply.wait-timeout',
  'cancel.not-running',
  'cancel.unknown-job',
  'cli.interrupted',
  'cli.output-write',
  'cli.unknown-address',
  'cli.usage',
  'config.api-key-env',
  'config.api-key-file',
  'config.endpoint',
  'config.missing-api-key',
  'config.proxy',
  'config.timeout',
  'demo.failed',
  'diff.no-results',
  'drift.unknown-address',
  'emulator.cannot-listen',
  'emulator.port-in-use',
  'emulator.state-unreadable',
  'emulator.state-unwritable',
  'emulator.unknown-quirk',
  'import.duplicate-name',
  'import.file-exists',
  'import.out-not-read',
  'import.out-shared',
  'manifest.invalid',
  'manifest.api-key-in-value',
  'parse.failed-version',
  'parse.generating',
  'plan.invalid',
  'plan.too-many-regenerations',
  'plan.unknown-address',
  'run.already-running',
  'run.job-cancelled',
  'run.job-failed',
  'run.job-unlisted',
  'run.jobs-unreadable',
  'run.project-missing',
  'run.unconfirmed',
  'run.wait-timeout',
  'state.corrupt',
  'state.io',
  'state.locked',
  'state.lock-alive',
  'state.lock-elsewhere',
  'state.lock-interrupted',
  'state.lock-lost',
  'state.lock-mismatch',
  'state.lock-timeout',
  'state.newer-format',
  'state.not-a-file',
  'state.other-environment',
  'state.push-refused',
  'state.push-unreadable',
  'state.read-interrupted',
  'state.serial-limit',
  'state.serial-moved',
  'state.unlock-pending',
  'state.unreachable',
  'state.workspace',
  'state.write-interrupted',
  'status.incomplete',
  'test.pattern-timeout',
  'watch.cannot-listen',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ScrapeformErrorOptions {
  hint?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
  /** `input-needed` exits 3 (approval or input needed), `interrupted` 130 (Ctrl-C), `error` 1. */
  status?: FailureStatus;
}

export class ScrapeformError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown>;
  readonly status: FailureStatus;

  constructor(code: ErrorCode, message: string, options: ScrapeformErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'ScrapeformError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? {};
    this.status = options.status ?? 'error';
  }

  /**
   * The same error with more said after its message (what the command left, after the failure): its code and
   * status kept, `hint` in place of its own when given, `details` added to its own, and itself as the cause.
   */
  saying(more: string, options: { hint?: string; details?: Record<string, unknown> } = {}): ScrapeformError {
    const hint = options.hint ?? this.hint;
    return new ScrapeformError(this.code, `${this.message}; ${more}`, {
      ...(hint !== undefined ? { hint } : {}),
      details: { ...this.details, ...options.details },
      status: this.status,
      cause: this,
    });
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.hint !== undefined ? { hint: this.hint } : {}),
      details: this.details,
    };
  }
}
