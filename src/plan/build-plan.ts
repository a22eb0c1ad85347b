import type { LiveParserDetails, LiveParserSummary, LiveProject } from '../api/live.js';
import { ScrapeformError } from '../errors.js';
import type { DesiredField, DesiredParser, DesiredProject } from '../model/desired.js';
import type {
  ParserDefinition,
  ParserState,
  ProjectDefinition,
  ProjectState,
  State,
} from '../state/model.js';
import { diffFields } from './diff-fields.js';
import type { FieldDiff } from './diff-fields.js';
import { CREDITS_PER_GENERATION, PLAN_FORMAT_VERSION } from './model.js';
import type { DriftEntry, LiveSnapshot, Plan, PlannedRequest, ResourceChange } from './model.js';

export interface PlanOptions {
  /** Only these addresses (`parser.books`, `project.nightly`); all when empty. */
  targets?: readonly string[];
  excludes?: readonly string[];
  /** Addresses whose declared field definitions are sent once as modify_fields. */
  reassert?: readonly string[];
}

export interface PlanInput {
  parsers: readonly DesiredParser[];
  projects: readonly DesiredProject[];
  state: State;
  live: LiveSnapshot;
  options?: PlanOptions;
}

/** Defaults the service documents for notifications; a key dropped from a manifest is reset to them. */
const NOTIFICATION_DEFAULTS = { notifyOnFailure: 'with_every_run', notifyOnSuccess: 'never' };

/** Values a project key dropped from the manifest is reset to (three-way diff against the last apply). */
const PROJECT_RESETS: Record<string, unknown> = {
  webhookOutput: null,
  notificationConfig: NOTIFICATION_DEFAULTS,
  apiParams: {},
  output_format: 'JSON',
};

/** Which parser details the planner needs beyond the list: objects to adopt, and versions that moved. */
export function detailsNeeded(
  parsers: readonly DesiredParser[],
  state: State,
  list: readonly LiveParserSummary[],
): string[] {
  const needed = new Set<string>();
  const managed = managedIds(state);
  for (const desired of parsers) {
    const recorded = state.resources[desired.address];
    if (recorded === undefined) {
      const matches = list.filter((p) => p.name === desired.name && !managed.has(p.id));
      if (matches.length === 1 && matches[0] !== undefined) needed.add(matches[0].id);
      continue;
    }
    if (recorded.kind !== 'Parser') continue;
    const live = list.find((p) => p.id === recorded.id);
    if (live === undefined) continue;
    const known = [recorded.version, recorded.pending?.version, recorded.failed?.version].filter(
      (v) => v !== null && v !== undefined,
    );
    if (!known.includes(live.version)) needed.add(live.id);
  }
  return [...needed];
}

/** Pure: desired + live + state -> the exact calls that reconcile them (DESIGN sections 2 and 3). */
export function buildPlan(input: PlanInput): Plan {
  const options = input.options ?? {};
  const errors: string[] = [];
  const changes: ResourceChange[] = [];
  const drift: DriftEntry[] = [];
  const warnings: string[] = [];
  const fingerprint: Record<string, string> = {};
  const selected = (address: string): boolean =>
    (options.targets === undefined || options.targets.length === 0 || options.targets.includes(address)) &&
    !(options.excludes ?? []).includes(address);
  const ctx: Context = {
    errors,
    drift,
    warnings,
    fingerprint,
    live: input.live,
    state: input.state,
    reassert: options.reassert ?? [],
  };

  const parserAddresses = new Set([
    ...input.parsers.map((p) => p.address),
    ...Object.entries(input.state.resources)
      .filter(([, r]) => r.kind === 'Parser')
      .map(([a]) => a),
  ]);
  const desiredParsers = new Map<string, DesiredParser>(input.parsers.map((p) => [p.address, p]));
  for (const address of [...parserAddresses].sort()) {
    if (!selected(address)) continue;
    const recorded = input.state.resources[address];
    const change = planParser(
      ctx,
      address,
      desiredParsers.get(address),
      recorded?.kind === 'Parser' ? recorded : undefined,
    );
    if (change !== undefined) changes.push(change);
  }

  const projectAddresses = new Set([
    ...input.projects.map((p) => p.address),
    ...Object.entries(input.state.resources)
      .filter(([, r]) => r.kind === 'Project')
      .map(([a]) => a),
  ]);
  const desiredProjects = new Map<string, DesiredProject>(input.projects.map((p) => [p.address, p]));
  for (const address of [...projectAddresses].sort()) {
    if (!selected(address)) continue;
    const recorded = input.state.resources[address];
    const change = planProject(
      ctx,
      address,
      desiredProjects.get(address),
      recorded?.kind === 'Project' ? recorded : undefined,
    );
    if (change !== undefined) changes.push(change);
  }

  if (errors.length > 0) {
    throw new ScrapeformError(
      'plan.invalid',
      errors.length === 1 ? (errors[0] as string) : `the plan cannot be made:\n- ${errors.join('\n- ')}`,
      {
        details: { errors },
      },
    );
  }
  const count = (action: ResourceChange['action']): number =>
    changes.filter((c) => c.action === action).length;
  const regenerations = changes.filter((c) => c.regenerates).length;
  return {
    format_version: PLAN_FORMAT_VERSION,
    status: changes.length > 0 ? 'changes' : 'no_changes',
    summary: {
      create: count('create'),
      update: count('update'),
      replace: count('replace'),
      delete: count('delete'),
      archive: count('archive'),
      adopt: changes.filter((c) => c.reasons.some((r) => r.startsWith('adopt'))).length,
      regenerations,
      estimated_credits: regenerations * CREDITS_PER_GENERATION,
    },
    resource_changes: changes,
    drift,
    warnings,
    fingerprint: { state_lineage: input.state.lineage, state_serial: input.state.serial, live: fingerprint },
  };
}

