import type { FieldChange } from '../plan/diff-fields.js';
import { sameExampleUrls } from '../plan/example-urls.js';
import type { ParserReplace, ProjectCreate, ProjectUpdate, ResourceChange } from '../plan/model.js';
import { isPlaceholderDescription } from '../model/vocabulary.js';
import type { ParserDefinition } from '../state/model.js';
import { diffValues } from './diff-values.js';
import { diffInputEntries, inputEntries, INPUT_ENTRIES_SHOWN } from './diff-input-entries.js';
import { printable, printableJson, quoted } from './escape-text.js';
import { byCodeUnit } from '../code-unit-order.js';

/** `+` added, `-` removed, `~` changed, `→` renamed, ` ` shown for context (unchanged). */
export type DetailSign = '+' | '-' | '~' | '→' | ' ';

/**
 * One line of what a change does to the values, with no colour and no layout: the human and the Markdown plans
 * both render these, so they carry the same facts. Text is printable (escape-text.ts); Markdown escapes on top.
 */
export interface DetailLine {
  sign: DetailSign;
  text: string;
  /** 1 for a line that belongs to the one above it (an entry of an input list). */
  depth: 0 | 1;
}

/**
 * Every value a change declares or changes, old -> new where there is an old one: a create's whole definition, a
 * replace against the parser it replaces, a parser update's fields, a project update's keys (nested values leaf by
 * leaf, input lists entry by entry up to INPUT_ENTRIES_SHOWN each way).
 */
export function detailChange(change: ResourceChange): DetailLine[] {
  if (change.kind === 'Project') {
    if (change.action === 'create') return projectCreateLines(change);
    if (change.action === 'update') return projectUpdateLines(change);
    return change.field_changes.map((fc) => fieldLine(fc));
  }
  if (change.action === 'create')
    return [...parserLines(change.definition), ...change.field_changes.map((fc) => fieldLine(fc))];
  if (change.action === 'replace' && !change.finishing) return parserReplaceLines(change);
  return change.field_changes.map((fc) => fieldLine(fc));
}

const line = (sign: DetailSign, text: string, depth: 0 | 1 = 0): DetailLine => ({ sign, text, depth });

/**
 * A parser's own settings as a create sends them. scraper_params only when some are set: as Terraform shows only
 * the attributes set, `{}` on every create is noise to read past (a replace shows params it takes away, `-> {}`).
 */
function parserLines(definition: ParserDefinition): DetailLine[] {
  const params =
    Object.keys(definition.scraperParams).length > 0
      ? [line('+', `scraper_params: ${showValue(definition.scraperParams)}`)]
      : [];
  return [line('+', `urls: ${showValue(definition.urls)}`), ...params];
}

/**
 * A replace against the parser that goes: urls and scraper_params old -> new, and the fields that differ. A plan
 * without the old parser (read back from a file saved before the plan format carried it) shows the new one as a
 * create does.
 */
function parserReplaceLines(change: ParserReplace): DetailLine[] {
  const old = change.replaced;
  if (old === undefined)
    return [...parserLines(change.definition), ...change.field_changes.map((fc) => fieldLine(fc))];
  const now = change.definition;
  const urls =
    old.urls === undefined
      ? line('~', `urls: (not known) -> ${showValue(now.urls)}`)
      : sameExampleUrls(old.urls, now.urls)
        ? line(' ', `urls: ${showValue(now.urls)} (unchanged)`)
        : line('~', `urls: ${showValue(old.urls)} -> ${showValue(now.urls)}`);
  const params =
    old.scraperParams === undefined
      ? line('~', `scraper_params: (not returned by the service) -> ${showValue(now.scraperParams)}`)
      : JSON.stringify(sortedParams(old.scraperParams)) === JSON.stringify(sortedParams(now.scraperParams))
        ? line(' ', `scraper_params: ${showValue(now.scraperParams)} (unchanged)`)
        : line('~', `scraper_params: ${showValue(old.scraperParams)} -> ${showValue(now.scraperParams)}`);
  const unchanged =
    old.unchanged.length > 0
      ? [line(' ', `fields unchanged: ${old.unchanged.map((n) => printable(n)).join(', ')}`)]
      : [];
  return [urls, params, ...old.field_changes.map((fc) => fieldLine(fc, true)), ...unchanged];
}

function sortedParams(params: object): [string, unknown][] {
  return Object.entries(params).sort(([a], [b]) => byCodeUnit(a, b));
}

/** A new project: every key it is created with, nested values leaf by leaf, its inputs listed. */
function projectCreateLines(change: ProjectCreate): DetailLine[] {
  const lines: DetailLine[] = [];
  for (const [key, value] of Object.entries(change.definition)) {
    const entries = key === 'projectInput' ? inputEntries(value) : undefined;
    if (entries !== undefined) lines.push(...inputCreateLines(entries));
    else lines.push(...leafLines(key, value));
    if (key === 'schedulingEnabled' && change.scheduledAt !== undefined)
      lines.push(line('+', `scheduledAt: ${showValue(change.scheduledAt)}`));
  }
  return lines;
}

function leafLines(path: string, value: unknown): DetailLine[] {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0)
    return Object.entries(value).flatMap(([k, v]) => leafLines(`${path}.${k}`, v));
  return [line('+', `${printable(path)}: ${showValue(value)}`)];
}

