import type { LiveProject } from '../api/live.js';
import { DEFAULT_OUTPUT_FORMAT, NOTIFICATION_DEFAULTS } from '../model/vocabulary.js';
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
import { change, isPrevented, sortKeys, stable } from './plan-context.js';
import type { Context } from './plan-context.js';

/** Values a project key dropped from the manifest is reset to (three-way diff against the last apply). */
const PROJECT_RESETS: Record<string, unknown> = {
  webhookOutput: null,
  notificationConfig: NOTIFICATION_DEFAULTS,
  apiParams: {},
  output_format: DEFAULT_OUTPUT_FORMAT,
};

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
        reasons: ['archived outside scrapeform'],
      });
    }
    ctx.fingerprint[address] = projectDigest(live);
    if (isPrevented(ctx, address, desired)) return undefined;
    return change<ProjectArchive>({
      address,
      kind: 'Project',
      name: recorded.name,
      id: recorded.id,
      action: 'archive',
      reasons: ['no manifest declares it any more'],
      destructive: true,
      breaking: ['archive cannot be undone through the API'],
    });
  }
  const payload = projectPayload(desired);
  let live: LiveProject | undefined;
  let reasons: string[] = [];
  if (recorded !== undefined) {
    live = ctx.index.projectById.get(recorded.id);
    if (live === undefined) {
      ctx.drift.push({
        address,
        kind: 'Project',
        message: `project ${recorded.id} was archived or deleted outside scrapeform; it will be created again (new id)`,
      });
      reasons = ['archived outside scrapeform: created again'];
    }
  } else {
    const matches = (ctx.index.projectsByName.get(desired.name) ?? []).filter(
      (p) => !ctx.managed.has(String(p.id)),
    );
    if (matches.length > 1) {
      ctx.errors.push(
        `${address}: ${matches.length} live projects are named "${desired.name}" (${matches.map((m) => m.id).join(', ')}); scrapeform cannot tell which to adopt`,
      );
      return undefined;
    }
    live = matches[0];
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

  const ignored = new Set<string>(desired.ignoreChanges);
  const changed: Record<string, unknown> = {};
  const liveView = liveProjectView(live);
  for (const [key, value] of Object.entries(payload)) {
    if (ignored.has(key)) continue;
    // With scheduling off, the interval the service keeps (its weekly default) does not matter.
    if (stable(value) !== stable(liveView[key])) changed[key] = value;
  }
  for (const key of Object.keys(recorded?.definition ?? {})) {
    if (key in payload || ignored.has(key) || !(key in PROJECT_RESETS)) continue;
    if (stable(PROJECT_RESETS[key]) !== stable(liveView[key])) changed[key] = PROJECT_RESETS[key];
  }
  if (Object.keys(changed).length === 0) {
    if (recorded !== undefined) return undefined;
    return change<ProjectAdopt>({
      address,
      kind: 'Project',
      name: desired.name,
      id: live.id,
      action: 'adopt',
      reasons,
      definition: payload,
    });
  }
  if (recorded !== undefined && recorded.definition !== undefined) {
    const outOfBand = Object.keys(changed).filter(
      (k) => stable(recorded.definition[k]) === stable(payload[k]),
    );
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
    before: Object.fromEntries(Object.keys(changed).map((key) => [key, liveView[key]])),
    definition: payload,
    breaking:
      'projectType' in changed || 'output_format' in changed
        ? ['the shape of the results changes (projectType or output_format)']
        : [],
    ...('projectInput' in changed
      ? { input_summary: summariseInputs(liveView.projectInput, desired.projectInput) }
      : {}),
  });
}

/** The live project in the shape scrapeform sends, so both sides compare as one (STYLE 2). */
function liveProjectView(live: LiveProject): Record<string, unknown> {
  const input = live.projectInput as { type: string; list?: unknown; url?: unknown } | null | undefined;
  const webhook = (live.webhookOutput ?? null) as Record<string, unknown> | null;
  return {
    name: live.name,
    projectType: live.projectType,
    projectInput:
      input?.type === 'webhook_input'
        ? { type: 'webhook_input', url: input.url }
        : { type: 'list', list: input?.list ?? [] },
    scrapingInterval: live.scrapingInterval,
    schedulingEnabled: live.schedulingEnabled,
    output_format: live.output_format ?? DEFAULT_OUTPUT_FORMAT,
    webhookOutput: webhook === null ? null : sortKeys(webhook),
    notificationConfig: live.notificationConfig ?? NOTIFICATION_DEFAULTS,
    apiParams: live.apiParams ?? {},
  };
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

/** A short digest of what the plan saw of a project (its next-run time left out: it moves by itself). */
function projectDigest(live: LiveProject): string {
  const { scheduledAt: _next, ...rest } = live;
  const text = stable(rest);
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${live.id}#${hash.toString(16)}`;
}
