import type { DesiredField, DesiredParser, DesiredRename } from '../model/desired.js';
import { isPlaceholderDescription, PLACEHOLDER_DESCRIPTION } from '../model/vocabulary.js';
import type { FieldOperations } from '../model/wire.js';
import type { ParserDefinition, ParserState, UnknownValues } from '../state/model.js';
import { sameScraperParams } from './parser-spelling.js';
import { stable } from './plan-context.js';

/*
 * A parser written by import has values nobody has seen: the service returns no scraper params, descriptions,
 * selectors or input types (seed 1, "Parser details"), so state records them empty and marks them unknown. A
 * manifest value for one of them is not a change by itself: the user confirms it is what the parser already has
 * (`--accept-unknown ADDR`, state only), or a field value is sent with modify_fields like any edit. A value never
 * seen is never a reason to replace a parser.
 */

type FieldValue = 'description' | 'selector' | 'type';

const FIELD_VALUES: readonly { value: FieldValue; list: 'descriptions' | 'selectors' | 'types' }[] = [
  { value: 'description', list: 'descriptions' },
  { value: 'selector', list: 'selectors' },
  { value: 'type', list: 'types' },
];

export interface ResolvedUnknowns {
  /**
   * The definition to diff the manifest against: unknown values the manifest leaves undeclared, or that are
   * accepted, take the manifest's value, and so do unknown scraper params (never a replace). Unconfirmed field
   * values keep the recorded empty one, so the diff sends them.
   */
  base: ParserDefinition;
  /** What `--accept-unknown` records, for the plan to show: `scraper_params: {...}`, `title.selector: "h1"`. */
  recorded: string[];
  /** Unknown values the manifest declares and nobody confirmed: `scraper_params`, `title.description`. */
  unconfirmed: string[];
  /** What stays unknown once the accepted values are recorded, by the recorded (base) field names. */
  remaining: UnknownValues | undefined;
}

/**
 * The values of a recorded parser that were never seen. A state written before import recorded them (no `unknown`
 * entry) still shows an imported parser by what import wrote: no scraper params, and only placeholder
 * descriptions; it is read as if every such value were marked.
 */
export function unknownOf(recorded: ParserState): UnknownValues | undefined {
  if (recorded.unknown !== undefined || recorded.descriptionsKnown) return recorded.unknown;
  const definition = recorded.definition;
  if (definition === null || Object.keys(definition.scraperParams).length > 0) return undefined;
  if (!definition.fields.every((f) => f.description === PLACEHOLDER_DESCRIPTION)) return undefined;
  const names = definition.fields.map((f) => f.name);
  return prune({
    scraperParams: true,
    descriptions: names,
    selectors: definition.fields.filter((f) => f.selector === undefined).map((f) => f.name),
    types: definition.fields.filter((f) => f.type === undefined).map((f) => f.name),
  });
}

/** Fills the unknown values of `base` from the manifest as described above; `accept` is `--accept-unknown`. */
export function resolveUnknowns(
  base: ParserDefinition,
  unknown: UnknownValues | undefined,
  desired: DesiredParser,
  accept: boolean,
): ResolvedUnknowns {
  if (unknown === undefined) return { base, recorded: [], unconfirmed: [], remaining: undefined };
  const recorded: string[] = [];
  const unconfirmed: string[] = [];
  const remaining: UnknownValues = {};
  let scraperParams = base.scraperParams;
  if (unknown.scraperParams === true) {
    scraperParams = desired.scraperParams;
    if (accept) recorded.push(`scraper_params: ${JSON.stringify(desired.scraperParams)}`);
    else {
      remaining.scraperParams = true;
      // Params that read as none (`render: false`: parser-spelling.ts) have nothing to confirm, as none have.
      if (!sameScraperParams(desired.scraperParams, {})) unconfirmed.push('scraper_params');
    }
  }
  const wanted = new Map(desired.fields.map((f) => [f.name, f]));
  const fields = base.fields.map((field) => {
    const target = wanted.get(renamedName(field.name, desired.renames));
    let filled: DesiredField = field;
    for (const { value, list } of FIELD_VALUES) {
      if (!(unknown[list] ?? []).includes(field.name)) continue;
      const declared = target === undefined ? undefined : declaredValue(target, value);
      if (declared === undefined) {
        (remaining[list] ??= []).push(field.name);
        // An undeclared description is the placeholder on both sides: no change to send.
        if (value === 'description' && target !== undefined)
          filled = { ...filled, description: target.description };
        continue;
      }
      if (accept) {
        filled = withValue(filled, value, declared);
        recorded.push(`${field.name}.${value}: ${JSON.stringify(declared)}`);
      } else {
        (remaining[list] ??= []).push(field.name);
        if (declared !== fieldValue(field, value)) unconfirmed.push(`${field.name}.${value}`);
      }
    }
    return filled;
  });
  return {
    base: { ...base, scraperParams, fields },
    recorded,
    unconfirmed,
    remaining: prune(remaining),
  };
}

/**
 * What stays unknown after a field diff is applied: a field sent with modify_fields or add_fields is known as
 * sent; the others keep their marks under their new names (renames move children with their parent).
 */
export function unknownAfter(
  unknown: UnknownValues | undefined,
  renames: readonly DesiredRename[],
  waves: readonly FieldOperations[],
  fields: readonly DesiredField[],
): UnknownValues | undefined {
  if (unknown === undefined) return undefined;
  const sent = new Set(
    waves.flatMap((w) => [...(w.modify_fields ?? []), ...(w.add_fields ?? [])]).map((f) => f.name),
  );
  const kept = new Set(fields.map((f) => f.name).filter((n) => !sent.has(n)));
  const move = (names: readonly string[] | undefined): string[] =>
    (names ?? []).map((n) => renamedName(n, renames)).filter((n) => kept.has(n));
  return prune({
    ...(unknown.scraperParams === true ? { scraperParams: true } : {}),
    descriptions: move(unknown.descriptions),
    selectors: move(unknown.selectors),
    types: move(unknown.types),
  });
}

