import type { LiveParserDetails, LiveParserSummary } from '../api/live.js';
import type { DesiredField, DesiredParser } from '../model/desired.js';
import { parserCreateBody } from '../model/wire.js';
import type { ParserDefinition, ParserState } from '../state/model.js';
import { diffFields } from './diff-fields.js';
import type { FieldDiff } from './diff-fields.js';
import type { PlannedRequest, ResourceChange } from './model.js';
import { change, isPrevented, managedIds, stable, withoutName } from './plan-context.js';
import type { Context } from './plan-context.js';

function definitionOf(parser: DesiredParser): ParserDefinition {
  return { urls: [...parser.urls], scraperParams: parser.scraperParams, fields: parser.fields };
}

export function planParser(
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
    const c = replaceParser(
      desired,
      recorded.id,
      [`no version of ${recorded.id} ever finished${live.error ? ` (${live.error})` : ''}: created again`],
      false,
    );
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
    const c = replaceParser(
      desired,
      recorded.id,
      [...why, 'the service cannot update them: a new parser replaces the old one'],
      true,
    );
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

/**
 * A new parser in place of `oldId`: create it, wait for FINISHED (apply always waits here), then delete the old
 * one. Destructive unless the old one never had anything to lose.
 */
function replaceParser(
  desired: DesiredParser,
  oldId: string,
  reasons: string[],
  destructive: boolean,
): ResourceChange {
  const c = createParser(desired, reasons);
  c.action = 'replace';
  c.id = oldId;
  c.destructive = destructive;
  const post = c.requests[0];
  if (post !== undefined) post.waitAfter = true;
  c.requests.push({ service: 'parser', method: 'DELETE', path: `/parsers/${encodeURIComponent(oldId)}` });
  return c;
}

function createParser(desired: DesiredParser, reasons: string[]): ResourceChange {
  const c = change(
    desired.address,
    'Parser',
    desired.name,
    null,
    'create',
    reasons,
    [
      {
        service: 'parser',
        method: 'POST',
        path: '/parsers',
        body: parserCreateBody({
          name: desired.name,
          urls: desired.urls,
          scraper_params: desired.scraperParams,
          fields: desired.fields,
        }),
      },
    ],
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
    return replaceParser(
      desired,
      live.id,
      [
        ...reasons,
        `its latest version is ${details.status}${details.error ? `: ${details.error}` : ''}; a new parser replaces it`,
      ],
      false,
    );
  }
  const liveUrls = (details.exampleResult ?? []).map((e) => e.url);
  if (liveUrls.length > 0 && JSON.stringify(liveUrls) !== JSON.stringify(desired.urls)) {
    return replaceParser(
      desired,
      live.id,
      [...reasons, "urls differ from the live parser's example pages: a new parser replaces it"],
      true,
    );
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
