import type { Command } from 'commander';
import { formatDuration, MAX_TIMER_MS, parseDuration } from '../duration.js';
import { ScrapeformError } from '../errors.js';
import type { TransportEvent } from '../api/transport-contract.js';
import type { PlanOptions } from '../plan/build-plan.js';
import type { EnvironmentSettings } from '../manifest/project-file.js';
import { checkingEnvironment } from '../state/state-environment.js';
import {
  openServices,
  openState,
  openWorkspace,
  readEnvironmentSettings,
} from '../workspace/open-workspace.js';
import type { OpenState, Services, StateLocation, Workspace } from '../workspace/open-workspace.js';
import type { CommandContext } from './io.js';
import { addEnvironmentFlags, environmentOptions } from './environment-flags.js';
import type { EnvironmentFlags } from './environment-flags.js';
import { collect } from './options.js';

export { addEnvironmentFlags, environmentOptions } from './environment-flags.js';
export type { EnvironmentFlags } from './environment-flags.js';

/** Flags of every command that talks to the services. */
export interface ApiFlags extends EnvironmentFlags {
  state?: string;
  workspace?: string;
  apiKeyEnv?: string;
  apiKeyFile?: string;
  timeout?: string;
  /** Only on commands that take the state lock (addLockFlags). */
  lockTimeout?: string;
}

export interface SelectionFlags {
  target?: string[];
  exclude?: string[];
  reassert?: string[];
  acceptUnknown?: string[];
}

export function addApiFlags(command: Command): Command {
  return addKeyFlags(addStateFlags(command));
}

/** `--api-key-env`, `--api-key-file` and `--timeout`: on every command that talks to the services, `doctor` too. */
export function addKeyFlags(command: Command): Command {
  return command
    .option('--api-key-env <name>', 'read the API key from this variable instead of SCRAPERAPI_API_KEY')
    .option('--api-key-file <path>', 'read the API key from this file')
    .option(
      '--timeout <duration>',
      'give up on a request with no answer after this long (default SCRAPEFORM_TIMEOUT, else 30s)',
    );
}

/**
 * `--env`, `--var-file`, `--state` and `--workspace`: the flags of the commands that read state and need no key
 * (output, state pull and push, force-unlock). `--var-file` gives the environment's variables, which its state
 * location may use.
 */
export function addStateFlags(command: Command): Command {
  return addEnvironmentFlags(command)
    .option(
      '--state <path-or-url>',
      'state file, or a postgres:// URL (default SCRAPEFORM_STATE, else .scrapeform/state.json)',
    )
    .option(
      '--workspace <name>',
      'a separate state: .scrapeform/NAME/state.json, or its own table in PostgreSQL (default SCRAPEFORM_WORKSPACE, else default)',
    );
}

/** `--lock-timeout`, on every command that takes the state lock. */
export function addLockFlags(command: Command): Command {
  return command.option(
    '--lock-timeout <duration>',
    'wait this long for a state lock another run holds, such as 5m (default: fail at once, naming the holder)',
  );
}

export function addSelectionFlags(command: Command): Command {
  return command
    .option('--target <address>', 'only this object (repeatable), such as parser.books-product', collect)
    .option('--exclude <address>', 'leave this object out (repeatable)', collect)
    .option(
      '--reassert <address>',
      'send every declared field definition of this adopted parser once (repeatable)',
      collect,
    )
    .option(
      '--accept-unknown <address>',
      'the values this imported parser never showed (scraper_params, descriptions, selectors) are live as the manifest declares them: record them in state, no call (repeatable)',
      collect,
    );
}

/** Shows retries on stderr as they happen; the URL in the event is already redacted. */
export function transportLogger(ctx: CommandContext): (event: TransportEvent) => void {
  return (event) => {
    if (event.type === 'retry') {
      ctx.log(
        ctx.colors.dim(
          `retrying ${event.method} ${event.url} in ${(event.delayMs / 1000).toFixed(1)}s (${event.reason}, attempt ${event.attempt})`,
        ),
      );
    }
  };
}

/**
 * The chosen environment's settings, so flags, the environment and environment variables apply in that order.
 * --api-key-file is passed too, only so that the environment's errors never quote the key it holds.
 */
