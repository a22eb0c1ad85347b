import type { LiveProject } from '../api/live.js';
import { PROJECT_FIELDS, projectFieldRule } from '../model/project-fields.js';
import type { DesiredProject } from '../model/desired.js';
import type { ProjectDefinition, ProjectState } from '../state/model.js';
import type {
  ProjectAdopt,
  ProjectArchive,
  ProjectCreate,
  ProjectForget,
  ProjectUpdate,
  ResourceChange,
} from './model.js';
import {
  change,
  isPrevented,
  noteKeyRedacted,
  sameFieldValue,
  sameJson,
  stable,
  nearlyNamed,
  unmanagedProjectsNamed,
} from './plan-context.js';
import type { Context } from './plan-context.js';
import { notTakenStory, refusedKeys } from './project-drift.js';
import { unseenSinceCreate } from './unseen-create.js';

/** The project as scrapeform sends it: declared keys only, scheduling always explicit. */
export function projectPayload(project: DesiredProject): ProjectDefinition {
  const payload: ProjectDefinition = {
    name: project.name,
    projectType: project.projectType,
    projectInput: project.projectInput,
  };
  if (project.scrapingInterval !== undefined) {
    payload.scrapingInterval = project.scrapingInterval;
    payload.schedulingEnabled = project.schedulingEnabled ?? true;
  } else {
    // Never rely on the server default (a weekly recurring run, API-NOTES): no schedule asked means scheduling
    // off, so the project runs its next run only. The literal for "once" is unknown, so none is sent.
    payload.schedulingEnabled = false;
  }
  if (project.output_format !== undefined) payload.output_format = project.output_format;
  if (project.webhookOutput !== undefined) payload.webhookOutput = project.webhookOutput;
  if (project.notificationConfig !== undefined) payload.notificationConfig = project.notificationConfig;
  if (project.apiParams !== undefined) payload.apiParams = project.apiParams;
  return payload;
}

