import { failureReason, parserStatusKind } from '../api/parser-status.js';
import { REDACTED } from '../api/redact.js';
import { CREDITS_PER_GENERATION, PLACEHOLDER_DESCRIPTION } from '../model/vocabulary.js';
import { fieldOperationsBody, parserPath, PARSERS_PATH } from '../model/wire.js';
import type { FieldOperations } from '../model/wire.js';
import type { ParserState } from '../state/model.js';
import { diffFields, parentOf } from './diff-fields.js';
import { describeChange, FREE } from './drift-report.js';
import type { DriftChange, ObjectDrift } from './drift-report.js';
import { outOfBandRenames, reconcileLiveFields, topMost } from './live-fields.js';
import type { LiveSnapshot } from './model.js';
import type { LiveIndex } from './plan-context.js';
import { detailsLag, laggingVersion } from './lagging-version.js';
import { stillGenerating } from './plan-parser-generation.js';
import { unknownAfterDrift } from './unknown-values.js';

/**
 * The versions a parser's state explains: the one recorded, one scrapeform made and has not seen finish, one that
 * FAILED. Any other latest version was made outside scrapeform.
 */
export function knownVersions(recorded: ParserState): number[] {
  return [recorded.version, recorded.pending?.version, recorded.failed?.version].filter(
    (v): v is number => v !== null && v !== undefined,
  );
}

/**
 * What drift is reconciled against once the live latest version moved past `pending` (apply --no-wait, a wait that
 * timed out, a killed run, a recovered create or PATCH): that version, with the definition scrapeform sent for it, as
 * apply records it once it finishes. plan and `drift` both read it. Otherwise the recorded version. A create's pending
 * definition holds the urls and scraper_params sent, so an edit by hand is never read as their change (a replace).
 */
export function driftBaseline(recorded: ParserState, liveVersion: number): ParserState {
  const { pending } = recorded;
  if (pending === undefined || liveVersion <= pending.version) return recorded;
  return { ...recorded, version: pending.version, definition: pending.definition };
}

