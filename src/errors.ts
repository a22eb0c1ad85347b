/**
 * Errors a user can act on: a stable code, a message that says what to do, and JSON-safe details.
 * Anything else that escapes to the CLI is a bug and is reported with its stack.
 */
export type FailureStatus = 'error' | 'input-needed';

export interface ScrapeformErrorOptions {
  hint?: string;
  details?: Record<string, unknown>;
  cause?: unknown;
  /** `input-needed` exits 3 (approval or input needed), `error` exits 1. */
  status?: FailureStatus;
}

export class ScrapeformError extends Error {
  readonly code: string;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown>;
  readonly status: FailureStatus;

  constructor(code: string, message: string, options: ScrapeformErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'ScrapeformError';
    this.code = code;
    this.hint = options.hint;
    this.details = options.details ?? {};
    this.status = options.status ?? 'error';
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