export function planProject(
  ctx: Context,
  address: string,
  desired: DesiredProject | undefined,
  recorded: ProjectState | undefined,
): ResourceChange | undefined {
  if (desired === undefined) {
    if (recorded === undefined) return undefined;
    const live = ctx.index.projectById.get(recorded.id);
    if (live === undefined) {
      // An archive an earlier apply sent, which the service accepted (202), is done: no drift to report.
      const accepted = recorded.archiving;
      if (accepted === undefined)
        ctx.drift.push({
          address,
          kind: 'Project',
          message: `project ${recorded.id} was archived outside scrapeform; it is dropped from state`,
        });
      return change<ProjectForget>({
        address,
        kind: 'Project',
        name: recorded.name,
        id: recorded.id,
        action: 'forget',
        reasons: [
          accepted === undefined
            ? 'archived outside scrapeform'
            : `archived: the archive accepted at ${accepted} is done`,
        ],
      });
    }
    ctx.fingerprint[address] = projectDigest(live);
    if (isPrevented(ctx, address, desired, recorded)) return undefined;
    // An archive the service accepted (202) and still showed: sent again, consented to when it was first applied.
    const accepted = recorded.archiving;
    return change<ProjectArchive>({
      address,
      kind: 'Project',
      name: recorded.name,
      id: recorded.id,
      action: 'archive',
      reasons:
        accepted === undefined
          ? ['no manifest declares it any more']
          : [`archive accepted at ${accepted} (202), and the service still shows it: archived again`],
      destructive: accepted === undefined,
      breaking: ['archive cannot be undone through the API'],
    });
  }
  if (recorded?.archiving !== undefined)
    ctx.warnings.push(
      `${address}: the service accepted its archive at ${recorded.archiving} (202 Accepted) and still showed it; declared again, it is kept, but the service may still finish that archive (the next plan would then say it was archived outside scrapeform)`,
    );
  const payload = projectPayload(desired);
  let live: LiveProject | undefined;
  let reasons: string[] = [];
  // What the plan compares with: state's record, unless the project it records is gone and another takes its place.
  let base = recorded;
  if (recorded !== undefined) {
    live = ctx.index.projectById.get(recorded.id);
    if (live === undefined) {
      // Created by this state and not shown by a list or read since: the 404 may only mean "not visible yet" (F3),
      // so the create again (perhaps a paid run with scheduledAt: now) needs --recreate; one seen since is gone.
      const unseen = unseenSinceCreate(ctx, address, recorded);
      const sharers = unmanagedProjectsNamed(ctx.index, ctx.managed, desired.name);
      if (unseen !== undefined) reasons = [unseen];
      else if (sharers.length > 0) {
        // Archived by hand and made again by hand (the dashboard): a create would run a second project beside it,
        // each on its schedule, paid per page. The one of its name is taken over instead, with the consent any
        // adoption needs (approval.ts); two of its name are for a person to choose between.
        if (sharers.length > 1) {
          ctx.errors.push(
            `${address}: project ${recorded.id} was archived outside scrapeform, and ${sharers.length} live projects no state manages are named "${desired.name}" (${sharers.map((m) => m.id).join(', ')}); scrapeform cannot tell which takes its place, and creating it again would run one more beside them (nothing is sent)`,
          );
          return undefined;
        }
        live = sharers[0] as LiveProject;
        base = undefined;
        ctx.drift.push({
          address,
          kind: 'Project',
          message: `project ${recorded.id} was archived or deleted outside scrapeform, and live project ${live.id} has its name but no state manages it; it is taken over in its place (not created again)`,
        });
        reasons = [
          `adopted: the live project ${live.id} has this name, and project ${recorded.id} that state records was archived outside scrapeform`,
        ];
      } else {
        ctx.drift.push({
          address,
          kind: 'Project',
          message: `project ${recorded.id} was archived or deleted outside scrapeform; it will be created again (new id)`,
        });
        reasons = ['archived outside scrapeform: created again'];
      }
    }
  } else {
    // One of them may be this project: adopting none and creating it would make a duplicate beside it.
    const nameless = ctx.index.namelessProjects.filter((p) => !ctx.managed.projects.has(p.id));
    if (nameless.length > 0) {
      ctx.errors.push(
        `${address}: the service shows ${nameless.length === 1 ? 'project' : 'projects'} ${nameless.map((p) => p.id).join(', ')} without a name, so scrapeform cannot tell whether "${desired.name}" exists; it is neither adopted nor created (nothing is sent)`,
      );
      return undefined;
    }
    const matches = unmanagedProjectsNamed(ctx.index, ctx.managed, desired.name);
    if (matches.length > 1) {
      ctx.errors.push(
        `${address}: ${matches.length} live projects are named "${desired.name}" (${matches.map((m) => m.id).join(', ')}); scrapeform cannot tell which to adopt`,
      );
      return undefined;
    }
    live = matches[0];
    const near = live === undefined ? nearlyNamed(ctx, 'project', address, desired.name) : undefined;
    if (near !== undefined) {
      ctx.errors.push(near);
      return undefined;
    }
    if (live !== undefined) reasons = [`adopted: the live project ${live.id} has this name`];
  }
  if (live === undefined) {
    const n = desired.projectInput.type === 'list' ? desired.projectInput.list.length : undefined;
    return change<ProjectCreate>({
      address,
      kind: 'Project',
      name: desired.name,
      id: null,
      action: 'create',
      reasons: reasons.length > 0 ? reasons : ['not yet created'],
      definition: payload,
      ...(desired.scheduledAt !== undefined ? { scheduledAt: desired.scheduledAt } : {}),
      ...(n !== undefined ? { input_summary: `${n} ${n === 1 ? 'entry' : 'entries'}` } : {}),
    });
  }
  ctx.fingerprint[address] = projectDigest(live);
  noteKeyRedacted(ctx, address, live);

  const ignored = new Set<string>(desired.ignoreChanges);
  const changed: Record<string, unknown> = {};
  // What the service holds now for each changed key, for the old -> new view of reviewers (not in the JSON).
  const holding: Record<string, unknown> = {};
  const notTaken: string[] = [];
  const wanted: [string, unknown][] = Object.entries(payload);
  // A key dropped from the manifest since the last apply is sent as the service's default.
  for (const key of Object.keys(base?.definition ?? {})) {
    const rule = projectFieldRule(key);
    if (key in payload || rule === undefined || !rule.resetWhenDropped) continue;
    wanted.push([key, rule.serviceDefault]);
  }
  for (const [key, value] of wanted) {
    const rule = projectFieldRule(key);
    if (ignored.has(key) || rule?.compared === false) continue;
    const reported = rule?.read(live);
    // Not in the answer: the service holds what scrapeform last applied, else (never applied) its default.
    const holds =
      reported !== undefined
        ? reported
        : base !== undefined && key in base.definition
          ? base.definition[key]
          : rule?.serviceDefault;
    if (sameFieldValue(key, value, holds)) continue;
    // The service answered this very value the last time scrapeform sent the same one: it does not take it, and
    // sending it again on every run would loop (issue 13). Said, not sent, until the manifest or the live moves.
    const held = base?.held;
    if (
      reported !== undefined &&
      held !== undefined &&
      key in held &&
      sameJson(held[key], reported) &&
      sameJson(base?.definition[key], value)
    ) {
      notTaken.push(key);
      continue;
    }
    changed[key] = value;
    holding[key] = holds;
  }
  if (notTaken.length > 0) {
    ctx.warnings.push(
      `${address}: the service did not take ${notTaken.join(', ')} when it was last sent and still reports ${notTaken.map((k) => `${k} = ${stable(projectFieldRule(k)?.read(live))}`).join(', ')}; not sent again until the manifest changes (check the value, or the service's support)`,
    );
  }
  if (Object.keys(changed).length === 0) {
    if (base !== undefined) return undefined;
    return change<ProjectAdopt>({
      address,
      kind: 'Project',
      name: desired.name,
      id: live.id,
      action: 'adopt',
      reasons,
      definition: recordedDefinition(payload, ignored, base, live),
    });
  }
  if (base !== undefined && base.definition !== undefined) {
    const unchanged = Object.keys(changed).filter((k) => sameJson(base.definition[k], payload[k]));
    // A schedule the service did not take when last sent is sent again, and said so: nobody edited it.
    const notTaken = refusedKeys(base, unchanged, live);
    if (notTaken.length > 0)
      ctx.warnings.push(
        `${address}: ${notTakenStory(base, notTaken, live)}: sent again (check the project in the ScraperAPI dashboard)`,
      );
    const outOfBand = unchanged.filter((k) => !notTaken.includes(k));
    if (outOfBand.length > 0) {
      ctx.drift.push({
        address,
        kind: 'Project',
        message: `edited outside scrapeform: ${outOfBand.join(', ')}`,
      });
    }
  }
  return change<ProjectUpdate>({
    address,
    kind: 'Project',
    name: desired.name,
    id: live.id,
    action: 'update',
    reasons: [...reasons, `changed: ${Object.keys(changed).join(', ')}`],
    changed,
    before: holding,
    definition: recordedDefinition(payload, ignored, base, live),
    breaking:
      'projectType' in changed || 'output_format' in changed
        ? ['the shape of the results changes (projectType or output_format)']
        : [],
    ...('projectInput' in changed
      ? { input_summary: summariseInputs(PROJECT_FIELDS.projectInput.read(live), desired.projectInput) }
      : {}),
  });
}

