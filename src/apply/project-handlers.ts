import { projectCreateBody, projectPath, PROJECTS_PATH } from '../model/wire.js';
import { GONE_STATUSES } from '../api/unless-status.js';
import type { IdsBefore } from '../api/api-error.js';
import type {
  ProjectAdopt,
  ProjectArchive,
  ProjectChange,
  ProjectCreate,
  ProjectForget,
  ProjectUpdate,
} from '../plan/model.js';
import type { LiveProject } from '../api/live.js';
import { projectFieldRule } from '../model/project-fields.js';
import { sameFieldValue, stable } from '../plan/plan-context.js';
import { ScrapeformError } from '../errors.js';
import { keptProtection } from '../state/model.js';
import { confirmGone, makeCall, noteCreate, noteFailedCall, warn } from './apply-context.js';
import type { Handler, HandlerContext } from './apply-context.js';
import type { ChangeResult } from './apply-model.js';
import { shownAfterAccepted } from './accepted-delete.js';
import { clearIntent, createdProtection, createWithIntent } from './create-intent.js';

/** One handler per project action; a missing one is a type error. */
export const PROJECT_HANDLERS = {
  create: async (change: ProjectCreate, result, ctx) => {
    // The intent goes to state before the POST: a project a killed run created is recovered with what was sent.
    const { object: created, recovered } = await createWithIntent(ctx, change, {
      list: () => ctx.clients.projects.list(),
      create: (existing: IdsBefore<number>) =>
        ctx.clients.projects.create(
          projectCreateBody(change.definition, change.scheduledAt),
          undefined,
          existing,
        ),
      planned: ctx.planned?.projectsByName,
      seeOther: (location) => ctx.clients.projects.seeOther(location),
    }).catch((error: unknown) => {
      noteFailedCall(result, { method: 'POST', path: PROJECTS_PATH }, error);
      throw error;
    });
    noteCreate(ctx, change, result, PROJECTS_PATH, recovered);
    result.id = created.id;
    const holds = await heldAfter(ctx, created.id, change.definition, created);
    const { held, refused, notTaken } = checkTaken(change, result, ctx, change.definition, holds, {});
    await ctx.store.commit((state) => {
      state.resources[change.address] = {
        kind: 'Project',
        id: created.id,
        name: change.name,
        definition: change.definition,
        ...(held !== undefined ? { held } : {}),
        ...(refused !== undefined ? { refused } : {}),
        // Not seen yet: until a list or read shows it, a 404 for it is no proof it is gone (unseen-create.ts).
        unseenSince: new Date(ctx.now()).toISOString(),
        ...createdProtection(ctx, change.address, state.resources[change.address]),
      };
      clearIntent(state, change.address);
    });
    refuseScheduleNotTaken(change, holds, notTaken);
  },
  update: async (change: ProjectUpdate, result, ctx) => {
    let answer: LiveProject | undefined;
    await makeCall(
      ctx,
      change,
      result,
      { method: 'PATCH', path: projectPath(change.id) },
      async () => (answer = await ctx.clients.projects.update(change.id, change.changed)),
      200,
    );
    const before = ctx.store.current.resources[change.address];
    const holds = await heldAfter(ctx, change.id, change.changed, answer);
    const { held, refused, notTaken } = checkTaken(
      change,
      result,
      ctx,
      change.changed,
      holds,
      before?.kind === 'Project' ? before : {},
    );
    await ctx.store.commit((state) => {
      state.resources[change.address] = {
        kind: 'Project',
        id: change.id,
        name: change.name,
        definition: change.definition,
        ...(held !== undefined ? { held } : {}),
        ...(refused !== undefined ? { refused } : {}),
        ...keptProtection(state.resources[change.address]),
      };
    });
    refuseScheduleNotTaken(change, holds, notTaken);
  },
  archive: async (change: ProjectArchive, result, ctx) => {
    // Archive cannot be undone: state is written first, which checks that the lock is still this run's.
    await ctx.store.lockConfirmed();
    const status = await makeCall(
      ctx,
      change,
      result,
      { method: 'DELETE', path: projectPath(change.id) },
      () => ctx.clients.projects.archive(change.id),
      (answered) => answered,
      GONE_STATUSES,
    );
    if (GONE_STATUSES.includes(status)) await confirmArchived(ctx, change, status);
    if (status === 202 && (await archiveStillShown(ctx, change, result))) return;
    await ctx.store.commit((state) => delete state.resources[change.address]);
  },
  adopt: async (change: ProjectAdopt, _result, ctx) => {
    await ctx.store.commit((state) => {
      state.resources[change.address] = {
        kind: 'Project',
        id: change.id,
        name: change.name,
        definition: change.definition,
        // Protected as the manifest says from the write that adopts it: a run killed before its end leaves it so.
        ...createdProtection(ctx, change.address, state.resources[change.address]),
      };
    });
  },
  forget: async (change: ProjectForget, _result, ctx) => {
    await ctx.store.commit((state) => delete state.resources[change.address]);
  },
} satisfies { [A in ProjectChange['action']]: Handler<Extract<ProjectChange, { action: A }>> };