/**
 * What state does not know once drift is accepted (`drift --accept`): marks follow fields renamed by hand, and a
 * field added by hand is known by its name only (its description, selector and input type were never seen).
 */
export function unknownAfterDrift(
  unknown: UnknownValues | undefined,
  renames: readonly DesiredRename[],
  fields: readonly DesiredField[],
  added: readonly string[],
): UnknownValues | undefined {
  const moved = unknownAfter(unknown, renames, [], fields) ?? {};
  const leaves = added.filter((n) => fields.find((f) => f.name === n)?.type !== 'array');
  return prune({
    ...moved,
    descriptions: [...(moved.descriptions ?? []), ...added],
    selectors: [...(moved.selectors ?? []), ...added],
    types: [...(moved.types ?? []), ...leaves],
  });
}

/**
 * Warnings about field values sent to a parser whose values were never seen: modify_fields replaces a field's whole
 * definition, so a field sent without a selector may lose the one it has, and the placeholder import wrote would
 * become the field's description.
 */
export function unknownFieldWarnings(
  address: string,
  unknown: UnknownValues | undefined,
  waves: readonly FieldOperations[],
): string[] {
  if (unknown === undefined) return [];
  const modified = waves.flatMap((w) => w.modify_fields ?? []);
  const selectorUnseen = modified.filter(
    (f) => f.selector === undefined && (unknown.selectors ?? []).includes(f.name),
  );
  const placeholders = modified.filter(
    (f) => isPlaceholderDescription(f.description) && (unknown.descriptions ?? []).includes(f.name),
  );
  const warnings: string[] = [];
  if (selectorUnseen.length > 0) {
    const names = selectorUnseen.map((f) => f.name);
    warnings.push(
      `${address}: ${names.join(', ')}: modify_fields sends ${names.length === 1 ? 'this field' : 'these fields'} without a selector, and the selector the live parser may have was never seen (imported): the service may drop it. To keep it, declare the selector in the manifest (${names.map((n) => `fields.${n.split('.').join('.fields.')}.selector`).join(', ')})`,
    );
  }
  if (placeholders.length > 0) {
    warnings.push(
      `${address}: ${placeholders.map((f) => f.name).join(', ')} would be sent with the placeholder description written by import (the live description was never seen): describe ${placeholders.length === 1 ? 'it' : 'them'} in the manifest first`,
    );
  }
  return warnings;
}

/** What the plan says about unknown values the manifest declares and nobody confirmed. */
export function unconfirmedWarning(address: string, unconfirmed: readonly string[]): string | undefined {
  if (unconfirmed.length === 0) return undefined;
  const params = unconfirmed.includes('scraper_params');
  const fields = unconfirmed.filter((u) => u !== 'scraper_params');
  const what = [
    params ? 'scraper_params are not compared (a value never seen is no reason to replace the parser)' : '',
    fields.length > 0 ? 'the field values are sent with modify_fields (a regeneration)' : '',
  ].filter((w) => w !== '');
  return `${address}: the manifest declares values that were never seen (imported): ${unconfirmed.join(', ')}; ${what.join('; ')}. If they are already live, confirm with --accept-unknown ${address}: state records them, no call is made`;
}

/** Every unknown value of a parser, named for people: `scraper_params`, `title.selector`. */
export function describeUnknowns(unknown: UnknownValues | undefined): string[] {
  if (unknown === undefined) return [];
  return [
    ...(unknown.scraperParams === true ? ['scraper_params'] : []),
    ...FIELD_VALUES.flatMap(({ value, list }) => (unknown[list] ?? []).map((n) => `${n}.${value}`)),
  ];
}

/** The field `name` (as recorded) is called in the manifest: a rename hint on it or on a parent moves it. */
function renamedName(name: string, renames: readonly DesiredRename[]): string {
  const hint = [...renames]
    .filter((r) => name === r.from || name.startsWith(`${r.from}.`))
    .sort((a, b) => b.from.length - a.from.length)[0];
  return hint === undefined ? name : hint.to + name.slice(hint.from.length);
}

/** The manifest's value, or undefined when it declares none (the placeholder description is no value). */
function declaredValue(field: DesiredField, value: FieldValue): string | undefined {
  if (value === 'description')
    return isPlaceholderDescription(field.description) ? undefined : field.description;
  return field[value];
}

function fieldValue(field: DesiredField, value: FieldValue): string | undefined {
  return field[value];
}

function withValue(field: DesiredField, value: FieldValue, declared: string): DesiredField {
  if (value === 'type') return { ...field, type: declared as DesiredField['type'] };
  return { ...field, [value]: declared };
}

function prune(unknown: UnknownValues): UnknownValues | undefined {
  const out: UnknownValues = {};
  if (unknown.scraperParams === true) out.scraperParams = true;
  for (const { list } of FIELD_VALUES) {
    const names = unknown[list];
    if (names !== undefined && names.length > 0) out[list] = [...new Set(names)];
  }
  return stable(out) === '{}' ? undefined : out;
}

/** The unknown values in one line, the first few named: `scraper_params, title.selector and 4 more`. */
export function summariseUnknowns(unknown: UnknownValues, max = 5): string {
  const all = describeUnknowns(unknown);
  return all.length <= max ? all.join(', ') : `${all.slice(0, max).join(', ')} and ${all.length - max} more`;
}