interface Context {
  errors: string[];
  drift: DriftEntry[];
  warnings: string[];
  fingerprint: Record<string, string>;
  live: LiveSnapshot;
  state: State;
  reassert: readonly string[];
}

function managedIds(state: State): Set<string> {
  return new Set(Object.values(state.resources).map((r) => String(r.id)));
}

function definitionOf(parser: DesiredParser): ParserDefinition {
  return { urls: [...parser.urls], scraperParams: parser.scraperParams, fields: parser.fields };
}

function parserCreateBody(parser: DesiredParser): Record<string, unknown> {
  const body: Record<string, unknown> = { name: parser.name, urls: parser.urls };
  if (Object.keys(parser.scraperParams).length > 0) body.scraper_params = parser.scraperParams;
  if (parser.fields.length > 0) body.fields = parser.fields.map(wireField);
  return body;
}

function wireField(field: DesiredField): Record<string, string> {
  const out: Record<string, string> = { name: field.name, description: field.description };
  if (field.type !== undefined) out.type = field.type;
  if (field.selector !== undefined) out.selector = field.selector;
  return out;
}

function planParser(
  ctx: Context,
  address: string,
  desired: DesiredParser | undefined,
  recorded: ParserState | undefined,
): ResourceChange | undefined {
  const list = ctx.live.parsers;
  if (desired === undefined) {
    if (recorded === undefined) return undefined;
    const live = list.find((p) => p.id === recorded.id);
    if (live === undefined) {
      ctx.drift.push({
        address,
        kind: 'Parser',
        message: `parser ${recorded.id} was deleted outside scrapeform; it is dropped from state`,
      });
      return change(
        address,
        'Parser',
        recorded.name,
        recorded.id,
        'forget',
        ['deleted outside scrapeform'],
        [],
        { kind: 'none' },
      );
    }
    ctx.fingerprint[address] = `${live.id}@${live.version}`;
    if (ctx.state.resources[address] !== undefined && isPrevented(ctx, address, desired)) return undefined;
    const c = change(
      address,
      'Parser',
      recorded.name,
      recorded.id,
      'delete',
      ['no manifest declares it any more'],
      [{ service: 'parser', method: 'DELETE', path: `/parsers/${encodeURIComponent(recorded.id)}` }],
      { kind: 'none' },
    );
    c.destructive = true;
    c.breaking.push(`parser ${recorded.name} (${recorded.id}) is deleted with all its versions`);
    return c;
  }

  if (recorded === undefined) {
    const managed = managedIds(ctx.state);
    const matches = list.filter((p) => p.name === desired.name && !managed.has(p.id));
    if (matches.length > 1) {
      ctx.errors.push(
        `${address}: ${matches.length} live parsers are named "${desired.name}" (${matches.map((m) => m.id).join(', ')}); scrapeform cannot tell which to adopt. Rename the manifest, or delete the extra parsers.`,
      );
      return undefined;
    }
    const [match] = matches;
    if (match === undefined) return createParser(desired, ['not yet created']);
    ctx.fingerprint[address] = `${match.id}@${match.version}`;
    const details = ctx.live.details[match.id];
    if (details === undefined) throw new Error(`planner: details of ${match.id} were not read`);
    return adoptParser(ctx, address, desired, match, details);
  }

  const live = list.find((p) => p.id === recorded.id);
  if (live === undefined) {
    ctx.drift.push({
      address,
      kind: 'Parser',
      message: `parser ${recorded.id} was deleted outside scrapeform; it will be created again (new id)`,
    });
    const c = createParser(desired, ['deleted outside scrapeform: created again']);
    c.breaking.push(`new parser id (the old one, ${recorded.id}, was deleted outside scrapeform)`);
    return c;
  }
  ctx.fingerprint[address] = `${live.id}@${live.version}`;

  if (recorded.replacing !== undefined) {
    const finishing = finishReplace(ctx, address, desired, recorded, live);
    if (finishing !== 'continue') return finishing;
  }

  // Which version and definition the changes are based on. The recorded definition is what scrapeform sent (or,
  // for an adopted parser, the manifest when it was adopted), so edits since then are changes to send.
  let baseVersion = recorded.version;
  let base = recorded.definition;
  const descriptionsKnown = true;
  const reasons: string[] = [];
  if (!recorded.descriptionsKnown) {
    ctx.warnings.push(
      `${address}: adopted; the descriptions it had before were never seen (--reassert ${address} sends every declared definition once)`,
    );
  }
  if (recorded.pending !== undefined && live.version === recorded.pending.version) {
    if (live.status === 'FINISHED') {
      baseVersion = live.version;
      base = recorded.pending.definition;
    } else if (live.status === 'GENERATING') {
      if (sameParserDefinition(recorded.pending.definition, definitionOf(desired))) {
        ctx.warnings.push(
          `${address}: version ${live.version} is still generating; nothing to change until it finishes`,
        );
        return undefined;
      }
      ctx.warnings.push(
        `${address}: version ${live.version} is still generating; plan again once it is FINISHED to change it`,
      );
      return undefined;
    } else {
      reasons.push(
        `version ${live.version} FAILED: ${live.error ?? 'no error given'}; retrying from the last good version`,
      );
    }
  } else if (recorded.failed !== undefined && live.version === recorded.failed.version) {
    reasons.push(
      `version ${live.version} FAILED: ${recorded.failed.error}; retrying from the last good version`,
    );
  } else if (live.version !== recorded.version) {
    const details = ctx.live.details[live.id];
    if (details !== undefined && details.status === 'FINISHED') {
      const reconciled = reconcileDrift(ctx, address, recorded, details);
      baseVersion = details.version;
      base = reconciled;
    } else if (live.status === 'FAILED') {
      ctx.drift.push({
        address,
        kind: 'Parser',
        message: `version ${live.version} was made outside scrapeform and FAILED: ${live.error ?? ''}`,
      });
    }
  } else if (live.status === 'FAILED') {
    reasons.push(`version ${live.version} FAILED: ${live.error ?? 'no error given'}`);
  }

  if (base === null || baseVersion === null) {
    // No version ever finished: nothing to lose, so a new parser replaces the failed one without approval.
    const c = createParser(desired, [
      `no version of ${recorded.id} ever finished${live.error ? ` (${live.error})` : ''}: created again`,
    ]);
    c.action = 'replace';
    c.id = recorded.id;
    c.requests.push({
      service: 'parser',
      method: 'DELETE',
      path: `/parsers/${encodeURIComponent(recorded.id)}`,
    });
    c.breaking.push(`new parser id (replaces ${recorded.id})`);
    return c;
  }

  const wanted = definitionOf(desired);
  const urlsChanged = JSON.stringify(base.urls) !== JSON.stringify(wanted.urls);
  const paramsChanged = descriptionsKnown && stable(base.scraperParams) !== stable(wanted.scraperParams);
  if (urlsChanged || paramsChanged) {
    if (isPrevented(ctx, address, desired)) return undefined;
    const why = [urlsChanged ? 'urls changed' : '', paramsChanged ? 'scraper_params changed' : ''].filter(
      (r) => r !== '',
    );
    const c = createParser(desired, [
      ...why,
      'the service cannot update them: a new parser replaces the old one',
    ]);
    c.action = 'replace';
    c.id = recorded.id;
    c.destructive = true;
    const post = c.requests[0];
    if (post !== undefined) post.waitAfter = true;
    c.requests.push({
      service: 'parser',
      method: 'DELETE',
      path: `/parsers/${encodeURIComponent(recorded.id)}`,
    });
    c.breaking.push(`parser id changes (${recorded.id} is deleted once the new one is FINISHED)`);
    return c;
  }

  const diff = diffFields(base.fields, desired.fields, desired.renames, {
    descriptionsKnown,
    reassert: ctx.reassert.includes(address),
  });
  if (diff.requests.length === 0) {
    if (reasons.length > 0) {
      ctx.warnings.push(
        `${address}: the latest version FAILED, but the manifest matches the last good version ${baseVersion}; consumers reading the latest version get the failure`,
      );
    }
    return undefined;
  }
  return updateParser(address, desired, recorded.id, baseVersion, diff, reasons, descriptionsKnown);
}