/**
 * Reads the service's answer to a create or PATCH: a field it reports with another value than the one sent did
 * not take (issue 13; the skill file lists only some fields as updatable). Each is warned about once, and state
 * keeps what the service holds (`held`), so the next plan does not send the same value again and again. A field
 * the answer leaves out says nothing either way. A schedule not taken is not held (refuseScheduleNotTaken): every
 * apply sends it again, a free PATCH, and fails while the service runs the project against the manifest; state
 * records what the service answered instead (`refused`), so the next plan and drift do not read it as an edit made
 * outside scrapeform. Returns the fields held and refused (undefined when none is), and those this answer did not take.
 */
function checkTaken(
  change: ProjectCreate | ProjectUpdate,
  result: ChangeResult,
  ctx: HandlerContext,
  sent: Record<string, unknown>,
  answer: LiveProject | undefined,
  before: { held?: Record<string, unknown>; refused?: Record<string, unknown> },
): {
  held: Record<string, unknown> | undefined;
  refused: Record<string, unknown> | undefined;
  notTaken: string[];
} {
  const held: Record<string, unknown> = { ...before.held };
  const refused: Record<string, unknown> = { ...before.refused };
  const notTaken: string[] = [];
  for (const [key, value] of Object.entries(sent)) {
    const rule = projectFieldRule(key);
    const reported = answer !== undefined && rule?.compared === true ? rule.read(answer) : undefined;
    delete refused[key];
    if (reported === undefined && SCHEDULING.includes(key)) {
      const message = `${key} was sent as ${stable(value)} but neither the service's answer nor a read of project ${String(result.id)} reports it: whether the project runs on the schedule the manifest asks for cannot be seen (check it in the ScraperAPI dashboard)`;
      (result.warnings ??= []).push(message);
      ctx.emit({ type: 'warning', address: change.address, message });
    }
    if (reported === undefined || sameFieldValue(key, reported, value)) {
      delete held[key];
      continue;
    }
    notTaken.push(key);
    if (answer !== undefined && scheduleDiffers(key, reported, value, answer)) {
      delete held[key];
      refused[key] = reported;
      continue;
    }
    held[key] = reported;
    const message = `${key} was sent as ${stable(value)} but the service answered ${stable(reported)}; state records what the service holds, and plan does not send it again until the manifest changes`;
    (result.warnings ??= []).push(message);
    ctx.emit({ type: 'warning', address: change.address, message });
  }
  const some = (fields: Record<string, unknown>): Record<string, unknown> | undefined =>
    Object.keys(fields).length > 0 ? fields : undefined;
  return { held: some(held), refused: some(refused), notTaken };
}

/**
 * The project as the service holds it after a create or PATCH, to check what was taken against: the answer, unless it
 * is no project (the PATCH answer is undocumented: a 204, a `{message}`) or leaves out a field that was sent. Then the
 * project is read by id (a free GET): a schedule the answer does not report was not seen taken, and assumed applied, a
 * project left on another schedule (the service default is a weekly run) would run paid per page while apply reports
 * done; any other field left out and not taken (a format the service spells otherwise, a field it ignores) was sent
 * again by every later apply, since nothing recorded what the service holds. A read that fails (a 404 right after a
 * create: not visible yet) leaves the answer as it was, and checkTaken says what could not be seen.
 */
async function heldAfter(
  ctx: HandlerContext,
  id: number,
  sent: Record<string, unknown>,
  answer: LiveProject | undefined,
): Promise<LiveProject | undefined> {
  const unreported = Object.keys(sent).filter((key) => {
    const rule = projectFieldRule(key);
    return rule?.compared === true && (answer === undefined || rule.read(answer) === undefined);
  });
  if (answer !== undefined && unreported.length === 0) return answer;
  const read = await ctx.clients.projects.get(id, ctx.options.signal).catch(() => undefined);
  return read ?? answer;
}

/**
 * A 404 or 410 to an archive is read as "already gone" only once a read by id says so too (a 404 or 410, or a record
 * marked archived: ProjectsClient.find): an answer is never proof of absence by itself (DESIGN section 2), and a
 * project dropped from state while the service still holds it keeps running on its schedule, paid per page, and is
 * never touched again (no state or manifest names it).
 */