/** The entries sent whole: a create's, or an update's when the service's own are unknown (`~`, with why). */
function inputCreateLines(entries: readonly string[], unknown = false): DetailLine[] {
  const n = entries.length;
  const shown = entries.slice(0, INPUT_ENTRIES_SHOWN).map((e) => line('+', printable(e), 1));
  const more = n > INPUT_ENTRIES_SHOWN ? [line(' ', `… and ${n - INPUT_ENTRIES_SHOWN} more`, 1)] : [];
  const count = `${n} ${n === 1 ? 'entry' : 'entries'}`;
  const head = unknown
    ? line(
        '~',
        `inputs: ${count} sent (the service's entries are unknown: its answer left them out or gave no list)`,
      )
    : line('+', `inputs: ${count}`);
  return [head, ...shown, ...more];
}

/**
 * A project update key by key, old -> new. Without the old values (a plan file saved before they were part of the
 * format) each key shows its new value, and an input list its summary.
 */
function projectUpdateLines(change: ProjectUpdate): DetailLine[] {
  return Object.entries(change.changed).flatMap(([key, after]): DetailLine[] => {
    const before = change.before?.[key];
    const afterEntries = key === 'projectInput' ? inputEntries(after) : undefined;
    if (afterEntries !== undefined) {
      // Unknown is not empty: "+N −0 entries" would claim the service holds none of them.
      if (change.before !== undefined && before === undefined) return inputCreateLines(afterEntries, true);
      const beforeEntries = change.before === undefined ? undefined : (inputEntries(before) ?? []);
      if (beforeEntries !== undefined) return inputUpdateLines(beforeEntries, afterEntries);
      if (change.input_summary !== undefined)
        return [line('~', `inputs: ${printable(change.input_summary)}`)];
    }
    if (change.before === undefined) return [line('~', `${printable(key)}: ${showValue(after)}`)];
    return diffValues(key, before, after).map((vc) => {
      const path = printable(vc.path);
      switch (vc.change) {
        case 'add':
          return line('+', `${path}: ${showValue(vc.after)}`);
        case 'remove':
          return line('-', `${path}: ${showValue(vc.before)}`);
        case 'modify':
          return line('~', `${path}: ${showValue(vc.before)} -> ${showValue(vc.after)}`);
      }
    });
  });
}

function inputUpdateLines(before: readonly string[], after: readonly string[]): DetailLine[] {
  const d = diffInputEntries(before, after);
  const more = [
    d.moreAdded > 0 ? `${d.moreAdded} more added` : '',
    d.moreRemoved > 0 ? `${d.moreRemoved} more removed` : '',
  ].filter((p) => p !== '');
  return [
    line('~', `inputs: +${d.addedCount} −${d.removedCount} entries (${after.length} in all)`),
    ...d.added.map((e) => line('+', printable(e), 1)),
    ...d.removed.map((e) => line('-', printable(e), 1)),
    ...(more.length > 0 ? [line(' ', `… and ${more.join(', ')}`, 1)] : []),
  ];
}

/**
 * One field of a parser: added with its whole definition, removed, renamed, or modified old -> new. In a replace
 * (`replacing`) a rename is no PATCH of its own: the new parser is made whole, generation included.
 */
function fieldLine(fc: FieldChange, replacing = false): DetailLine {
  const note = fc.note !== undefined ? ` (${printable(fc.note)})` : '';
  const field = printable(fc.field);
  switch (fc.change) {
    case 'add':
      return line('+', `${field}${describe(fc.after)}`);
    case 'remove':
      return line('-', `${field}${note}`);
    case 'rename':
      return line(
        '→',
        `renamed ${printable(fc.from ?? '?')} -> ${field} (${replacing ? 'in the new parser' : 'free, immediate'})${note}`,
      );
    case 'modify': {
      const parts: string[] = [];
      const before = fc.before;
      const after = fc.after;
      if (before !== undefined && after !== undefined) {
        // Import's placeholder stands for a description the service never returned: not an old value to approve.
        if (before.description !== after.description)
          parts.push(
            `description ${isPlaceholderDescription(before.description) ? '(never seen)' : quoted(before.description)} -> ${quoted(after.description)}`,
          );
        if (before.type !== after.type)
          parts.push(`type ${before.type ?? '(none)'} -> ${after.type ?? '(none)'}`);
        if (before.selector !== after.selector)
          parts.push(`selector ${optional(before.selector)} -> ${optional(after.selector)}`);
      }
      // Adopted (the old definition was never seen) or reasserted unchanged: what is sent.
      if (parts.length === 0 && after !== undefined) parts.push(`description ${quoted(after.description)}`);
      return line('~', `${field}: ${parts.join(', ')}${note}`);
    }
  }
}

/** A value as JSON on one line, whole: never cut (a reviewer approves every character of it). */
function showValue(value: unknown): string {
  return printableJson(value) ?? '(none)';
}

function optional(text: string | undefined): string {
  return text === undefined ? '(none)' : printable(text);
}

function describe(definition: FieldChange['after']): string {
  if (definition === undefined) return '';
  const extras = [
    definition.type,
    definition.selector !== undefined ? `selector ${printable(definition.selector)}` : undefined,
  ].filter((x) => x !== undefined);
  return `${extras.length > 0 ? ` (${extras.join(', ')})` : ''}: ${quoted(definition.description)}`;
}