function createParser(desired: DesiredParser, reasons: string[]): ResourceChange {
  const c = change(
    desired.address,
    'Parser',
    desired.name,
    null,
    'create',
    reasons,
    [{ service: 'parser', method: 'POST', path: '/parsers', body: parserCreateBody(desired) }],
    {
      kind: 'Parser',
      baseVersion: null,
      definition: definitionOf(desired),
      descriptionsKnown: true,
      generates: true,
    },
  );
  c.regenerates = true;
  c.field_changes = desired.fields.map((f) => ({
    change: 'add',
    field: f.name,
    after: withoutName(f),
    breaking: false,
  }));
  return c;
}

function updateParser(
  address: string,
  desired: DesiredParser,
  id: string,
  baseVersion: number,
  diff: FieldDiff,
  reasons: string[],
  descriptionsKnown: boolean,
): ResourceChange {
  const requests: PlannedRequest[] = diff.requests.map((ops, i) => ({
    service: 'parser',
    method: 'PATCH',
    path: `/parsers/${encodeURIComponent(id)}/${baseVersion + i}`,
    body: { ...ops },
    ...(i > 0 ? { chained: true } : {}),
  }));
  const c = change(
    address,
    'Parser',
    desired.name,
    id,
    'update',
    [...reasons, summariseFieldChanges(diff)],
    requests,
    {
      kind: 'Parser',
      baseVersion,
      definition: definitionOf(desired),
      descriptionsKnown: descriptionsKnown || diff.regenerates,
      generates: diff.regenerates,
    },
  );
  c.regenerates = diff.regenerates;
  c.field_changes = diff.changes;
  for (const fc of diff.changes.filter((f) => f.breaking)) {
    c.breaking.push(
      fc.change === 'rename'
        ? `renames ${fc.from ?? '?'} to ${fc.field}`
        : fc.change === 'remove'
          ? `removes ${fc.field}`
          : `retypes ${fc.field}`,
    );
  }
  return c;
}

