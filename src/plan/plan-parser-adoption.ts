import type { LiveParserDetails, LiveParserSummary } from '../api/live.js';
import { parserStatusKind } from '../api/parser-status.js';
import type { DesiredParser } from '../model/desired.js';
import { diffFields } from './diff-fields.js';
import { detailsBehind } from './lagging-version.js';
import { sameExampleUrls, unshownExampleUrls } from './example-urls.js';
import { fieldFromLive } from './live-fields.js';
import type { ParserAdopt, ReplacedParser, ResourceChange } from './model.js';
import { definitionOf } from './parser-definition.js';
import { change, isPrevented } from './plan-context.js';
import type { Context } from './plan-context.js';
import { stillGenerating, STILL_GENERATING_ENDING } from './plan-parser-generation.js';
import { neverFinished, replaceParser, replacedParser } from './plan-parser-replace.js';
import { updateParser } from './plan-parser-update.js';

export function adoptParser(
  ctx: Context,
  address: string,
  desired: DesiredParser,
  live: LiveParserSummary,
  details: LiveParserDetails,
): ResourceChange | undefined {
  if (detailsBehind(ctx.warnings, address, live, details)) return undefined;
  const reasons = [`adopted: the live parser ${live.id} has this name`];
  ctx.warnings.push(
    `${address}: adopted ${live.id}; its descriptions, selectors and scraper_params are not returned by the service, so only field names and which fields have fields under them are compared (--reassert ${address} sends every declared definition once)`,
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
      `${address}: the live parser ${live.id} with this name is ${stillGenerating(details.status)}${STILL_GENERATING_ENDING} finishes to adopt it`,
    );
    return undefined;
  }
  // Adopted by a replace, the live parser is deleted: scrapeform never saw its history, and it was made by someone
  // else, whose consumers may call a version that finished (`GET /parsers/{id}/{version}`, parse with a version).
  // Only a parser whose one version FAILED has nothing to lose; any other delete needs approval and is what
  // prevent_destroy forbids.
  const idChanges = [`parser id changes (${live.id} is deleted once the new one is FINISHED)`];
  if (kind === 'failed') {
    const destructive = !neverFinished(details);
    if (destructive && isPrevented(ctx, address, desired)) return undefined;
    return replaceParser(
      desired,
      live.id,
      [
        ...reasons,
        `its latest version is ${details.status}${details.error ? `: ${details.error}` : ''}; a new parser replaces it${destructive ? ` (version ${details.version}: earlier versions may have finished, and are deleted with it)` : ' (its only version)'}`,
      ],
      destructive,
      idChanges,
      seen(),
    );
  }
  // Pages the answer leaves out are an absence, not a difference: a replace costs 30,000 credits and deletes the
  // live parser, so it is never planned from them; the adoption goes on and says what was not seen.
  const unshown = liveUrls.length > 0 ? unshownExampleUrls(liveUrls, desired.urls) : undefined;
  if (unshown !== undefined) {
    ctx.warnings.push(
      `${address}: the details of ${live.id} give example results for ${liveUrls.length} of the ${desired.urls.length} urls the manifest declares, not for ${unshown.join(', ')}; pages an answer leaves out are not read as a difference, so no replace is planned (if ${live.id} was made without them, delete it, and the next plan creates the parser with them)`,
    );
  } else if (liveUrls.length > 0 && !sameExampleUrls(liveUrls, desired.urls)) {
    if (isPrevented(ctx, address, desired)) return undefined;
    return replaceParser(
      desired,
      live.id,
      [...reasons, "urls differ from the live parser's example pages: a new parser replaces it"],
      true,
      idChanges,
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