/**
 * What state records once an update (or an adoption) is applied: the manifest's values, except for the keys
 * `lifecycle.ignore_changes` names, which are never sent: for those, what state recorded (last sent), else what the
 * service reports, else nothing (the service's default). Recording the manifest's value there would read, once the
 * key leaves ignore_changes, as sent: its update shown as an edit made outside scrapeform, or, from a service that
 * leaves the key out of its answers, not planned at all.
 */
function recordedDefinition(
  payload: ProjectDefinition,
  ignored: ReadonlySet<string>,
  recorded: ProjectState | undefined,
  live: LiveProject,
): ProjectDefinition {
  const definition: ProjectDefinition = { ...payload };
  for (const key of ignored) {
    const rule = projectFieldRule(key);
    if (rule === undefined || !rule.compared) continue;
    const reported = rule.read(live);
    if (recorded !== undefined && key in recorded.definition) definition[key] = recorded.definition[key];
    else if (!(key in payload)) continue;
    else if (reported !== undefined) definition[key] = reported;
    // A key every project has stays as declared when nothing else is known.
    else if (key !== 'projectType' && key !== 'projectInput') delete definition[key];
  }
  return definition;
}

function summariseInputs(before: unknown, after: DesiredProject['projectInput']): string {
  const old = (before as { list?: string[] } | undefined)?.list ?? [];
  if (after.type !== 'list') return `inputs from ${after.url}`;
  const oldSet = new Set(old);
  const newSet = new Set(after.list);
  const added = after.list.filter((e) => !oldSet.has(e));
  const removed = old.filter((e) => !newSet.has(e));
  const sample = [...added.slice(0, 3).map((e) => `+ ${e}`), ...removed.slice(0, 3).map((e) => `- ${e}`)];
  return `+${added.length} −${removed.length} entries${sample.length > 0 ? ` (${sample.join(', ')}${added.length + removed.length > sample.length ? ', …' : ''})` : ''}`;
}

/**
 * A short digest of what the plan compared of a project: each field as PROJECT_FIELDS reads it, its next-run time
 * left out (it moves by itself), and nothing else the answer carries (a status or a last-run time would move by
 * itself too, and make every saved plan stale).
 */
function projectDigest(live: LiveProject): string {
  const seen = Object.entries(PROJECT_FIELDS)
    .filter(([key]) => key !== 'scheduledAt')
    .map(([key, rule]) => [key, rule.read(live)]);
  const text = stable(seen);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${live.id}#${hash.toString(16)}`;
}