function summariseFieldChanges(diff: FieldDiff): string {
  const n = (kind: string): number => diff.changes.filter((c) => c.change === kind).length;
  const parts = [
    n('add') > 0 ? `${n('add')} to add` : '',
    n('modify') > 0 ? `${n('modify')} to modify` : '',
    n('rename') > 0 ? `${n('rename')} to rename` : '',
    n('remove') > 0 ? `${n('remove')} to remove` : '',
  ].filter((p) => p !== '');
  return `fields: ${parts.join(', ')}`;
}

function adoptParser(
  ctx: Context,
  address: string,
  desired: DesiredParser,
  live: LiveParserSummary,
  details: LiveParserDetails,
): ResourceChange | undefined {
  const reasons = [`adopted: the live parser ${live.id} has this name`];
  ctx.warnings.push(
    `${address}: adopted ${live.id}; its descriptions, selectors and scraper_params are not returned by the service, so only field names and types are compared (--reassert ${address} sends every declared definition once)`,
  );
  if (details.status === 'GENERATING') {
    ctx.warnings.push(
      `${address}: the live parser ${live.id} with this name is still generating; plan again once it finishes to adopt it`,
    );
    return undefined;
  }
  if (details.status !== 'FINISHED') {
    // Its latest version FAILED: nothing works to lose, so no approval is asked to replace it.
    const c = createParser(desired, [
      ...reasons,
      `its latest version is ${details.status}${details.error ? `: ${details.error}` : ''}; a new parser replaces it`,
    ]);
    c.action = 'replace';
    c.id = live.id;
    const post = c.requests[0];
    if (post !== undefined) post.waitAfter = true;
    c.requests.push({ service: 'parser', method: 'DELETE', path: `/parsers/${encodeURIComponent(live.id)}` });
    return c;
  }
  const liveUrls = (details.exampleResult ?? []).map((e) => e.url);
  if (liveUrls.length > 0 && JSON.stringify(liveUrls) !== JSON.stringify(desired.urls)) {
    const c = createParser(desired, [
      ...reasons,
      "urls differ from the live parser's example pages: a new parser replaces it",
    ]);
    c.action = 'replace';
    c.id = live.id;
    c.destructive = true;
    const post = c.requests[0];
    if (post !== undefined) post.waitAfter = true;
    c.requests.push({ service: 'parser', method: 'DELETE', path: `/parsers/${encodeURIComponent(live.id)}` });
    return c;
  }
  const previous: DesiredField[] = details.fields.map((f) => ({
    name: f.name,
    description: '',
    ...(f.type === 'array' ? { type: 'array' as const } : {}),
  }));
  const diff = diffFields(previous, desired.fields, desired.renames, {
    descriptionsKnown: false,
    reassert: ctx.reassert.includes(address),
  });
  if (diff.requests.length > 0)
    return updateParser(address, desired, live.id, details.version, diff, reasons, false);
  const c = change(address, 'Parser', desired.name, live.id, 'adopt', reasons, [], {
    kind: 'Parser',
    baseVersion: details.version,
    definition: definitionOf(desired),
    descriptionsKnown: false,
    generates: false,
  });
  return c;
}

