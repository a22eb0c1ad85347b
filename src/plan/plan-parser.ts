import type { LiveParserDetails, LiveParserSummary } from '../api/live.js';
import { parserStatusKind } from '../api/parser-status.js';
import type { DesiredField, DesiredParser, DesiredRename } from '../model/desired.js';
import type { ScraperParams } from '../model/vocabulary.js';
import type { ParserDefinition, ParserFailure, ParserState } from '../state/model.js';
import { diffFields, fieldOfTemporary, parentOf } from './diff-fields.js';
import { fieldFromLive, outOfBandRenames, reconcileLiveFields } from './live-fields.js';
import { sameExampleUrls } from './example-urls.js';
import type { FieldChange, FieldDiff } from './diff-fields.js';
import type {
  ParserAdopt,
  ParserCreate,
  ParserDelete,
  ParserFinishReplace,
  ParserForget,
  ParserRecord,
  ParserReplace,
  ParserUpdate,
  ReplacedParser,
  ResourceChange,
} from './model.js';
import { change, isPrevented, stable, withoutName } from './plan-context.js';
import type { Context } from './plan-context.js';
import {
  resolveUnknowns,
  summariseUnknowns,
  unconfirmedWarning,
  unknownAfter,
  unknownFieldWarnings,
  unknownOf,
} from './unknown-values.js';
import type { ResolvedUnknowns } from './unknown-values.js';
import type { UnknownValues } from '../state/model.js';

function definitionOf(parser: DesiredParser): ParserDefinition {
  return { urls: [...parser.urls], scraperParams: parser.scraperParams, fields: parser.fields };
}