export function parserDrift(
  address: string,
  recorded: ParserState,
  live: LiveSnapshot,
  index: LiveIndex,
  warnings: string[],
): ObjectDrift | undefined {
  // A replace under way is scrapeform's own change in flight: plan and apply finish it.
  if (recorded.replacing !== undefined) return undefined;
  const common = { address, kind: 'Parser' as const, name: recorded.name, id: recorded.id };
  const summary = index.parserById.get(recorded.id);
  if (summary === undefined) {
    const definition = recorded.definition ?? recorded.pending?.definition;
    return {
      ...common,
      drift: 'deleted',
      message: `parser ${recorded.id} was deleted outside scrapeform`,
      state_version: recorded.version,
      changes: [],
      revert: {
        calls: 1,
        regenerations: 1,
        credits: CREDITS_PER_GENERATION,
        requests: [
          {
            method: 'POST',
            path: PARSERS_PATH,
            ...(definition !== undefined ? { body: { name: recorded.name, urls: definition.urls } } : {}),
          },
        ],
        note: 'created again under a new id, from the definition state records',
      },
      accept: {
        ...FREE,
        possible: true,
        placeholders: [],
        note: 'dropped from state; its manifest document is removed',
      },
      accepted: null,
    };
  }
  if (knownVersions(recorded).includes(summary.version)) return undefined;
  // A version below one state saw, or details below the version the list shows: an answer lagging behind (plan
  // holds such a parser back too: lagging-version.ts), not a version made outside scrapeform.
  const details = live.details[recorded.id];
  const lag = laggingVersion(recorded, summary.version) ?? detailsLag(summary, details);
  if (lag !== undefined) {
    warnings.push(
      `${address}: ${lag.story}; not drift: run drift again once the service shows version ${lag.awaited} again`,
    );
    return undefined;
  }
  const versions = { state_version: recorded.version, live_version: summary.version };
  // Only FAILED fails and only FINISHED is done (issue 13): a version in any other status, GENERATING or one
  // scrapeform does not know, has no fields to read yet. Read as done, its empty fields were every field removed:
  // a revert priced at a regeneration, and an accept that takes every field out of state and the manifest.
  const listedKind = parserStatusKind(summary.status);
  const detailsKind = details === undefined ? undefined : parserStatusKind(details.status);
  if (details === undefined || detailsKind === 'working' || listedKind === 'working') {
    if (details === undefined && listedKind !== 'working') {
      warnings.push(`${address}: the details of version ${summary.version} were not read`);
    }
    return {
      ...common,
      ...versions,
      drift: 'generating',
      message: `version ${summary.version} was made outside scrapeform and is ${stillGenerating(detailsKind === 'working' && details !== undefined ? details.status : summary.status)}`,
      changes: [],
      revert: { ...FREE, requests: [], note: 'run drift again once it finishes to see what it changed' },
      accept: { ...FREE, possible: false, placeholders: [], note: 'wait until it finishes' },
    };
  }
  if (detailsKind === 'failed' || listedKind === 'failed') {
    const error = failureReason(details.error ?? summary.error);
    return {
      ...common,
      ...versions,
      drift: 'failed',
      message: `version ${summary.version} was made outside scrapeform and FAILED: ${error}`,
      changes: [],
      revert: {
        ...FREE,
        requests: [],
        note: `plans keep building on version ${String(recorded.version)}; readers of the latest version get the failure until the next change`,
      },
      accept: { ...FREE, possible: true, placeholders: [], note: 'state records the failure' },
      accepted: { ...recorded, failed: { version: summary.version, error } },
    };
  }
  // Past a version scrapeform made and has not seen finish, what it sent with that version is the baseline.
  const baseline = driftBaseline(recorded, summary.version);
  if (baseline.definition === null || baseline.version === null) return undefined;
  const recordedFields = baseline.definition.fields;
  const renames = outOfBandRenames(recordedFields, live.previous?.[recorded.id], details);
  const liveNames = new Set(details.fields.map((f) => f.name));
  const renamedFrom = new Set(renames.values());
  const changes: DriftChange[] = [];
  for (const [to, from] of renames) {
    if (!renames.has(parentOf(to))) changes.push({ change: 'rename', from, to });
  }
  for (const name of topMost(recordedFields.map((f) => f.name))) {
    if (!liveNames.has(name) && !renamedFrom.has(name)) changes.push({ change: 'remove', field: name });
  }
  const recordedNames = new Set(recordedFields.map((f) => f.name));
  for (const name of topMost(details.fields.map((f) => f.name).filter((n) => !recordedNames.has(n)))) {
    if (renames.has(name)) continue;
    const field = details.fields.find((f) => f.name === name);
    changes.push({ change: 'add', field: name, parent: field?.type === 'array' });
  }
  // What going back sends: from the live fields (known definitions carried over) to the recorded ones.
  const base = reconcileLiveFields(recordedFields, details, renames);
  const back = [...renames]
    .filter(([to]) => !renames.has(parentOf(to)))
    .map(([to, from]) => ({ from: to, to: from }));
  const diff = diffFields(base, recordedFields, back, { descriptionsKnown: true });
  const accepted = reconcileLiveFields(recordedFields, details, renames, PLACEHOLDER_DESCRIPTION);
  const placeholders = accepted
    .filter((f) => f.description === PLACEHOLDER_DESCRIPTION && !recordedNames.has(f.name))
    .map((f) => f.name);
  const { pending: _pending, failed: _failed, unknown: _unknown, ...kept } = recorded;
  // Fields added by hand were never seen beyond their names; marks of renamed fields follow them.
  const unknown = unknownAfterDrift(
    recorded.unknown,
    [...renames].map(([to, from]) => ({ from, to })),
    accepted,
    placeholders,
  );
  const acceptedState: ParserState = {
    ...kept,
    version: details.version,
    definition: { ...baseline.definition, fields: accepted },
    ...(unknown !== undefined ? { unknown } : {}),
  };
  if (changes.length === 0) {
    return {
      ...common,
      ...versions,
      drift: 'version',
      message: `version moved from ${baseline.version} to ${details.version} outside scrapeform with the same field names; descriptions or selectors may have changed (the service does not return them)`,
      changes,
      revert: {
        ...FREE,
        requests: [],
        note: `what changed cannot be seen; apply --reassert ${address} sends every declared definition once (1 regeneration)`,
      },
      accept: { ...FREE, possible: true, placeholders: [], note: `state records version ${details.version}` },
      accepted: acceptedState,
    };
  }
  // A field name the service holds with the API key in it is read as *** (transport.ts, withoutKey): accepted, the
  // manifest and state would say ***, the next plan would match the redacted live name, and the key would stay.
  const keyed =
    details.keyRedacted === true || summary.keyRedacted === true
      ? changes.flatMap((c) => {
          const name = c.change === 'rename' ? c.to : c.change === 'add' ? c.field : '';
          return name.includes(REDACTED) ? [name] : [];
        })
      : [];
  return {
    ...common,
    ...versions,
    drift: 'fields',
    message: `version moved from ${baseline.version} to ${details.version} outside scrapeform: ${changes.map(describeChange).join('; ')}`,
    changes,
    revert: {
      calls: diff.requests.length,
      regenerations: diff.regenerates ? 1 : 0,
      credits: diff.regenerates ? CREDITS_PER_GENERATION : 0,
      requests: diff.requests.map((ops: FieldOperations, i) => ({
        method: 'PATCH',
        path: parserPath(recorded.id, details.version + i),
        body: fieldOperationsBody(ops),
      })),
    },
    accept:
      keyed.length > 0
        ? {
            ...FREE,
            possible: false,
            placeholders: [],
            note: `field ${keyed.join(', ')} ${keyed.length === 1 ? 'holds' : 'hold'} the API key (shown as ${REDACTED}), which scrapeform never writes to manifests or state; take the key out of the field's name in the service, or revert with apply`,
          }
        : {
            ...FREE,
            possible: true,
            placeholders,
            ...(placeholders.length > 0
              ? {
                  note: 'the service does not return descriptions: new fields get a placeholder validate warns about',
                }
              : {}),
          },
    ...(keyed.length > 0 ? {} : { accepted: acceptedState }),
  };
}