/**
 * A replace that a previous run left half done (killed while waiting, or between its calls): the new parser is in
 * state, the old one still exists. Once the new one is FINISHED the old one is deleted; while it generates, wait.
 */
function finishReplace(
  ctx: Context,
  address: string,
  desired: DesiredParser,
  recorded: ParserState,
  live: LiveParserSummary,
): ResourceChange | undefined | 'continue' {
  const oldId = recorded.replacing?.oldId ?? '';
  const oldExists = ctx.live.parsers.some((p) => p.id === oldId);
  if (live.status === 'GENERATING') {
    ctx.warnings.push(
      `${address}: a replace is under way: the new parser ${recorded.id} is generating; the old one (${oldId}) is deleted once it finishes (apply again then)`,
    );
    return undefined;
  }
  if (live.status === 'FAILED') {
    ctx.warnings.push(
      `${address}: an interrupted replace left a new parser ${recorded.id} that FAILED (${live.error ?? ''}); the old one (${oldId}) still exists. Delete the failed one and remove ${address} from state to go back, or fix the manifest and apply again.`,
    );
    return 'continue';
  }
  const definition = recorded.pending?.definition ?? recorded.definition ?? definitionOf(desired);
  const c = change(
    address,
    'Parser',
    desired.name,
    recorded.id,
    'replace',
    [
      `finishing an interrupted replace: the new parser ${recorded.id} is FINISHED${oldExists ? `; the old one (${oldId}) is deleted` : ''}`,
    ],
    oldExists ? [{ service: 'parser', method: 'DELETE', path: `/parsers/${encodeURIComponent(oldId)}` }] : [],
    {
      kind: 'Parser',
      baseVersion: live.version,
      definition,
      descriptionsKnown: true,
      generates: false,
    },
  );
  c.destructive = oldExists;
  return c;
}

/** The live fields as the base of a diff after an out-of-band change: names the state knows keep their definitions. */
function reconcileDrift(
  ctx: Context,
  address: string,
  recorded: ParserState,
  details: LiveParserDetails,
): ParserDefinition {
  const known = new Map((recorded.definition?.fields ?? []).map((f) => [f.name, f]));
  const liveNames = details.fields.map((f) => f.name);
  const added = liveNames.filter((n) => !known.has(n));
  const removed = [...known.keys()].filter((n) => !liveNames.includes(n));
  ctx.drift.push({
    address,
    kind: 'Parser',
    message: `version moved from ${String(recorded.version)} to ${details.version} outside scrapeform${added.length > 0 ? `; fields added: ${added.join(', ')}` : ''}${removed.length > 0 ? `; fields removed: ${removed.join(', ')}` : ''}`,
  });
  ctx.warnings.push(
    `${address}: descriptions or selectors changed outside scrapeform cannot be seen; the plan reconciles field names and types only`,
  );
  return {
    urls: recorded.definition?.urls ?? [],
    scraperParams: recorded.definition?.scraperParams ?? {},
    fields: details.fields.map(
      (f) =>
        known.get(f.name) ?? {
          name: f.name,
          description: '',
          ...(f.type === 'array' ? { type: 'array' as const } : {}),
        },
    ),
  };
}

function sameParserDefinition(a: ParserDefinition, b: ParserDefinition): boolean {
  return stable(a) === stable(b);
}