export function planParser(
  ctx: Context,
  address: string,
  desired: DesiredParser | undefined,
  recorded: ParserState | undefined,
): ResourceChange | undefined {
  if (recorded !== undefined) reportNameSharers(ctx, address, [recorded.name, desired?.name]);
  if (desired === undefined) {
    if (recorded === undefined) return undefined;
    const live = ctx.index.parserById.get(recorded.id);
    if (live === undefined) {
      ctx.drift.push({
        address,
        kind: 'Parser',
        message: `parser ${recorded.id} was deleted outside scrapeform; it is dropped from state`,
      });
      return change<ParserForget>({
        address,
        kind: 'Parser',
        name: recorded.name,
        id: recorded.id,
        action: 'forget',
        reasons: ['deleted outside scrapeform'],
      });
    }
    ctx.fingerprint[address] = `${live.id}@${live.version}`;
    if (isPrevented(ctx, address, desired, recorded)) return undefined;
    return change<ParserDelete>({
      address,
      kind: 'Parser',
      name: recorded.name,
      id: recorded.id,
      action: 'delete',
      reasons: ['no manifest declares it any more'],
      destructive: true,
      breaking: [`parser ${recorded.name} (${recorded.id}) is deleted with all its versions`],
    });
  }

  if (recorded === undefined) {
    const matches = (ctx.index.parsersByName.get(desired.name) ?? []).filter((p) => !ctx.managed.has(p.id));
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

  const live = ctx.index.parserById.get(recorded.id);
  if (live === undefined) {
    ctx.drift.push({
      address,
      kind: 'Parser',
      message: `parser ${recorded.id} was deleted outside scrapeform; it will be created again (new id)`,
    });
    return createParser(
      desired,
      ['deleted outside scrapeform: created again'],
      [`new parser id (the old one, ${recorded.id}, was deleted outside scrapeform)`],
    );
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
  let driftRenames: DesiredRename[] = [];
  const descriptionsKnown = true;
  const reasons: string[] = [];
  const marked = unknownOf(recorded);
  if (!recorded.descriptionsKnown && marked === undefined) {
    ctx.warnings.push(
      `${address}: adopted; the descriptions it had before were never seen (--reassert ${address} sends every declared definition once)`,
    );
  }
  const liveKind = parserStatusKind(live.status);
  if (recorded.pending !== undefined && live.version === recorded.pending.version) {
    if (liveKind === 'done') {
      baseVersion = live.version;
      base = recorded.pending.definition;
    } else if (liveKind === 'working') {
      // Any status but FINISHED and FAILED means the service is still at work (issue 13): wait, never retry.
      if (sameParserDefinition(recorded.pending.definition, definitionOf(desired))) {
        ctx.warnings.push(
          `${address}: version ${live.version} is ${stillGenerating(live.status)}; nothing to change until it finishes`,
        );
        return undefined;
      }
      ctx.warnings.push(
        `${address}: version ${live.version} is ${stillGenerating(live.status)}; plan again once it is FINISHED to change it`,
      );
      return undefined;
    } else {
      reasons.push(
        `version ${live.version} FAILED: ${live.error ?? 'no error given'}; retrying from the last good version`,
      );
    }
  } else if (recorded.failed !== undefined && live.version === recorded.failed.version) {
    if (retriedEnough(ctx, address, recorded.failed, definitionOf(desired))) return undefined;
    reasons.push(
      `version ${live.version} FAILED: ${recorded.failed.error}; retrying from the last good version`,
    );
  } else if (live.version !== recorded.version) {
    const details = ctx.live.details[live.id];
    if (details !== undefined && parserStatusKind(details.status) === 'done') {
      const reconciled = reconcileDrift(ctx, address, recorded, details);
      baseVersion = details.version;
      base = reconciled.definition;
      // Renamed back only while the manifest still wants the old name (and not the new one as well).
      const wantedNames = new Set(desired.fields.map((f) => f.name));
      driftRenames = reconciled.renames.filter((r) => wantedNames.has(r.to) && !wantedNames.has(r.from));
    } else if (liveKind === 'working') {
      ctx.warnings.push(
        `${address}: version ${live.version} was made outside scrapeform and is ${stillGenerating(live.status)}; plan again once it finishes`,
      );
      return undefined;
    } else if (liveKind === 'failed') {
      ctx.drift.push({
        address,
        kind: 'Parser',
        message: `version ${live.version} was made outside scrapeform and FAILED: ${live.error ?? ''}`,
      });
    }
  } else if (liveKind === 'failed') {
    reasons.push(`version ${live.version} FAILED: ${live.error ?? 'no error given'}`);
  }

  if (base === null || baseVersion === null) {
    if (liveKind === 'working') {
      ctx.warnings.push(
        `${address}: version ${live.version} is ${stillGenerating(live.status)}; plan again once it finishes`,
      );
      return undefined;
    }
    // No version ever finished: nothing to lose, so a new parser replaces the failed one without approval.
    const tried = recorded.pending?.definition ?? recorded.definition;
    return replaceParser(
      desired,
      recorded.id,
      [`no version of ${recorded.id} ever finished${live.error ? ` (${live.error})` : ''}: created again`],
      false,
      [`new parser id (replaces ${recorded.id})`],
      tried === null ? undefined : replacedParser(tried, desired, true),
    );
  }

  // Values never seen (import) take the manifest's where that is no change to send, and are recorded when the
  // user confirms them (--accept-unknown): never a replace because of them.
  const accepting = ctx.acceptUnknown.includes(address);
  const resolved = resolveUnknowns(base, marked, desired, accepting);
  const known = resolved.base;
  const wanted = definitionOf(desired);
  const urlsChanged = !sameExampleUrls(known.urls, wanted.urls);
  const paramsChanged = descriptionsKnown && stable(known.scraperParams) !== stable(wanted.scraperParams);
  if (urlsChanged || paramsChanged) {
    if (isPrevented(ctx, address, desired)) return undefined;
    const why = [urlsChanged ? 'urls changed' : '', paramsChanged ? 'scraper_params changed' : ''].filter(
      (r) => r !== '',
    );
    if (marked?.scraperParams === true && !accepting) {
      ctx.warnings.push(
        `${address}: the scraper_params of ${recorded.id} were never seen (imported); the new parser gets the manifest's: ${JSON.stringify(wanted.scraperParams)}`,
      );
    }
    return replaceParser(
      desired,
      recorded.id,
      [...why, 'the service cannot update them: a new parser replaces the old one'],
      true,
      [`parser id changes (${recorded.id} is deleted once the new one is FINISHED)`],
      replacedParser(base, desired, descriptionsKnown),
    );
  }

  const diff = diffFields(known.fields, desired.fields, [...desired.renames, ...driftRenames], {
    descriptionsKnown,
    reassert: ctx.reassert.includes(address),
  });
  const renamed = diff.changes.flatMap((fc) =>
    fc.change === 'rename' && fc.from !== undefined ? [{ from: fc.from, to: fc.field }] : [],
  );
  const unconfirmed = unconfirmedWarning(address, resolved.unconfirmed);
  if (unconfirmed !== undefined) ctx.warnings.push(unconfirmed);
  ctx.warnings.push(
    ...unknownFieldWarnings(
      address,
      unknownAfter(resolved.remaining, renamed, [], desired.fields),
      diff.requests,
    ),
  );
  if (accepting && resolved.recorded.length === 0) {
    ctx.warnings.push(
      `--accept-unknown ${address}: nothing to record: ${marked === undefined ? 'state knows every value of this parser' : `the manifest declares none of its values never seen (${summariseUnknowns(marked)})`}`,
    );
  }
  const unknown = unknownAfter(resolved.remaining, renamed, diff.requests, desired.fields);
  // A type never seen that the manifest now declares is no retype anyone downstream can notice.
  const typeUnseen = new Set(unknownAfter(resolved.remaining, renamed, [], desired.fields)?.types ?? []);
  if (typeUnseen.size > 0)
    diff.changes = diff.changes.map((fc) =>
      fc.change === 'modify' && typeUnseen.has(fc.field) ? { ...fc, breaking: false } : fc,
    );
  if (diff.requests.length === 0) {
    if (reasons.length > 0) {
      ctx.warnings.push(
        `${address}: the latest version FAILED, but the manifest matches the last good version ${baseVersion}; consumers reading the latest version get the failure`,
      );
    }
    if (resolved.recorded.length > 0)
      return recordParser(address, desired, recorded.name, recorded.id, baseVersion, resolved, unknown);
    return undefined;
  }
  // A parser keeps the name it was created with (the service has no rename): moved, it differs from desired's.
  return updateParser(
    address,
    desired,
    recorded.name,
    recorded.id,
    baseVersion,
    diff,
    [...reasons, ...recordedReasons(resolved)],
    descriptionsKnown,
    unknown,
  );
}

/** The values `--accept-unknown` records, as reasons of the change that records them. */
function recordedReasons(resolved: ResolvedUnknowns): string[] {
  if (resolved.recorded.length === 0) return [];
  return [
    'values never seen (imported) confirmed live with --accept-unknown: recorded in state, no call for them',
    ...resolved.recorded.map((r) => `records ${r}`),
  ];
}

/** Values never seen, confirmed live: recorded in state with no call (`--accept-unknown`). */
function recordParser(
  address: string,
  desired: DesiredParser,
  name: string,
  id: string,
  version: number,
  resolved: ResolvedUnknowns,
  unknown: UnknownValues | undefined,
): ParserRecord {
  return change<ParserRecord>({
    address,
    kind: 'Parser',
    name,
    id,
    action: 'record',
    reasons: [
      ...recordedReasons(resolved),
      ...(unknown !== undefined
        ? [`still never seen (declare them, then --accept-unknown again): ${summariseUnknowns(unknown)}`]
        : []),
    ],
    version,
    definition: definitionOf(desired),
    ...(unknown !== undefined ? { unknown } : {}),
  });
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
  breaking: string[] = [],
  replaced?: ReplacedParser,
): ParserReplace {
  return change<ParserReplace>({
    ...newParser(desired, reasons),
    action: 'replace',
    finishing: false,
    id: oldId,
    destructive,
    // Consumers lose what the new parser no longer has, as they would from an update.
    breaking: [...breaking, ...breakingOf(replaced?.field_changes ?? [])],
    ...(replaced !== undefined ? { replaced } : {}),
  });
}

/** What consumers of the results notice of a field diff: removed, renamed and retyped fields. */
function breakingOf(changes: readonly FieldChange[]): string[] {
  return changes
    .filter((f) => f.breaking)
    .map((fc) =>
      fc.change === 'rename'
        ? `renames ${fc.from ?? '?'} to ${fc.field}`
        : fc.change === 'remove'
          ? `removes ${fc.field}`
          : `retypes ${fc.field}`,
    );
}

/**
 * The old parser of a replace against the declared one, for reviewers: a replace makes every field anew, but what
 * the reviewer approves is what differs from the parser that goes. Fields of a parser scrapeform never applied
 * (adopted) are compared by name and parent-ness only, as an update of it would be.
 */
function replacedParser(
  old: { urls?: string[]; scraperParams?: ScraperParams; fields: readonly DesiredField[] },
  desired: DesiredParser,
  descriptionsKnown: boolean,
): ReplacedParser {
  const diff = diffFields(old.fields, desired.fields, desired.renames, { descriptionsKnown });
  const touched = new Set(diff.changes.map((c) => c.field));
  return {
    ...(old.urls !== undefined ? { urls: [...old.urls] } : {}),
    ...(old.scraperParams !== undefined ? { scraperParams: old.scraperParams } : {}),
    field_changes: diff.changes,
    unchanged: desired.fields.map((f) => f.name).filter((name) => !touched.has(name)),
  };
}

function createParser(desired: DesiredParser, reasons: string[], breaking: string[] = []): ParserCreate {
  return change<ParserCreate>({ ...newParser(desired, reasons), action: 'create', id: null, breaking });
}

/** What a create and a replace share: the whole declared definition, every field added, a generation. */
function newParser(
  desired: DesiredParser,
  reasons: string[],
): Pick<
  ParserCreate,
  'address' | 'kind' | 'name' | 'reasons' | 'definition' | 'regenerates' | 'field_changes'
> {
  return {
    address: desired.address,
    kind: 'Parser',
    name: desired.name,
    reasons,
    definition: definitionOf(desired),
    regenerates: true,
    field_changes: desired.fields.map((f) => ({
      change: 'add',
      field: f.name,
      after: withoutName(f),
      breaking: false,
    })),
  };
}

function updateParser(
  address: string,
  desired: DesiredParser,
  name: string,
  id: string,
  baseVersion: number,
  diff: FieldDiff,
  reasons: string[],
  descriptionsKnown: boolean,
  unknown?: UnknownValues,
): ParserUpdate {
  return change<ParserUpdate>({
    address,
    kind: 'Parser',
    name,
    id,
    action: 'update',
    reasons: [...reasons, summariseFieldChanges(diff)],
    baseVersion,
    waves: diff.requests,
    definition: definitionOf(desired),
    descriptionsKnown: descriptionsKnown || diff.regenerates,
    ...(unknown !== undefined ? { unknown } : {}),
    regenerates: diff.regenerates,
    field_changes: diff.changes,
    breaking: breakingOf(diff.changes),
  });
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
  const kind = parserStatusKind(details.status);
  const liveUrls = (details.exampleResult ?? []).map((e) => e.url);
  // The service returns neither descriptions nor scraper_params: only names, parent-ness and example urls are seen.
  const seen = (): ReplacedParser =>
    replacedParser(
      {
        ...(liveUrls.length > 0 ? { urls: liveUrls } : {}),
        fields: details.fields.map((f) => fieldFromLive(f)),
      },
      desired,
      false,
    );
  if (kind === 'working') {
    ctx.warnings.push(
      `${address}: the live parser ${live.id} with this name is ${stillGenerating(details.status)}; plan again once it finishes to adopt it`,
    );
    return undefined;
  }
  if (kind === 'failed') {
    // Its latest version FAILED: nothing works to lose, so no approval is asked to replace it.
    return replaceParser(
      desired,
      live.id,
      [
        ...reasons,
        `its latest version is ${details.status}${details.error ? `: ${details.error}` : ''}; a new parser replaces it`,
      ],
      false,
      [],
      seen(),
    );
  }
  if (liveUrls.length > 0 && !sameExampleUrls(liveUrls, desired.urls)) {
    return replaceParser(
      desired,
      live.id,
      [...reasons, "urls differ from the live parser's example pages: a new parser replaces it"],
      true,
      [],
      seen(),
    );
  }
  const previous = details.fields.map((f) => fieldFromLive(f));
  const diff = diffFields(previous, desired.fields, desired.renames, {
    descriptionsKnown: false,
    reassert: ctx.reassert.includes(address),
  });
  if (diff.requests.length > 0)
    return updateParser(address, desired, desired.name, live.id, details.version, diff, reasons, false);
  return change<ParserAdopt>({
    address,
    kind: 'Parser',
    name: desired.name,
    id: live.id,
    action: 'adopt',
    reasons,
    version: details.version,
    definition: definitionOf(desired),
  });
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
): ParserFinishReplace | undefined | 'continue' {
  const oldId = recorded.replacing?.oldId ?? '';
  const oldExists = ctx.index.parserById.has(oldId);
  const kind = parserStatusKind(live.status);
  if (kind === 'working') {
    ctx.warnings.push(
      `${address}: a replace is under way: the new parser ${recorded.id} is ${live.status === 'GENERATING' ? 'generating' : `still generating (status ${live.status})`}; the old one (${oldId}) is deleted once it finishes (apply again then)`,
    );
    return undefined;
  }
  if (kind === 'failed') {
    ctx.warnings.push(
      `${address}: an interrupted replace left a new parser ${recorded.id} that FAILED (${live.error ?? ''}); the old one (${oldId}) still exists. Delete the failed one and remove ${address} from state to go back, or fix the manifest and apply again.`,
    );
    return 'continue';
  }
  const definition = recorded.pending?.definition ?? recorded.definition ?? definitionOf(desired);
  return change<ParserFinishReplace>({
    address,
    kind: 'Parser',
    name: desired.name,
    id: recorded.id,
    action: 'replace',
    finishing: true,
    reasons: [
      `finishing an interrupted replace: the new parser ${recorded.id} is FINISHED${oldExists ? `; the old one (${oldId}) is deleted` : ''}`,
    ],
    oldId: oldExists ? oldId : null,
    version: live.version,
    definition,
    destructive: oldExists,
  });
}

/**
 * The live fields as the base of a diff after an out-of-band change: names the state knows keep their definitions,
 * and a field renamed by hand in a step the service applied without regenerating carries its old definition, with
 * the rename back as a hint (free, immediate: rename_fields, never remove + add).
 */
function reconcileDrift(
  ctx: Context,
  address: string,
  recorded: ParserState,
  details: LiveParserDetails,
): { definition: ParserDefinition; renames: DesiredRename[] } {
  const recordedFields = recorded.definition?.fields ?? [];
  const known = new Map(recordedFields.map((f) => [f.name, f]));
  const liveNames = details.fields.map((f) => f.name);
  // Our own temporary names (a swap whose first PATCH landed but was never recorded) hold fields state knows:
  // they keep their definitions, and are neither drift nor a reason to regenerate.
  const temporaries = new Map(
    liveNames.flatMap((n) => {
      const original = known.has(n) ? undefined : fieldOfTemporary(n);
      return original !== undefined && known.has(original) && !liveNames.includes(original)
        ? [[n, original] as const]
        : [];
    }),
  );
  const renamed = new Map(
    [...outOfBandRenames(recordedFields, ctx.live.previous?.[details.id], details)].filter(
      ([to]) => !temporaries.has(to),
    ),
  );
  const renamedFrom = new Set([...renamed.values(), ...temporaries.values()]);
  const added = liveNames.filter((n) => !known.has(n) && !renamed.has(n) && !temporaries.has(n));
  const removed = [...known.keys()].filter((n) => !liveNames.includes(n) && !renamedFrom.has(n));
  const tops = [...renamed].filter(([to]) => !renamed.has(parentOf(to)));
  if (temporaries.size > 0) {
    ctx.warnings.push(
      `${address}: an interrupted apply left temporary field names (${[...temporaries.keys()].join(', ')}) at version ${details.version}; the renames are finished (no regeneration)`,
    );
  }
  if (temporaries.size === 0 || added.length + removed.length + tops.length > 0) {
    ctx.drift.push({
      address,
      kind: 'Parser',
      message: `version moved from ${String(recorded.version)} to ${details.version} outside scrapeform${tops.length > 0 ? `; fields renamed: ${tops.map(([to, from]) => `${from} -> ${to}`).join(', ')}` : ''}${added.length > 0 ? `; fields added: ${added.join(', ')}` : ''}${removed.length > 0 ? `; fields removed: ${removed.join(', ')}` : ''}`,
    });
    ctx.warnings.push(
      `${address}: descriptions or selectors changed outside scrapeform cannot be seen; the plan reconciles field names and types only`,
    );
  }
  return {
    definition: {
      urls: recorded.definition?.urls ?? [],
      scraperParams: recorded.definition?.scraperParams ?? {},
      fields: reconcileLiveFields(recordedFields, details, new Map([...renamed, ...temporaries])),
    },
    renames: tops.map(([to, from]) => ({ from: to, to: from })),
  };
}

/** "still generating", naming a status scrapeform does not know (read as still working, issue 13). */
function stillGenerating(status: string): string {
  return status === 'GENERATING' ? 'still generating' : `still generating (status ${status})`;
}

/**
 * A definition that FAILED twice in a row is not tried again by a plan on its own: each try costs a generation,
 * and a plan that always has this retry would keep `plan --detailed-exitcode` at 2 for ever. A changed manifest,
 * or `--reassert ADDR`, tries again.
 */
function retriedEnough(
  ctx: Context,
  address: string,
  failed: ParserFailure,
  wanted: ParserDefinition,
): boolean {
  if ((failed.attempts ?? 1) < 2 || failed.definition === undefined) return false;
  if (!sameParserDefinition(failed.definition, wanted) || ctx.reassert.includes(address)) return false;
  ctx.warnings.push(
    `${address}: version ${failed.version} FAILED ${failed.attempts ?? 2} times with the definition the manifests ask for (${failed.error}); not retried again by itself: fix the manifest, or try once more with --reassert ${address}`,
  );
  return true;
}

function sameParserDefinition(a: ParserDefinition, b: ParserDefinition): boolean {
  return stable(a) === stable(b);
}

/**
 * Live parsers that share a managed parser's name but that state does not manage (a create whose answer was lost
 * before intents were recorded, or one made outside scrapeform) are shown, never hidden: scrapeform leaves them
 * alone, so without this they would cost credits unseen.
 */
function reportNameSharers(ctx: Context, address: string, names: readonly (string | undefined)[]): void {
  const sharers = [...new Set(names)]
    .flatMap((name) => (name === undefined ? [] : (ctx.index.parsersByName.get(name) ?? [])))
    .filter((p) => !ctx.managed.has(p.id));
  for (const p of sharers) {
    ctx.drift.push({
      address,
      kind: 'Parser',
      message: `live parser ${p.id} ("${p.name}", version ${p.version}, ${p.status}) has this parser's name but is not managed by scrapeform (an interrupted apply may have created it); it is left alone: delete it, or import it under another name`,
    });
  }
}
