import { ApiError, refusesPayment } from '../api/api-error.js';
import type { ApiClients } from '../api/create-clients.js';
import type { LiveParserSummary } from '../api/live.js';
import { failureReason, parserStatusKind } from '../api/parser-status.js';
import { stillGenerating } from '../plan/plan-parser-generation.js';
import type { DesiredParser } from '../model/desired.js';
import type { ParserState, State } from '../state/model.js';
import { matchExpected } from './match-expected.js';
import type { Mismatch } from './match-expected.js';

export interface ExpectCheckResult {
  address: string;
  url: string;
  ok: boolean;
  version?: number;
  mismatches: Mismatch[];
  /** Set when the page could not be parsed at all. */
  error?: string;
  /** When the check started (ISO 8601) and how long it took: test reports show both (JUnit time, timestamp). */
  startedAt: string;
  durationMs: number;
}

/** The clock the checks are timed with; tests pass their own. */
export interface CheckClock {
  now: () => Date;
  elapsedMs: () => number;
}

/** Read afresh (a check awaited in between may have seen Ctrl-C): a function, so no earlier test narrows it. */
function aborted(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

const SYSTEM_CLOCK: CheckClock = { now: () => new Date(), elapsedMs: () => performance.now() };

/**
 * Why no parse is sent for this parser (its latest version is still generating, or FAILED), or undefined when it
 * is FINISHED. The list says, unless it does not show the parser, or shows a version below one state records:
 * nothing public says a new parser or version is listed at once (API-NOTES, Lists), so the parser is then read by
 * id (free), rather than parsed (paid) while it generates, its empty result reported as every field missing.
 */
async function notReadyToParse(
  clients: ApiClients,
  recorded: ParserState,
  listed: LiveParserSummary | undefined,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const known = recorded.pending?.version ?? recorded.version;
  let latest: { version: number; status: string; error?: string | null };
  try {
    latest =
      listed !== undefined && (known === null || listed.version >= known)
        ? listed
        : await clients.parsers.get(recorded.id, undefined, signal, {
            ...(known !== null ? { version: known } : {}),
            name: listed?.name ?? recorded.name,
            // Its status is what is read: its fields are not (a FINISHED answer without them is no bad response).
            fieldsUnread: true,
          });
  } catch (error) {
    return `${error instanceof Error ? error.message : String(error)}; nothing was parsed`;
  }
  const kind = parserStatusKind(latest.status);
  if (kind === 'failed')
    return `version ${latest.version} FAILED: ${failureReason(latest.error)}; nothing was parsed`;
  if (kind === 'working')
    return `version ${latest.version} is ${stillGenerating(latest.status)}; the checks run once it is FINISHED`;
  return known !== null && latest.version < known
    ? `version ${known} is not shown by the service yet (it shows version ${latest.version}); the checks run once it is FINISHED`
    : undefined;
}

/**
 * Parses each `expect` URL with the managed parser's latest version and compares (DESIGN section 1, expect).
 * Unless `latestFinished` (apply, which has just waited for FINISHED), one list first says each latest version's
 * status: a version still generating, or FAILED, is a check that could not run (an error, not a mismatch), and no
 * parse is sent for it.
 */
export async function runExpectChecks(
  clients: ApiClients,
  parsers: readonly DesiredParser[],
  state: State,
  clock: CheckClock = SYSTEM_CLOCK,
  /** Ctrl-C: the check under way is called off and no other starts. */
  signal?: AbortSignal,
  latestFinished = false,
  /** The paid call apply saw refused (402/403): no parse is sent, each check says why. */
  paymentRefused?: { address: string; status: number },
): Promise<ExpectCheckResult[]> {
  const results: ExpectCheckResult[] = [];
  const recordedIds = parsers.flatMap((p) => {
    const r = state.resources[p.address];
    return r?.kind === 'Parser' ? [r.id] : [];
  });
  let listed = new Map<string, LiveParserSummary>();
  if (!latestFinished && recordedIds.length > 0) {
    try {
      listed = new Map((await clients.parsers.list(signal)).map((p) => [p.id, p]));
    } catch (error) {
      // Ctrl-C during the list: no check ran, and each is reported not run (exit 130), not as the list's error.
      if (aborted(signal)) return results;
      throw error;
    }
  }
  // A parse the account refused (402, or the 403 ScraperAPI answers for exhausted credits): each parse is paid, so
  // none is sent after it; every check left says why instead.
  let refused: string | undefined =
    paymentRefused !== undefined
      ? `not parsed: the service refused the paid call of ${paymentRefused.address} (HTTP ${paymentRefused.status}) during the apply, so no parse (each is paid) was sent; check the credits and plan of the account in the ScraperAPI dashboard`
      : undefined;
  for (const parser of parsers) {
    const recorded = state.resources[parser.address];
    const notReady =
      recorded?.kind !== 'Parser' || latestFinished
        ? undefined
        : await notReadyToParse(clients, recorded, listed.get(recorded.id), signal);
    for (const check of parser.expect) {
      if (signal?.aborted === true) return results;
      const startedAt = clock.now().toISOString();
      const start = clock.elapsedMs();
      const timing = (): { startedAt: string; durationMs: number } => ({
        startedAt,
        durationMs: Math.max(0, clock.elapsedMs() - start),
      });
      if (recorded?.kind !== 'Parser' || notReady !== undefined || refused !== undefined) {
        results.push({
          address: parser.address,
          url: check.url,
          ok: false,
          mismatches: [],
          error: refused ?? notReady ?? 'not applied yet: no parser to run',
          ...timing(),
        });
        continue;
      }
      try {
        const parsed = await clients.parsers.parse(
          recorded.id,
          undefined,
          check.url,
          parser.scraperParams,
          signal,
        );
        const mismatches = matchExpected(check.result, parsed.result);
        results.push({
          address: parser.address,
          url: check.url,
          ok: mismatches.length === 0,
          mismatches,
          ...(parsed.version !== undefined ? { version: parsed.version } : {}),
          ...timing(),
        });
      } catch (error) {
        const own = error instanceof Error ? error.message : String(error);
        // Called off by Ctrl-C mid-flight (no answer), the parse went out and may be charged all the same. Cut short
        // in the wait before a retry, the try before it was answered (a 429, 500 or 503: not done, not charged), and
        // that answer is what is said: calling it possibly charged sent the user looking for a charge.
        const message = !aborted(signal)
          ? own
          : error instanceof ApiError && error.status > 0
            ? `interrupted: ${own}`
            : 'interrupted: the parse was sent and may have been charged; its answer was not awaited';
        if (refusesPayment(error))
          refused = `not parsed: the service refused a parse of ${parser.address} (HTTP ${error.status}), so no further parse (each is paid) was sent; check the credits and plan of the account in the ScraperAPI dashboard`;
        results.push({
          address: parser.address,
          url: check.url,
          ok: false,
          mismatches: [],
          error: message,
          ...timing(),
        });
      }
    }
  }
  return results;
}
