import type { ApplyEvent } from '../apply/apply-model.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import { CREDITS_PER_GENERATION } from '../model/vocabulary.js';
import { chatText } from '../output/escape-chat.js';
import { renderDriftText, toDriftJson } from '../output/render-drift.js';
import type { DriftReport } from '../plan/drift.js';
import { applyWorkspace } from './apply-workspace.js';
import type { ApplyWorkspaceOutcome } from './apply-workspace.js';
import { detectWorkspaceDrift } from './detect-drift.js';
import { skipReason, startsGeneration } from './heal-outcome.js';
import { leftLines, leftOfPlan, nothingToHeal, withoutChanges } from './heal-selection.js';
import { postNotification } from './watch-post.js';
import type { NotifyCounts, NotifyTarget } from './watch-post.js';
import type { LeftChange } from './heal-selection.js';
import type { Services } from './open-workspace.js';
import { planWorkspace } from './plan-workspace.js';
import { formatCount } from '../format-count.js';
import { formatDuration } from '../duration.js';

/** What `watch` knows after its runs: what /healthz and /metrics show. */
export interface WatchStatus extends NotifyCounts {
  /** Objects state manages, and those drifted, at the last successful run. */
  objects: number;
  drifted: number;
  runs: number;
  failures: number;
  heals: number;
  /** Estimated credits the heals spent (regenerations × the public price). */
  creditsSpent: number;
  /** Regenerations heals may still start (`--max-regenerations`); undefined without `--heal`. */
  regenerationsLeft?: number;
  /** When the last run finished (ms since the epoch), and whether it succeeded. */
  lastRunAt?: number;
  lastRunOk?: boolean;
  lastError?: string;
  lastReport?: DriftReport;
  /**
   * What the last heal left out: the deletes, replaces and archives (a heal never makes them) and the regenerations
   * beyond the budget; undefined before a heal.
   */
  notHealed?: LeftChange[];
}

/** What one run did, for the caller to show (the library never prints). */
export type WatchEvent =
  | { type: 'checked'; report: DriftReport }
  | { type: 'healed'; outcome: ApplyWorkspaceOutcome; regenerations: number }
  | { type: 'heal-skipped'; reason: string }
  /**
   * Changes of the plan a heal leaves out and does not make, destructive, starting project runs or over budget (at
   * every heal that has any).
   */
  | { type: 'heal-left'; changes: LeftChange[] }
  | { type: 'failed'; error: unknown }
  | { type: 'notified'; status: number }
  | { type: 'notify-failed'; error: string };

/**
 * The JSON posted to `--notify`: a Slack-style `text` and the structured drift (the `drift --json` format); or, when
 * the check starts failing, `text` and `failing` (no drift was read). The first run that succeeds after it says so.
 * The names and messages in `text` are escaped for chat (escape-chat.ts); the other keys carry them exactly.
 */
export type WatchNotification = WatchDriftNotification | WatchFailingNotification;

export interface WatchFailingNotification {
  text: string;
  failing: { error: string };
}

export interface WatchDriftNotification {
  text: string;
  drift: Record<string, unknown>;
  /** The check had been failing (and said so) until this run. */
  recovered?: { failures: number };
  heal?: {
    applied: string[];
    failed: string[];
    /**
     * The deletes, replaces and archives the plan also has, what would start project runs, and its regenerations
     * beyond the budget: left, not made.
     */
    left: LeftChange[];
    regenerations: number;
    credits: number;
    skipped?: string;
  };
}

