import { failureReason, parserStatusKind } from '../api/parser-status.js';
import type { DesiredParser, DesiredRename } from '../model/desired.js';
import type { ParserState } from '../state/model.js';
import { diffFields } from './diff-fields.js';
import { sameExampleUrls } from './example-urls.js';
import type { ParserDelete, ParserForget, ResourceChange } from './model.js';
import { definitionOf, sameParserDefinition } from './parser-definition.js';
import { sameScraperParams } from './parser-spelling.js';
import { change, isPrevented, nearlyNamed, noteKeyRedacted, unmanagedParsersNamed } from './plan-context.js';
import type { Context } from './plan-context.js';
import { adoptParser } from './plan-parser-adoption.js';
import { createBesideDeleting } from './deleting.js';
import { driftBaseline } from './parser-drift.js';
import { detailsBehind, laggingVersion, lagWarning } from './lagging-version.js';
import { reconcileDrift } from './plan-parser-drift.js';
import {
  failuresSoFar,
  retriedEnough,
  stillGenerating,
  STILL_GENERATING_ENDING,
} from './plan-parser-generation.js';
import { recordedReasons, recordParser } from './plan-parser-record.js';
import {
  createParser,
  deleteLeftByReplace,
  finishReplace,
  leftByInterruptedReplace,
  neverFinished,
  replacedParser,
  replaceParser,
} from './plan-parser-replace.js';
import { expectedPatchVersion } from './recover-intents.js';
import { updateParser } from './plan-parser-update.js';
import { unseenSinceCreate } from './unseen-create.js';
import {
  resolveUnknowns,
  summariseUnknowns,
  unconfirmedWarning,
  unknownAfter,
  unknownFieldWarnings,
  unknownOf,
} from './unknown-values.js';

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
      // The new parser of a half-done replace gone: the one it was replacing (and any of an attempt before) is
      // still live, and is what the deleted manifest declared. Forgetting it would leave it live and unmanaged.
      const [original, ...also] = leftByInterruptedReplace(ctx, recorded);
      if (original !== undefined) return deleteLeftByReplace(ctx, address, recorded, original, also);
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
    // A half-done replace: the parser it was replacing (and any of an attempt before) goes too, or it would be left
    // live and unmanaged.
    const left = leftByInterruptedReplace(ctx, recorded);
    return change<ParserDelete>({
      address,
      kind: 'Parser',
      name: recorded.name,
      id: recorded.id,
      action: 'delete',
      reasons: [
        `no manifest declares it any more${left.length > 0 ? `; ${left.join(', ')}, of its interrupted replace, ${left.length === 1 ? 'goes' : 'go'} too` : ''}`,
      ],
      destructive: true,
      breaking: [`parser ${recorded.name} (${recorded.id}) is deleted with all its versions`],
      ...(left.length > 0 ? { alsoDeletes: left } : {}),
    });
  }

  if (recorded === undefined) {
    const matches = unmanagedParsersNamed(ctx.index, ctx.managed, desired.name);
    if (matches.length > 1) {
      ctx.errors.push(
        `${address}: ${matches.length} live parsers are named "${desired.name}" (${matches.map((m) => m.id).join(', ')}); scrapeform cannot tell which to adopt. Rename the manifest, or delete the extra parsers.`,
      );
      return undefined;
    }
    const [match] = matches;
    const near = match === undefined ? nearlyNamed(ctx, 'parser', address, desired.name) : undefined;
    if (near !== undefined) {
      ctx.errors.push(near);
      return undefined;
    }
    if (match === undefined) {
      const beside = createBesideDeleting(ctx.state, ctx.index, address, desired.name);
      if (beside !== undefined) ctx.warnings.push(beside);
      return createParser(desired, ['not yet created']);
    }
    ctx.fingerprint[address] = `${match.id}@${match.version}`;
    const details = ctx.live.details[match.id];
    if (details === undefined) throw new Error(`planner: details of ${match.id} were not read`);
    return adoptParser(ctx, address, desired, match, details);
  }

  const live = ctx.index.parserById.get(recorded.id);
  if (live === undefined) {
    // Created by this state and never seen FINISHED since: the 404 may only mean "not visible yet" (F3), so the
    // create again needs --recreate; one seen since is gone, as drift.
    const unseen = unseenSinceCreate(ctx, address, recorded);
    if (unseen === undefined)
      ctx.drift.push({
        address,
        kind: 'Parser',
        message: `parser ${recorded.id} was deleted outside scrapeform; it will be created again (new id)`,
      });
    // The new parser of a half-done replace: the replace of the one it was replacing is made again, so that one
    // is not left live and unmanaged.
    const [original, ...also] = leftByInterruptedReplace(ctx, recorded);
    if (original !== undefined) {
      if (isPrevented(ctx, address, desired)) return undefined;
      const old = ctx.index.parserById.get(original);
      if (old !== undefined) ctx.fingerprint[address] = `${old.id}@${old.version}`;
      return replaceParser(
        desired,
        original,
        [
          unseen ??
            `the new parser of an interrupted replace was deleted outside scrapeform: the replace of ${original} is made again`,
        ],
        true,
        [`new parser id (replaces ${original})`],
        undefined,
        also,
      );
    }
    return createParser(
      desired,
      [unseen ?? 'deleted outside scrapeform: created again'],
      [
        `new parser id (the old one, ${recorded.id}, ${unseen !== undefined ? 'is not found' : 'was deleted outside scrapeform'})`,
      ],
    );
  }
  ctx.fingerprint[address] = `${live.id}@${live.version}`;
  noteKeyRedacted(ctx, address, live);
  // Below a version state records as existing: a lagging answer, on whose strength nothing is sent.
  const lag = laggingVersion(recorded, live.version);
  if (lag !== undefined) {
    ctx.warnings.push(lagWarning(address, lag));
    return undefined;
  }

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
  // A pending version shown FAILED counts as a try, whether or not apply waited to see it fail.
  const failed = failuresSoFar(recorded, live);
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
        `${address}: version ${live.version} is ${stillGenerating(live.status)}${STILL_GENERATING_ENDING} is FINISHED to change it`,
      );
      return undefined;
    } else {
      if (base !== null && retriedEnough(ctx, address, failed, definitionOf(desired))) return undefined;
      reasons.push(
        `version ${live.version} FAILED: ${failureReason(live.error)}; retrying from the last good version`,
      );
    }
  } else if (recorded.failed?.version === live.version && liveKind === 'failed') {
    if (retriedEnough(ctx, address, recorded.failed, definitionOf(desired))) return undefined;
    reasons.push(
      `version ${live.version} FAILED: ${recorded.failed.error}; retrying from the last good version`,
    );
  } else if (live.version !== recorded.version) {
    const details = ctx.live.details[live.id];
    if (detailsBehind(ctx.warnings, address, live, details)) return undefined;
    // A version made past one scrapeform made and has not seen finish was based on that one: the definition sent
    // with it is what drift is reconciled against, not the version before it (nor nothing, after a create).
    const baseline = driftBaseline(recorded, live.version);
    if (details !== undefined && parserStatusKind(details.status) === 'done') {
      const reconciled = reconcileDrift(ctx, address, baseline, details);
      baseVersion = details.version;
      base = reconciled.definition;
      // Renamed back only while the manifest still wants the old name (and not the new one as well).
      const wantedNames = new Set(desired.fields.map((f) => f.name));
      driftRenames = reconciled.renames.filter((r) => wantedNames.has(r.to) && !wantedNames.has(r.from));
    } else if (liveKind === 'working') {
      ctx.warnings.push(
        `${address}: version ${live.version} was made ${madeBy(recorded, live.version, 'working')} and is ${stillGenerating(live.status)}${STILL_GENERATING_ENDING} finishes`,
      );
      return undefined;
    } else if (liveKind === 'failed') {
      ctx.drift.push({
        address,
        kind: 'Parser',
        message: `version ${live.version} was made ${madeBy(recorded, live.version, 'failed')} and FAILED: ${live.error ?? ''}`,
      });
      if (baseline !== recorded) {
        baseVersion = baseline.version;
        base = baseline.definition;
      }
    }
  } else if (liveKind === 'failed') {
    reasons.push(`version ${live.version} FAILED: ${failureReason(live.error)}`);
  }

  if (base === null || baseVersion === null) {
    if (liveKind === 'working') {
      ctx.warnings.push(
        `${address}: version ${live.version} is ${stillGenerating(live.status)}${STILL_GENERATING_ENDING} finishes`,
      );
      return undefined;
    }
    // No version scrapeform saw finished. Nothing to lose only when the parser's one version FAILED: a later
    // version means one made outside scrapeform may have finished, so the delete needs approval (neverFinished).
    // Or the failed one's, once a failure counted (refreshState) took its pending version.
    const tried = recorded.pending?.definition ?? recorded.definition ?? recorded.failed?.definition ?? null;
    // A replace killed while its new parser generated, which then FAILED: the original (and any earlier attempt)
    // still goes once a new one is FINISHED, as that replace would have done; it is not left unmanaged.
    const left = leftByInterruptedReplace(ctx, recorded);
    const destructive = left.length > 0 || !neverFinished(live);
    // A destructive replace's delete: prevent_destroy forbids it, as it forbids any replace. Nor is a definition
    // whose new parsers FAILED twice (apply counts them in `failed`) tried again by itself.
    if (destructive && isPrevented(ctx, address, desired)) return undefined;
    if (retriedEnough(ctx, address, failed, definitionOf(desired))) return undefined;
    return replaceParser(
      desired,
      recorded.id,
      [
        `${neverFinished(live) ? `no version of ${recorded.id} ever finished` : `no version of ${recorded.id} that scrapeform saw finished (its latest is version ${live.version}: one made outside scrapeform may have, and is deleted with it)`}${live.error ? ` (${live.error})` : ''}: created again${left.length > 0 ? `; the interrupted replace's ${left.join(', ')} ${left.length === 1 ? 'is' : 'are'} deleted with it` : ''}`,
      ],
      destructive,
      [`new parser id (replaces ${recorded.id})`],
      tried === null ? undefined : replacedParser(tried, desired, true),
      left,
    );
  }

  // Values never seen (import) take the manifest's where that is no change to send, and are recorded when the
  // user confirms them (--accept-unknown): never a replace because of them.
  const accepting = ctx.acceptUnknown.includes(address);
  const resolved = resolveUnknowns(base, marked, desired, accepting);
  const known = resolved.base;
  const wanted = definitionOf(desired);
  const urlsChanged = !sameExampleUrls(known.urls, wanted.urls);
  const paramsChanged = descriptionsKnown && !sameScraperParams(known.scraperParams, wanted.scraperParams);
  if (urlsChanged || paramsChanged) {
    // Nor a replace whose new parser FAILED twice with this definition: each try is a new parser.
    if (isPrevented(ctx, address, desired) || retriedEnough(ctx, address, failed, wanted)) return undefined;
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

/**
 * Live parsers that share a managed parser's name but that state does not manage (a create whose answer was lost
 * before intents were recorded, or one made outside scrapeform) are shown, never hidden: scrapeform leaves them
 * alone, so without this they would cost credits unseen.
 */
function reportNameSharers(ctx: Context, address: string, names: readonly (string | undefined)[]): void {
  const sharers = [...new Set(names)].flatMap((name) =>
    name === undefined ? [] : unmanagedParsersNamed(ctx.index, ctx.managed, name),
  );
  for (const p of sharers) {
    ctx.drift.push({
      address,
      kind: 'Parser',
      message: `live parser ${p.id} ("${p.name}", version ${p.version}, ${p.status}) has this parser's name but is not managed by scrapeform (an interrupted apply may have created it); it is left alone: delete it, or import it under another name`,
    });
  }
}

/**
 * Who made a version state did not record: outside scrapeform, or perhaps by a PATCH whose answer was lost (its
 * intent is in state, and a version that is not FINISHED shows no fields to tell by: recover-intents.ts).
 */
function madeBy(recorded: ParserState, version: number, kind: 'working' | 'failed'): string {
  if (recorded.patching === undefined || version !== expectedPatchVersion(recorded))
    return 'outside scrapeform';
  return `by a PATCH whose answer was lost, or outside scrapeform (${kind === 'working' ? 'its fields show which once it is FINISHED' : 'a FAILED version shows no fields to tell which'})`;
}