export function environmentOf(
  ctx: CommandContext,
  flags: EnvironmentFlags & { state?: string; workspace?: string; apiKeyEnv?: string; apiKeyFile?: string },
  paths: string[] = [],
): EnvironmentSettings | undefined {
  // --state, --workspace and --api-key-env win over the environment's, and are refused when another's.
  return readEnvironmentSettings({
    env: ctx.io.env,
    paths,
    ...environmentOptions(flags),
    statePath: flags.state,
    workspace: flags.workspace,
    apiKeyEnv: flags.apiKeyEnv,
    apiKeyFile: flags.apiKeyFile,
  });
}

export async function openFromFlags(
  ctx: CommandContext,
  paths: string[],
  flags: ApiFlags,
  /**
   * The command's Ctrl-C (apply, watch): ends a wait for the state lock (--lock-timeout) at once, and stops every
   * call from starting another try.
   */
  signal?: AbortSignal,
): Promise<Workspace> {
  const settings = environmentOf(ctx, flags, paths);
  return openWorkspace({
    env: ctx.io.env,
    paths,
    ...environmentOptions(flags),
    ...stateOptions(ctx, flags, settings, signal),
    ...keyOptions(flags),
    ...(signal !== undefined ? { interrupt: signal } : {}),
    onTransportEvent: transportLogger(ctx),
  }).then((opened) => {
    for (const warning of opened.warnings) ctx.log(ctx.colors.yellow(`warning: ${warning}`));
    return opened;
  });
}

/**
 * `--api-key-env`, `--api-key-file` and `--timeout`, those given, as the options of every command that calls the
 * services.
 */
export function keyOptions(flags: Pick<ApiFlags, 'apiKeyEnv' | 'apiKeyFile' | 'timeout'>): {
  apiKeyEnv?: string;
  apiKeyFile?: string;
  timeout?: string;
} {
  return {
    ...(flags.apiKeyEnv !== undefined ? { apiKeyEnv: flags.apiKeyEnv } : {}),
    ...(flags.apiKeyFile !== undefined ? { apiKeyFile: flags.apiKeyFile } : {}),
    ...(flags.timeout !== undefined ? { timeout: flags.timeout } : {}),
  };
}

/** The planner's selection from --target, --exclude, --reassert and --accept-unknown. */
export function selectionOf(flags: SelectionFlags): PlanOptions {
  return {
    targets: flags.target ?? [],
    excludes: flags.exclude ?? [],
    reassert: flags.reassert ?? [],
    acceptUnknown: flags.acceptUnknown ?? [],
  };
}

/**
 * A duration flag or variable read (`30s`, `15m`, a bare number of ms), or a usage error naming it: unreadable,
 * below `least` ms, or longer than a timer can wait (MAX_TIMER_MS, about 24 days: Node would fire it after 1 ms,
 * turning `watch --interval 25d` into a loop that calls the services without pause).
 */
export function durationFlag(text: string, flag: string, example: string, least = 0): number {
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new ScrapeformError('cli.usage', `${flag}: cannot read "${text}" as a duration`, {
      hint: `write it like ${example}`,
    });
  if (ms < least)
    throw new ScrapeformError('cli.usage', `${flag}: ${text} is too short (at least ${least} ms)`, {
      hint: `write it like ${example}`,
    });
  if (ms > MAX_TIMER_MS)
    throw new ScrapeformError('cli.usage', `${flag}: ${text} is longer than the 24 days a timer can wait`, {
      hint: `write it like ${example}, at most 24d`,
    });
  return ms;
}

export async function openServicesFromFlags(ctx: CommandContext, flags: ApiFlags): Promise<Services> {
  const settings = environmentOf(ctx, flags);
  return openServices(
    {
      env: ctx.io.env,
      ...environmentOptions(flags),
      ...stateOptions(ctx, flags, settings),
      ...keyOptions(flags),
      onTransportEvent: transportLogger(ctx),
    },
    settings,
  ).then((opened) => {
    for (const warning of opened.warnings) ctx.log(ctx.colors.yellow(`warning: ${warning}`));
    return opened;
  });
}

/**
 * The state backend alone, for commands that need no key (output, state, force-unlock). With `own`, a state another
 * declared environment last applied is refused at its read (`output`); `state pull` and `force-unlock` take any, as
 * the ways to look into and mend one.
 */