export interface WatchOptions {
  intervalMs: number;
  /** With it, drift is reverted by applying the manifests; `maxRegenerations` is the budget of the whole watch. */
  heal?: { maxRegenerations: number; loadManifests: () => Promise<LoadedManifests>; waitTimeoutMs?: number };
  /** Where to POST a notification when something changed. */
  notifyUrl?: string;
  /** Stops the loop: a run in flight finishes its current call and saves state first. */
  signal: AbortSignal;
  onEvent?: (event: WatchEvent) => void;
  /** The manifests for `ignore_changes`, when they are not read again at each run (`reloadManifests`). */
  manifests?: LoadedManifests;
  /**
   * Reads the manifests again at each run without heal (with heal, `heal.loadManifests` does), so a checkout a
   * sidecar keeps up to date is followed: an `ignore_changes` added there counts from the next run. A failure (the
   * manifests have errors) is a failed run.
   */
  reloadManifests?: () => Promise<LoadedManifests>;
  /** Stop after this many runs (tests). */
  maxRuns?: number;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  fetch?: typeof fetch;
  pollMinMs?: number;
  pollMaxMs?: number;
}

/**
 * `scrapeform watch`: drift detection on an interval, reading without the lock; with `heal`, an apply of the manifests
 * (under the lock, only while it applies) bounded by the regeneration budget, never destructive, starting no project
 * run. Posts a notification when the drift seen changes, or a heal applied something or failed otherwise than the
 * run before. Returns when `signal` aborts. `status` is updated in place so an HTTP endpoint can show it while the
 * loop runs.
 */
export async function runWatch(
  services: Services,
  options: WatchOptions,
  status: WatchStatus = newWatchStatus(options),
): Promise<WatchStatus> {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? abortableSleep;
  // Notifications go the way the calls to the services go: through HTTP(S)_PROXY, unless NO_PROXY names the host,
  // and each waits for its answer as long as a try of a call does (--timeout).
  const { dispatcher, timeoutMs } = services.clients;
  const target: NotifyTarget = {
    ...options,
    ...(dispatcher !== undefined ? { dispatcher } : {}),
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
  };
  let notified = '';
  // What the last heal could not do, as notified: the same failures again (a service that keeps refusing what the
  // heal sends) are not posted at every run, only when they change, or with a heal that did something.
  let healFailed = '[]';
  // Runs failed since the last that succeeded and was told: the first is notified, and the next run that succeeds
  // says how many (a watch that cannot check must not look like one that found nothing). Apart from status.failures,
  // which also counts failed heals. A post the chat did not take (down, 5xx, no answer) is not told: the next run
  // posts again what it sees, or the drift (or the failing check) stays untold until it changes.
  let failedRuns = 0;
  let failingTold = false;
  for (let run = 1; !options.signal.aborted; run++) {
    try {
      const read = options.heal?.loadManifests ?? options.reloadManifests;
      const manifests = read !== undefined ? await read() : options.manifests;
      const found = await check(services, manifests, options, status);
      let after = found;
      let heal: WatchDriftNotification['heal'];
      let madeCalls = false;
      let failedNow = '[]';
      if (
        found.status === 'drift' &&
        options.heal !== undefined &&
        manifests !== undefined &&
        !options.signal.aborted
      ) {
        const made = (heal = await healOnce(services, manifests, options, status));
        failedNow = JSON.stringify(made.failed);
        madeCalls = made.applied.length > 0 || (made.failed.length > 0 && failedNow !== healFailed);
        healFailed = failedNow;
        // What is left once healed is what the metrics show; the notification tells what was found and done.
        if (made.applied.length + made.failed.length > 0)
          after = await check(services, manifests, options, status).catch(async (error: unknown) => {
            // The heal changed the service (and may have spent credits): told now, though the check after it failed.
            if (madeCalls && !options.signal.aborted) await notify(found, made, undefined, target, status);
            throw error;
          });
      } else if (
        options.heal !== undefined &&
        manifests !== undefined &&
        (status.notHealed ?? []).length > 0
      ) {
        // No drift to heal, but what the last heal left (a delete, a regeneration over budget) may have been made
        // since by an apply: planned again (reads only, no lock) so /healthz and /metrics stop showing it then.
        const again = await planWorkspace({ ...services, manifests }, {}, { signal: options.signal });
        status.notHealed = leftOfPlan(again, status.regenerationsLeft ?? 0, manifests);
      }
      status.lastRunOk = true;
      delete status.lastError;
      const signature = JSON.stringify(after.drift.map((d) => [d.address, d.message]));
      healFailed = failedNow;
      const recovered = failedRuns > 0 ? { failures: failedRuns } : undefined;
      failingTold = false;
      if (signature !== notified || madeCalls || recovered !== undefined) {
        // The first run reports only drift; later runs also report drift that went away.
        const quiet = found.status !== 'drift' && notified === '' && !madeCalls && recovered === undefined;
        if (quiet || (await notify(found, heal, recovered, target, status)))
          [notified, failedRuns] = [signature, 0];
      }
    } catch (error) {
      if (options.signal.aborted) break;
      status.failures++;
      status.lastRunOk = false;
      status.lastError = error instanceof Error ? error.message : String(error);
      options.onEvent?.({ type: 'failed', error });
      failedRuns++;
      if (!failingTold)
        failingTold = await postNotification(
          {
            text: `scrapeform watch: the drift check failed: ${chatText(status.lastError ?? '')}\nNo drift can be seen until it works again; the next run is in ${formatDuration(options.intervalMs)}.`,
            failing: { error: status.lastError },
          } satisfies WatchFailingNotification,
          target,
          status,
        );
    } finally {
      status.runs++;
      status.lastRunAt = now();
    }
    if (options.maxRuns !== undefined && run >= options.maxRuns) break;
    await sleep(options.intervalMs, options.signal);
  }
  return status;
}

