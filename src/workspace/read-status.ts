import { newestJob } from '../api/job-status.js';
import { serviceTime } from '../api/service-time.js';
import { parserStatusKind } from '../api/parser-status.js';
import type { LiveJob, LiveParserSummary } from '../api/live.js';
import type { State } from '../state/model.js';
import { READ_CONCURRENCY } from '../model/vocabulary.js';
import type { StatusRow } from '../output/render-status.js';
import { forEachLimited } from '../worker-pool.js';
import type { Services } from './open-workspace.js';
import { readLive } from './read-live.js';
import { objectKey, readOrWhy } from './read-or-why.js';
import type { UnreadObjects } from './read-or-why.js';
import { unseenStory } from '../plan/unseen-create.js';
import { laggingVersion } from '../plan/lagging-version.js';
import { deletingAge, minutesText } from '../plan/deleting.js';
import { byCodeUnit } from '../code-unit-order.js';

export type { StatusRow } from '../output/render-status.js';

/**
 * Every managed object with its live status: versions and drift for parsers, schedule, next run and last job for
 * projects. Rows are sorted by address, whatever order the calls finish in. A read of one object that fails (an error
 * answer after the retries, a record of an unknown shape: readOrWhy) keeps its row, saying why: a project's job list
 * in `jobsError` instead of a last job, a parser's details or a lookup by id in `readError`. One object must not hide
 * every other object's status (the command then fails, naming each: cli/status.ts).
 */
export async function readStatus(services: Services, now: () => number = Date.now): Promise<StatusRow[]> {
  const state = await services.backend.read();
  // Only the services state uses are called, and an object a list lacks is looked up by id: MISSING means a 404.
  // For an object this state created and has not seen live since, a 404 may only mean not visible yet (plan and
  // drift read it so too, unseen-create.ts): it is shown as such, never as deleted.
  const unread: UnreadObjects = new Map();
  const { parsers, projects } = await readLive(
    services.clients,
    { parsers: [], projects: [] },
    state,
    undefined,
    unread,
  );
  const parserById = new Map(parsers.map((p) => [p.id, p]));
  const projectById = new Map(projects.map((p) => [p.id, p]));
  const rows: StatusRow[] = [];
  await forEachLimited(Object.entries(state.resources), READ_CONCURRENCY, async ([address, r]) => {
    const why = unread.get(objectKey(r.kind, r.id));
    if (why !== undefined) {
      // Not listed, and not read by id: whether it exists is not known, so neither MISSING nor drift is claimed.
      rows.push({
        address,
        id: r.id,
        ...(r.kind === 'Parser' ? { version: r.version } : {}),
        status: 'UNREADABLE (not listed, and not read by id)',
        drift: false,
        readError: why,
        unread: 'by-id',
      });
      return;
    }
    if (r.kind === 'Parser') {
      const live = parserById.get(r.id);
      if (live === undefined) {
        rows.push({
          address,
          id: r.id,
          version: r.version,
          status:
            unseenStory(r) === undefined
              ? 'MISSING (deleted outside scrapeform)'
              : 'NOT VISIBLE YET (404 since its create: not visible yet, or deleted)',
          drift: true,
        });
        return;
      }
      const known = [r.version, r.pending?.version, r.failed?.version];
      // Below a version state records: an answer lagging behind, as plan and drift read it, never drift.
      const lag = laggingVersion(r, live.version);
      const row: StatusRow = {
        address,
        id: r.id,
        version: live.version,
        status:
          lag !== undefined
            ? `LAGGING (shows version ${live.version}, below version ${lag.awaited} that state records: not visible yet)`
            : live.status === 'FAILED'
              ? `FAILED: ${live.error ?? ''}`
              : live.status,
        drift: lag === undefined && !known.includes(live.version),
      };
      if (parserStatusKind(live.status) === 'working') {
        const details = await readOrWhy(() => services.clients.parsers.get(r.id, live.version));
        if ('why' in details) {
          row.status = `${row.status} (for how long: unreadable)`;
          row.readError = details.why;
          row.unread = 'details';
        } else {
          const { createdAt } = details.value;
          const since = serviceTime(createdAt);
          if (since !== undefined) row.generatingForMs = Math.max(0, now() - since);
        }
      }
      rows.push(row);
      return;
    }
    const live = projectById.get(r.id);
    if (live === undefined) {
      rows.push({
        address,
        id: r.id,
        status:
          unseenStory(r) === undefined
            ? 'MISSING (archived outside scrapeform)'
            : 'NOT VISIBLE YET (404 since its create: not visible yet, or archived)',
        drift: true,
      });
      return;
    }
    const listed = await readOrWhy(() => services.clients.projects.listJobs(r.id));
    const jobs: LiveJob[] | undefined = 'value' in listed ? listed.value : undefined;
    const jobsError = 'why' in listed ? listed.why : undefined;
    // The newest job by its timestamp: lists are not documented to be in any order (API-NOTES).
    const last =
      jobs === undefined
        ? undefined
        : (newestJob(jobs) as (LiveJob & { doneCount?: unknown; failedCount?: unknown }) | undefined);
    rows.push({
      address,
      id: r.id,
      // An answer that leaves the schedule out says nothing of it (API-NOTES): shown as unknown, never as once.
      status:
        live.schedulingEnabled === false
          ? 'scheduling off'
          : live.schedulingEnabled === true
            ? 'scheduled'
            : 'scheduling not reported',
      drift: false,
      schedule:
        live.schedulingEnabled === false
          ? 'off'
          : live.scrapingInterval === undefined
            ? '?'
            : (live.scrapingInterval ?? 'once'),
      nextRun: live.scheduledAt ?? null,
      ...(jobsError !== undefined
        ? { jobsError }
        : {
            lastJob:
              last === undefined
                ? null
                : {
                    id: last.id,
                    ...(last.status !== undefined ? { status: last.status } : {}),
                    doneCount: last.doneCount,
                    failedCount: last.failedCount,
                  },
          }),
    });
  });
  rows.push(...deletingRows(state, parserById, unread, now()));
  return rows.sort((a, b) => byCodeUnit(a.address, b.address));
}

/**
 * A row for each parser whose delete the service accepted and still shows (State.deleting): no longer managed, so
 * no address, and no drift. One the service no longer shows has none: its delete is done.
 */
function deletingRows(
  state: State,
  parserById: ReadonlyMap<string, LiveParserSummary>,
  unread: UnreadObjects,
  now: number,
): StatusRow[] {
  return Object.entries(state.deleting ?? {}).flatMap(([id, { name, since }]): StatusRow[] => {
    const why = unread.get(objectKey('Parser', id));
    const live = parserById.get(id);
    if (why === undefined && live === undefined) return [];
    const accepted = `the service accepted its delete at ${since}, ${minutesText(deletingAge(since, now).minutes)} ago`;
    return [
      {
        address: `(deleting) ${name}`,
        id,
        ...(live !== undefined ? { version: live.version } : {}),
        status:
          why !== undefined
            ? `DELETING (${accepted}; not listed, and not read by id)`
            : `DELETING (${accepted}, and still shows it)`,
        drift: false,
        ...(why !== undefined ? { readError: why, unread: 'by-id' as const } : {}),
      },
    ];
  });
}