async function confirmArchived(ctx: HandlerContext, change: ProjectArchive, status: number): Promise<void> {
  await confirmGone(
    () => ctx.clients.projects.find(change.id, ctx.options.signal),
    () =>
      new ScrapeformError(
        'apply.archive-unconfirmed',
        `the service answered ${status} to the archive of project ${change.id} but still shows it when read by id: it was not archived, and keeps its schedule`,
        {
          hint: `state still records it: apply again later, or archive it in the ScraperAPI dashboard (check SCRAPEFORM_PIPELINE_URL and any proxy if every archive answers ${status})`,
        },
      ),
  );
}

/**
 * A 202 Accepted to an archive is an archive that landed, perhaps not done yet: the project is read by id, and one
 * still shown (or not read) stays in state, marked `archiving`, with a warning: dropped from state while the
 * service still runs it, it would keep its schedule, paid per page, and no plan would look at it again. While no
 * manifest declares it, the next plan archives it again, a free call already consented to, or drops it once gone.
 */
async function archiveStillShown(
  ctx: HandlerContext,
  change: ProjectArchive,
  result: ChangeResult,
): Promise<boolean> {
  const read = await shownAfterAccepted(() => ctx.clients.projects.find(change.id, ctx.options.signal));
  if (read === 'gone') return false;
  const accepted = `the service accepted the archive of project ${change.name} (${change.id}) with 202 Accepted`;
  warn(
    change,
    result,
    ctx,
    `${accepted}, but ${read === 'shown' ? 'still shows it when read by id, not marked archived' : `reading it by id to see whether it is archived failed (${read})`}: it may still be archiving it, and until then it runs on its schedule; state keeps it, and the next plan archives it again, or drops it once the service no longer shows it`,
  );
  await ctx.store.commit((state) => {
    const entry = state.resources[change.address];
    if (entry?.kind === 'Project')
      state.resources[change.address] = { ...entry, archiving: entry.archiving ?? new Date().toISOString() };
  });
  return true;
}

/** The fields that say when a project runs: each run is paid per page. */
const SCHEDULING = ['schedulingEnabled', 'scrapingInterval'];

/**
 * Whether a value the service reports for a scheduling field runs the project otherwise than the one sent. Another
 * spelling of the same schedule (`DAILY`) runs no more than asked, and neither does any interval while the answer
 * says scheduling is off: warned about and held, as any field not taken.
 */
function scheduleDiffers(key: string, reported: unknown, sent: unknown, answer: LiveProject): boolean {
  const spelled = (value: unknown): unknown =>
    typeof value === 'string' ? value.trim().toLowerCase() : value;
  if (key === 'scrapingInterval' && projectFieldRule('schedulingEnabled')?.read(answer) === false)
    return false;
  return SCHEDULING.includes(key) && spelled(reported) !== spelled(sent ?? null);
}

/**
 * A schedule the service did not take is no warning to pass over: the project runs when the manifest says it
 * must not (the service default is a weekly run, API-NOTES), or more often, each run paid. State records the
 * project (the call was made) but not that schedule, so every later apply sends it again and fails the same way
 * while it lasts: CI never reports the apply as done while the project runs against the manifest.
 */
function refuseScheduleNotTaken(
  change: ProjectCreate | ProjectUpdate,
  answer: LiveProject | undefined,
  notTaken: readonly string[],
): void {
  if (answer === undefined) return;
  const schedule = notTaken.filter((key) =>
    scheduleDiffers(key, projectFieldRule(key)?.read(answer), change.definition[key], answer),
  );
  if (schedule.length === 0) return;
  const reported = schedule.map((key) => `${key} = ${stable(projectFieldRule(key)?.read(answer))}`);
  // Scheduling reported off where it was asked on runs less than asked: no page is paid for, but none is scraped.
  const runsLess = schedule.every(
    (key) => key === 'schedulingEnabled' && projectFieldRule(key)?.read(answer) === false,
  );
  const outcome = runsLess
    ? 'it does not run on the schedule the manifest asks for'
    : 'it may run, at the price of its pages, when the manifest says it must not';
  throw new ScrapeformError(
    'apply.schedule-not-taken',
    `project ${String(answer.id)} was ${change.action === 'create' ? 'created' : 'updated'}, but the service reports ${reported.join(', ')}, not the schedule the manifest asks for (${schedule.map((key) => `${key} = ${stable(change.definition[key] ?? null)}`).join(', ')}): ${outcome}`,
    {
      hint: `check the project's schedule in the ScraperAPI dashboard and ${runsLess ? 'enable' : 'disable'} it there if it is wrong${runsLess ? '' : ' (or archive the project)'}; state records the project, and every apply sends the schedule again (a free PATCH) and fails like this until the service takes it`,
    },
  );
}