export function newWatchStatus(options: { heal?: { maxRegenerations: number } }): WatchStatus {
  return {
    objects: 0,
    drifted: 0,
    runs: 0,
    failures: 0,
    heals: 0,
    creditsSpent: 0,
    notificationsSent: 0,
    notificationsFailed: 0,
    ...(options.heal !== undefined ? { regenerationsLeft: options.heal.maxRegenerations } : {}),
  };
}

async function check(
  services: Services,
  manifests: LoadedManifests | undefined,
  options: WatchOptions,
  status: WatchStatus,
): Promise<DriftReport> {
  const { report } = await detectWorkspaceDrift(services, {
    ...(manifests !== undefined ? { manifests } : {}),
    signal: options.signal,
  });
  status.objects = report.summary.objects;
  status.drifted = report.summary.drifted;
  status.lastReport = report;
  options.onEvent?.({ type: 'checked', report });
  return report;
}

/**
 * One apply of the manifests, auto-approved but never destructive, within the regeneration budget left. The
 * deletes, replaces and archives of the plan, and its regenerations beyond the budget (heal-selection.ts), are left
 * out of it, as `--exclude` leaves an address out, and reported; the rest is applied.
 */
async function healOnce(
  services: Services,
  manifests: LoadedManifests,
  options: WatchOptions,
  status: WatchStatus,
): Promise<NonNullable<WatchDriftNotification['heal']>> {
  const ws = { ...services, manifests };
  // Planned once without the lock, only to know what to leave out. The apply plans again under the lock and still
  // refuses any destructive change, or more regenerations than the budget, so one that appears in between is
  // refused (and the heal skipped), never made.
  const planned = await planWorkspace(ws, {}, { signal: options.signal });
  const { plan } = planned;
  const budget = status.regenerationsLeft ?? 0;
  const left = leftOfPlan(planned, budget, manifests);
  status.notHealed = left;
  if (left.length > 0) options.onEvent?.({ type: 'heal-left', changes: left });
  if (nothingToHeal(planned, left, [...manifests.parsers, ...manifests.projects])) {
    // Reported as the apply with nothing to send that it replaces, without taking the lock.
    const outcome = { plan: withoutChanges(plan), checks: [], resultDiffs: [] };
    options.onEvent?.({ type: 'healed', outcome, regenerations: 0 });
    return { applied: [], failed: [], left, regenerations: 0, credits: 0 };
  }
  // Counted as the calls are answered, not from the outcome: an apply that throws after generations started (the
  // lock lost, a state write failed) has spent them all the same.
  // A POST or PATCH whose answer was lost (or a 5xx) counts too: the service may have started its generation.
  // A create is counted once, though its answer is lost and then found by name.
  const regenerating = new Set<string>();
  const created = new Set<string>();
  let regenerations = 0;
  const countGenerations = (event: ApplyEvent): void => {
    if ((event.type !== 'call' && event.type !== 'call-unanswered') || !regenerating.has(event.address))
      return;
    if (event.type === 'call' && !startsGeneration(event)) return;
    if (event.method === 'POST') {
      if (created.has(event.address)) return;
      created.add(event.address);
    }
    regenerations++;
  };
  try {
    const outcome = await applyWorkspace(ws, {
      ...(left.length > 0 ? { selection: { excludes: left.map((c) => c.address) } } : {}),
      autoApprove: true,
      allowDestroy: false,
      maxRegenerations: budget,
      signal: options.signal,
      onPlan: (applied) => {
        for (const c of applied.resource_changes) if (c.regenerates) regenerating.add(c.address);
      },
      onEvent: countGenerations,
      ...(options.heal?.waitTimeoutMs !== undefined ? { waitTimeoutMs: options.heal.waitTimeoutMs } : {}),
      ...(options.pollMinMs !== undefined ? { pollMinMs: options.pollMinMs } : {}),
      ...(options.pollMaxMs !== undefined ? { pollMaxMs: options.pollMaxMs } : {}),
    });
    const results = outcome.result?.results ?? [];
    if (results.length > 0) status.heals++;
    const failed = results.filter((r) => !r.ok);
    if (failed.length > 0) status.failures++;
    options.onEvent?.({ type: 'healed', outcome, regenerations });
    return {
      applied: results.filter((r) => r.ok).map((r) => r.address),
      failed: failed.map((r) => `${r.address}: ${r.error?.message ?? 'failed'}`),
      left,
      regenerations,
      credits: regenerations * CREDITS_PER_GENERATION,
    };
  } catch (error) {
    const skipped = skipReason(error);
    if (skipped === undefined) throw error;
    options.onEvent?.({ type: 'heal-skipped', reason: skipped });
    return {
      applied: [],
      failed: [],
      left,
      regenerations,
      credits: regenerations * CREDITS_PER_GENERATION,
      skipped,
    };
  } finally {
    status.regenerationsLeft = Math.max(0, budget - regenerations);
    status.creditsSpent += regenerations * CREDITS_PER_GENERATION;
  }
}