export function openStateFromFlags(
  ctx: CommandContext,
  flags: { state?: string; workspace?: string } & EnvironmentFlags,
  { own = false }: { own?: boolean } = {},
): OpenState {
  const settings = environmentOf(ctx, flags);
  const opened = openState(stateOptions(ctx, flags, settings));
  return own ? { ...opened, backend: checkingEnvironment(opened.backend, settings) } : opened;
}

/** SCRAPEFORM_STATE_TIMEOUT (a duration): unset or empty keeps the state database's default (30 s). */
function databaseTimeoutOf(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  return durationFlag(value.trim(), 'SCRAPEFORM_STATE_TIMEOUT', '10s or 1m', 1);
}

/**
 * Where state lives: --state, else the environment's (scrapeform.yaml), else SCRAPEFORM_STATE; the workspace
 * likewise. Pass the settings of `--env`; commands that take it read them with `environmentOf`.
 */
export function stateOptions(
  ctx: CommandContext,
  flags: { state?: string; workspace?: string; lockTimeout?: string },
  settings?: EnvironmentSettings,
  signal?: AbortSignal,
): StateLocation {
  // An empty value is most often an unset CI variable (`--state "$STATE"`): refused the same way by every
  // command, rather than read as "the default" by some and as a file named "" by others.
  for (const [flag, value] of [
    ['--state', flags.state],
    ['--workspace', flags.workspace],
  ] as const) {
    if (value !== undefined && value.trim() === '') {
      throw new ScrapeformError('cli.usage', `${flag} is empty`, {
        hint: `leave ${flag} out to use ${flag === '--state' ? 'SCRAPEFORM_STATE or .scrapeform/state.json' : 'SCRAPEFORM_WORKSPACE or default'}, or give it a value (an unset variable?)`,
      });
    }
  }
  const statePath = flags.state ?? settings?.state ?? (ctx.io.env.SCRAPEFORM_STATE || undefined);
  const workspace = flags.workspace ?? settings?.workspace ?? (ctx.io.env.SCRAPEFORM_WORKSPACE || undefined);
  const lockWait = lockWaitOf(ctx, flags.lockTimeout, signal);
  const databaseTimeoutMs = databaseTimeoutOf(ctx.io.env.SCRAPEFORM_STATE_TIMEOUT);
  return {
    ...(statePath !== undefined ? { statePath } : {}),
    ...(workspace !== undefined ? { workspace } : {}),
    ...(lockWait !== undefined ? { lockWait } : {}),
    ...(databaseTimeoutMs !== undefined ? { databaseTimeoutMs } : {}),
    // Every command that takes the lock says so when it took over a dead run's (README, "Exit codes").
    onStaleLock: (stale) =>
      ctx.log(
        ctx.colors.yellow(
          `warning: took over the lock of ${stale.holder} (pid ${stale.pid}, ${stale.operation}, since ${stale.started}): that process no longer runs`,
        ),
      ),
  };
}

/** `--lock-timeout` read, with progress on stderr while waiting: the first wait, then every 10 seconds. */
function lockWaitOf(
  ctx: CommandContext,
  text: string | undefined,
  signal: AbortSignal | undefined,
): StateLocation['lockWait'] {
  if (text === undefined) return undefined;
  const timeoutMs = durationFlag(text, '--lock-timeout', '30s, 5m or 1h');
  let shownAt = -Infinity;
  return {
    timeoutMs,
    ...(signal !== undefined ? { signal } : {}),
    onWait: ({ holder, waitedMs }) => {
      if (waitedMs - shownAt < 10_000) return;
      shownAt = waitedMs;
      const who =
        holder !== undefined ? `${holder.holder} (pid ${holder.pid}, ${holder.operation})` : 'another run';
      ctx.log(
        ctx.colors.dim(
          `waiting for the state lock held by ${who}: ${formatDuration(waitedMs)} of ${formatDuration(timeoutMs)}`,
        ),
      );
    },
  };
}

/**
 * A duration setting of the environment (for the emulator and tests), or undefined when unset: an unreadable one is a
 * usage error before any call, as a flag's is (it was ignored, and the defaults followed unsaid).
 */
export function durationFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  name: string,
  least: number,
): number | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : durationFlag(value, name, '20ms or 1s', least);
}

/** SCRAPEFORM_POLL_INTERVAL in ms, or undefined to follow the defaults. */
export function pollIntervalFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  return durationFromEnv(env, 'SCRAPEFORM_POLL_INTERVAL', 1);
}
