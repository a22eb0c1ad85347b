import type { LiveParserSummary } from '../api/live.js';
import { parserStatusKind } from '../api/parser-status.js';
import type { DesiredField, DesiredParser } from '../model/desired.js';
import type { ScraperParams } from '../model/vocabulary.js';
import type { ParserState } from '../state/model.js';
import { diffFields } from './diff-fields.js';
import type {
  ParserCreate,
  ParserDelete,
  ParserFinishReplace,
  ParserReplace,
  ReplacedParser,
} from './model.js';
import { definitionOf } from './parser-definition.js';
import { change, isPrevented, withoutName } from './plan-context.js';
import type { Context } from './plan-context.js';
import { breakingOf } from './plan-parser-update.js';

/*
 * A new parser made from the whole declared definition: created, or in place of an old one (a replace, and the
 * finishing of one a previous run left half done). A create shares its shape with a replace.
 */

/**
 * A new parser in place of `oldId`: create it, wait for FINISHED (apply always waits here), then delete the old
 * one. Destructive unless the old one never had anything to lose (`neverFinished`), which the caller proves.
 */
export function replaceParser(
  desired: DesiredParser,
  oldId: string,
  reasons: string[],
  destructive: boolean,
  breaking: string[] = [],
  replaced?: ReplacedParser,
  alsoDeletes: readonly string[] = [],
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
    ...(alsoDeletes.length > 0 ? { alsoDeletes: [...alsoDeletes] } : {}),
  });
}

/**
 * Whether deleting a parser can lose nothing that ever worked: its latest version is its first (0; seed,
 * Versioning: "the first version is 0") and it FAILED, so no version of it ever finished. With any later version an
 * earlier one may have finished, and consumers may call it pinned (`parse ADDR --version N`, `output`): deleting
 * that parser is destructive, whatever its latest version's status.
 */
export function neverFinished(latest: { version: number; status: string }): boolean {
  return latest.version === 0 && parserStatusKind(latest.status) === 'failed';
}

/**
 * The parsers an interrupted replace still has to delete besides the one it replaces, those the lists still show:
 * its old parser, and any of an attempt before it.
 */
export function leftByInterruptedReplace(ctx: Context, recorded: ParserState): string[] {
  const replacing = recorded.replacing;
  if (replacing === undefined) return [];
  return [replacing.oldId, ...(replacing.also ?? [])].filter((id) => ctx.index.parserById.has(id));
}

/**
 * The old parser of a replace against the declared one, for reviewers: a replace makes every field anew, but what
 * the reviewer approves is what differs from the parser that goes. Fields of a parser scrapeform never applied
 * (adopted) are compared by name and parent-ness only, as an update of it would be.
 */
export function replacedParser(
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

export function createParser(
  desired: DesiredParser,
  reasons: string[],
  breaking: string[] = [],
): ParserCreate {
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

/**
 * A replace that a previous run left half done (killed while waiting, or between its calls): the new parser is in
 * state, the old one still exists. Once the new one is FINISHED the old one is deleted; while it generates, wait.
 */
export function finishReplace(
  ctx: Context,
  address: string,
  desired: DesiredParser,
  recorded: ParserState,
  live: LiveParserSummary,
): ParserFinishReplace | undefined | 'continue' {
  const oldId = recorded.replacing?.oldId ?? '';
  const left = leftByInterruptedReplace(ctx, recorded);
  const oldExists = left.includes(oldId);
  const also = left.filter((id) => id !== oldId);
  const kind = parserStatusKind(live.status);
  if (kind === 'working') {
    ctx.warnings.push(
      `${address}: a replace is under way: the new parser ${recorded.id} is ${live.status === 'GENERATING' ? 'generating' : `still generating (status ${live.status})`}; the old one (${oldId}) is deleted once it finishes (apply again then)`,
    );
    return undefined;
  }
  if (kind === 'failed') {
    ctx.warnings.push(
      `${address}: an interrupted replace left a new parser ${recorded.id} that FAILED (${live.error ?? ''}); the replace is tried again, and the failed one${oldExists ? ` and the old one (${oldId})` : ''}${also.length > 0 ? ` and ${also.join(', ')}` : ''} ${oldExists || also.length > 0 ? 'are' : 'is'} deleted once a new one is FINISHED`,
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
      `finishing an interrupted replace: the new parser ${recorded.id} is FINISHED${oldExists ? `; the old one (${oldId}) is deleted` : ''}${also.length > 0 ? `; ${also.join(', ')}, of an attempt before it, ${also.length === 1 ? 'is' : 'are'} deleted too` : ''}`,
    ],
    oldId: oldExists ? oldId : null,
    version: live.version,
    definition,
    destructive: oldExists || also.length > 0,
    ...(also.length > 0 ? { alsoDeletes: also } : {}),
  });
}

/**
 * A manifest deleted while its replace was half done and whose new parser is gone too: the delete takes the parser
 * the replace was replacing (and any left by an attempt before), which a forget would leave live and unmanaged.
 */
export function deleteLeftByReplace(
  ctx: Context,
  address: string,
  recorded: ParserState,
  original: string,
  also: readonly string[],
): ParserDelete | undefined {
  ctx.drift.push({
    address,
    kind: 'Parser',
    message: `parser ${recorded.id}, the new parser of an interrupted replace, was deleted outside scrapeform; ${original}, which it was replacing, is still live`,
  });
  const old = ctx.index.parserById.get(original);
  if (old !== undefined) ctx.fingerprint[address] = `${old.id}@${old.version}`;
  if (isPrevented(ctx, address, undefined, recorded)) return undefined;
  const gone = [original, ...also];
  return change<ParserDelete>({
    address,
    kind: 'Parser',
    name: old?.name ?? recorded.name,
    id: original,
    action: 'delete',
    reasons: [
      `no manifest declares it any more; its interrupted replace's new parser (${recorded.id}) was deleted outside scrapeform, and ${gone.join(', ')}, left by that replace, ${gone.length === 1 ? 'goes' : 'go'}`,
    ],
    destructive: true,
    breaking: gone.map(
      (id) => `parser ${old?.name ?? recorded.name} (${id}) is deleted with all its versions`,
    ),
    ...(also.length > 0 ? { alsoDeletes: [...also] } : {}),
  });
}