const LEFT_IN_CHAT = {
  destructive: 'Not healed, destructive',
  'starts-runs': 'Not healed, starts project runs paid per page',
  adopts: 'Not healed, takes over a live object no state manages (apply --allow-adopt)',
  'regeneration-budget': 'Not healed, beyond the regeneration budget (--max-regenerations)',
} as const;

async function notify(
  report: DriftReport,
  heal: WatchDriftNotification['heal'],
  recovered: WatchDriftNotification['recovered'],
  target: NotifyTarget,
  counts: NotifyCounts,
): Promise<boolean> {
  const healText =
    heal === undefined
      ? ''
      : (heal.skipped !== undefined
          ? `\nNot healed: ${chatText(heal.skipped)}`
          : heal.applied.length + heal.failed.length > 0
            ? `\nHealed: ${heal.applied.map(chatText).join(', ') || 'nothing'}${heal.failed.length > 0 ? `; failed: ${heal.failed.map(chatText).join('; ')}` : ''} (${formatCount(heal.credits)} credits)`
            : '') +
        leftLines(heal.left, LEFT_IN_CHAT, chatText)
          .map((line) => `\n${line}`)
          .join('');
  const recoveredText =
    recovered === undefined
      ? ''
      : `scrapeform watch: the drift check works again (after ${recovered.failures} failed ${recovered.failures === 1 ? 'run' : 'runs'}).\n`;
  return postNotification(
    {
      text: `${recoveredText}${renderDriftText(report)}${healText}`,
      drift: toDriftJson(report),
      ...(recovered !== undefined ? { recovered } : {}),
      ...(heal !== undefined ? { heal } : {}),
    } satisfies WatchDriftNotification,
    target,
    counts,
  );
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