function isPrevented(
  ctx: Context,
  address: string,
  desired: DesiredParser | DesiredProject | undefined,
): boolean {
  const prevent = desired?.preventDestroy ?? false;
  if (!prevent) return false;
  ctx.errors.push(`${address}: lifecycle.prevent_destroy is set, and this plan would delete or replace it`);
  return true;
}

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

function planProject(
  ctx: Context,
  address: string,
  desired: DesiredProject | undefined,
  recorded: ProjectState | undefined,
): ResourceChange | undefined {
  const projects = ctx.live.projects;
  if (desired === undefined) {
    if (recorded === undefined) return undefined;
    const live = projects.find((p) => p.id === recorded.id);
    if (live === undefined) {
      ctx.drift.push({
        address,
        kind: 'Project',
        message: `project ${recorded.id} was archived outside scrapeform; it is dropped from state`,
      });
      return change(
        address,
        'Project',
        recorded.name,
        recorded.id,
        'forget',
        ['archived outside scrapeform'],
        [],
        { kind: 'none' },
      );
    }
    ctx.fingerprint[address] = projectDigest(live);
    if (isPrevented(ctx, address, desired)) return undefined;
    const c = change(
      address,
      'Project',
      recorded.name,
      recorded.id,
      'archive',
      ['no manifest declares it any more'],
      [{ service: 'pipeline', method: 'DELETE', path: `/api/projects/${recorded.id}` }],
      { kind: 'none' },
    );
    c.destructive = true;
    c.breaking.push('archive cannot be undone through the API');
    return c;
  }
  const payload = projectPayload(desired);
  let live: LiveProject | undefined;
  let reasons: string[] = [];
  if (recorded !== undefined) {
    live = projects.find((p) => p.id === recorded.id);
    if (live === undefined) {
      ctx.drift.push({
        address,
        kind: 'Project',
        message: `project ${recorded.id} was archived or deleted outside scrapeform; it will be created again (new id)`,
      });
      reasons = ['archived outside scrapeform: created again'];
    }
  } else {
    const managed = managedIds(ctx.state);
    const matches = projects.filter((p) => p.name === desired.name && !managed.has(String(p.id)));
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
    const body = {
      ...payload,
      ...(desired.scheduledAt !== undefined ? { scheduledAt: desired.scheduledAt } : {}),
    };
    const c = change(
      address,
      'Project',
      desired.name,
      null,
      'create',
      reasons.length > 0 ? reasons : ['not yet created'],
      [{ service: 'pipeline', method: 'POST', path: '/api/projects', body }],
      { kind: 'Project', definition: payload },
    );
    if (desired.projectInput.type === 'list') {
      const n = desired.projectInput.list.length;
      c.input_summary = `${n} ${n === 1 ? 'entry' : 'entries'}`;
    }
    return c;
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
    return change(address, 'Project', desired.name, live.id, 'adopt', reasons, [], {
      kind: 'Project',
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
  const c = change(
    address,
    'Project',
    desired.name,
    live.id,
    'update',
    [...reasons, `changed: ${Object.keys(changed).join(', ')}`],
    [{ service: 'pipeline', method: 'PATCH', path: `/api/projects/${live.id}`, body: changed }],
    { kind: 'Project', definition: payload },
  );
  if ('projectInput' in changed) {
    c.input_summary = summariseInputs(liveView.projectInput, desired.projectInput);
  }
  if ('projectType' in changed || 'output_format' in changed)
    c.breaking.push('the shape of the results changes (projectType or output_format)');
  return c;
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
    output_format: live.output_format ?? 'JSON',
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

function change(
  address: string,
  kind: 'Parser' | 'Project',
  name: string,
  id: string | number | null,
  action: ResourceChange['action'],
  reasons: string[],
  requests: PlannedRequest[],
  record: ResourceChange['record'],
): ResourceChange {
  return {
    address,
    kind,
    name,
    id,
    action,
    reasons,
    regenerates: false,
    destructive: false,
    requests,
    field_changes: [],
    breaking: [],
    record,
  };
}

function withoutName(field: DesiredField): Omit<DesiredField, 'name'> {
  const { name: _name, ...rest } = field;
  return rest;
}

/** JSON with sorted keys: two spellings of one value compare equal. */
export function stable(value: unknown): string {
  const sorted = (_key: string, v: unknown): unknown =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? sortKeys(v as Record<string, unknown>) : v;
  return JSON.stringify(value, sorted) ?? 'undefined';
}

function sortKeys(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
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
