import { Document, isAlias, isCollection, isMap, isScalar, isSeq, YAMLMap } from 'yaml';
import type { Node, Pair, Scalar, YAMLSeq } from 'yaml';
import { blockText, flowText, LINE_WIDTH } from './node-text.js';
import { flowPadding, indentStep, seqOffset } from './file-layout.js';
import { columnOf, lineEnd, nestedBy, pairEnd, scalarText } from './text-places.js';

/** One document of a file as read, and what the edits made of it (a copy: `doc.clone()`), or null when removed. */
export interface DocumentEdit {
  before: Document;
  after: Document | null;
}

/**
 * The text of a file, and how far in from its key it writes the items of a block list under a key (0: at the key's
 * column); undefined when it writes none, and a list written anew is nested as a map would be.
 */
interface Source {
  text: string;
  seqOffset: number | undefined;
}

/** Where a value is: the column of the key it is the value of, and how far the file nests a line at that level. */
interface Level {
  parent: number;
  step: number;
  /** The value is in a flow map (`{a: 1}`): what replaces it is written in flow style too. */
  flow: boolean;
}

/** A piece of the text from `start` to `end` replaced by `text`. */
interface Patch {
  start: number;
  end: number;
  text: string;
}

/**
 * The file's text with only what the edits changed written anew: a renamed key, a scalar set to a new value, a
 * pair removed (a flow map left empty is written `{}`), a pair added at the end of a block map or after the last
 * item of a flow map, a key's scalar replaced by a map or list, a document removed. Every other byte stays as
 * written: the whole document written in the library's layout turned `[x]` into `[ x ]`, spread a flow map holding
 * a string on several lines one item a line and re-indented a file indented by four, lines nobody edited in the
 * user's diff. Undefined when an edit is of another shape (pairs added to a flow map all of whose items are removed,
 * a scalar of several lines replaced by a collection): the caller then writes the library's layout. The caller
 * checks that the text reads back as the edited documents.
 */
export function patchedText(text: string, edits: readonly DocumentEdit[]): string | undefined {
  const patches: Patch[] = [];
  for (const { before, after } of edits) {
    const range = before.range;
    if (range === undefined) return undefined;
    if (after === null) patches.push({ start: range[0], end: range[2], text: '' });
    else {
      const source = { text, seqOffset: seqOffset(text, before.contents) };
      if (!diffNode(source, before.contents, after.contents, patches)) return undefined;
    }
  }
  patches.sort((a, b) => b.start - a.start);
  let out = text;
  let limit = Number.POSITIVE_INFINITY;
  for (const patch of patches) {
    // Two patches over the same text: the edits are not of the shapes this writes.
    if (patch.end > limit) return undefined;
    out = out.slice(0, patch.start) + patch.text + out.slice(patch.end);
    limit = patch.start;
  }
  return out;
}

/**
 * Adds the patches that turn `before` (as read) into `after` (its edited copy); false when it cannot. `level` says
 * where `before` is, when it is the value of a key.
 */
function diffNode(source: Source, before: unknown, after: unknown, patches: Patch[], level?: Level): boolean {
  if (before === after) return true;
  // A value set anew (setIn: a project key's live map or list) is written where the one read was.
  if (isCollection(before) && (isCollection(after) || isScalar(after)) && after.range == null)
    return replaced(source, before, after, patches, level);
  if (isScalar(before) && isCollection(after) && after.range == null)
    return scalarReplaced(source, before, after, patches, level);
  if (isScalar(before) && isScalar(after)) {
    // A scalar the edits did not change keeps its source token (edited() drops it).
    if (after.srcToken !== undefined) return true;
    const written = scalarText(after);
    if (written === undefined || before.range === undefined || before.range === null) return false;
    patches.push({ start: before.range[0], end: before.range[1], text: written });
    return true;
  }
  if (isAlias(before) && isAlias(after)) return before.source === after.source;
  if (isSeq(before) && isSeq(after)) {
    if (before.items.length !== after.items.length) return false;
    return before.items.every((item, i) => diffNode(source, item, after.items[i], patches));
  }
  if (isMap(before) && isMap(after)) return diffMap(source, before, after, patches, level?.parent);
  return false;
}

function diffMap(
  source: Source,
  before: YAMLMap,
  after: YAMLMap,
  patches: Patch[],
  parent: number | undefined,
): boolean {
  const { text } = source;
  const step = indentStep(text, before, parent);
  // Pairs are matched by where their key was read: the copy keeps each node's range, a new pair has none.
  const at = (pair: Pair): number | undefined => (pair.key as Node | null)?.range?.[0];
  const kept = new Set<Pair>();
  const added: Pair[] = [];
  for (const pair of after.items) {
    const start = at(pair);
    const read = start === undefined ? undefined : before.items.find((p) => at(p) === start);
    if (read === undefined) {
      added.push(pair);
      continue;
    }
    kept.add(read);
    if (!diffNode(source, read.key, pair.key, patches)) return false;
    const level = { parent: columnOf(text, at(read)) ?? 0, step, flow: before.flow === true };
    if (!diffNode(source, read.value, pair.value, patches, level)) return false;
  }
  // Every item of a flow map removed: no comma is left to take with the last one, so the map is written `{}`.
  if (before.flow === true && before.items.length > 0 && after.items.length === 0 && before.range != null) {
    patches.push({ start: before.range[0], end: before.range[1], text: '{}' });
    return true;
  }
  for (const pair of before.items) {
    if (kept.has(pair)) continue;
    const removed = removal(text, before, pair);
    if (removed === undefined) return false;
    patches.push(removed);
  }
  if (added.length === 0) return true;
  if (before.flow === true) return addedToFlow(text, before, kept, added, patches);
  const last = before.items.at(-1);
  if (last === undefined) return false;
  const key = last.key as Node | null;
  if (key?.range === undefined || key.range === null) return false;
  const column = columnOf(text, key.range[0]) ?? 0;
  const block = new YAMLMap();
  block.items.push(...added);
  // A blank line inside a string of several lines stays blank: it was dropped, and the text no longer read back.
  const lines = blockText(block, step, source.seqOffset ?? step)
    .replace(/\n$/, '')
    .split('\n');
  const end = lineEnd(text, pairEnd(last));
  if (end === undefined) return false;
  patches.push({
    start: end,
    end,
    text: lines.map((l) => (l === '' ? '\n' : `${' '.repeat(column)}${l}\n`)).join(''),
  });
  return true;
}

/**
 * Pairs added to a flow map, written after its last item kept: on that item's line (`{a: 1, b: 2}`), or on a line of
 * their own indented as it when it starts its line (one item a line), after its comment if one ends that line; `{}`
 * takes them between its braces. Spaces inside the braces as the map has them (`{ a: 1 }`).
 */
function addedToFlow(
  text: string,
  map: YAMLMap,
  kept: ReadonlySet<Pair>,
  added: readonly Pair[],
  patches: Patch[],
): boolean {
  const range = map.range;
  if (range == null) return false;
  const padding = /^\{[ \t]/.test(text.slice(range[0]));
  const pairs: string[] = [];
  for (const pair of added) {
    const one = new YAMLMap();
    one.flow = true;
    one.items.push(pair);
    const written = new Document(one)
      .toString({ lineWidth: 0, flowCollectionPadding: padding })
      .replace(/\n$/, '');
    const open = padding ? '{ ' : '{';
    const close = padding ? ' }' : '}';
    if (written.includes('\n') || !written.startsWith(open) || !written.endsWith(close)) return false;
    pairs.push(written.slice(open.length, written.length - close.length));
  }
  if (map.items.length === 0) {
    if (!/^\{\s*\}$/.test(text.slice(range[0], range[1]))) return false;
    patches.push({
      start: range[0],
      end: range[1],
      text: padding ? `{ ${pairs.join(', ')} }` : `{${pairs.join(', ')}}`,
    });
    return true;
  }
  const last = map.items.filter((p) => kept.has(p)).at(-1);
  const start = (last?.key as Node | null | undefined)?.range?.[0];
  const valueEnd = last === undefined ? undefined : pairEnd(last);
  if (start === undefined || valueEnd === undefined) return false;
  // Written right after the last item, not after a comma that follows it: a removed item after it takes that comma.
  const comma = /^[ \t]*,/.exec(text.slice(valueEnd));
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const indent = text.slice(lineStart, start);
  if (indent.trim() !== '') {
    patches.push({ start: valueEnd, end: valueEnd, text: `, ${pairs.join(', ')}` });
    return true;
  }
  const end = lineEnd(text, comma === null ? valueEnd : valueEnd + comma[0].length);
  const lines = pairs.map((p) => `${indent}${p}`).join(',\n');
  // More follows on the line (the closing braces): the pairs go before it, each on a line of its own.
  if (end === undefined) {
    patches.push({ start: valueEnd, end: valueEnd, text: `,\n${lines}` });
    return true;
  }
  // A comment ends the line: the pairs go on the lines after it, the last with a comma when the item had one.
  if (comma === null) patches.push({ start: valueEnd, end: valueEnd, text: ',' });
  patches.push({ start: end, end, text: `${lines}${comma === null ? '' : ','}\n` });
  return true;
}

/**
 * A collection read replaced by a new node: in a flow collection's place in flow style, spaced as it was, on one
 * line when that fits in the line width (flowText); in a block one's place as a block indented where it was, its
 * lists as the file writes them (blockText); undefined when it does not fit there.
 */
function replaced(
  source: Source,
  before: YAMLMap | YAMLSeq,
  after: Node,
  patches: Patch[],
  level: Level | undefined,
): boolean {
  const { text } = source;
  const range = before.range;
  if (range == null) return false;
  const copy = after.clone();
  if (before.flow === true) {
    const written = isScalar(copy)
      ? scalarText(copy)
      : flowInPlace(text, range, after, /^[{[][ \t]/.test(text.slice(range[0])), level?.step ?? 2);
    if (written === undefined) return false;
    patches.push({ start: range[0], end: range[1], text: written });
    return true;
  }
  const end = lineEnd(text, range[1]);
  if (!isCollection(copy) || copy.items.length === 0 || end === undefined) return false;
  const column = columnOf(text, range[0]) ?? 0;
  const step = nestedBy(column, level?.parent);
  const lines = blockText(copy, step, source.seqOffset ?? step)
    .replace(/\n$/, '')
    .split('\n');
  const written = lines.map((l, i) => (i === 0 || l === '' ? l : `${' '.repeat(column)}${l}`)).join('\n');
  patches.push({ start: range[0], end, text: `${written}\n` });
  return true;
}

/**
 * A key's scalar replaced by a map or list (`webhookOutput: null` given the live webhook): in a block map, a block on
 * the lines under the key, nested as the file nests that level, its lists as the file writes them (blockText), with
 * the comment of the key's line left on it; in a flow map, or when empty, in flow style in the scalar's place. False
 * for a scalar that is not a key's value on one line with only a comment after it.
 */
function scalarReplaced(
  source: Source,
  before: Scalar,
  after: YAMLMap | YAMLSeq,
  patches: Patch[],
  level: Level | undefined,
): boolean {
  const { text } = source;
  const range = before.range;
  if (range == null || level === undefined || text.slice(range[0], range[1]).trimEnd().includes('\n'))
    return false;
  if (level.flow || after.items.length === 0) {
    patches.push({
      start: range[0],
      end: range[1],
      text: flowInPlace(text, range, after, flowPadding(text), level.step),
    });
    return true;
  }
  const lineStart = text.lastIndexOf('\n', range[0] - 1) + 1;
  const end = lineEnd(text, range[1]);
  if (end === undefined) return false;
  const column = level.parent + (isSeq(after) ? (source.seqOffset ?? level.step) : level.step);
  const lines = blockText(after.clone() as Node, level.step, source.seqOffset ?? level.step)
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => (l === '' ? '' : `${' '.repeat(column)}${l}`));
  // The scalar goes with the spaces after it, and those before it unless a comment follows: that stays on the line.
  const trailing = /^[ \t]*/.exec(text.slice(range[1]))?.[0].length ?? 0;
  const comment = text.slice(range[1], end).trim() !== '';
  const spaces = comment ? 0 : (/[ \t]*$/.exec(text.slice(lineStart, range[0]))?.[0].length ?? 0);
  patches.push({ start: range[0] - spaces, end: range[1] + trailing, text: '' });
  const newline = end === text.length && !text.endsWith('\n') ? '\n' : '';
  patches.push({ start: end, end, text: `${newline}${lines.join('\n')}\n` });
  return true;
}

/**
 * `node` in flow style in the place of the text `range` spans (flowText): what stays before and after it on its line
 * counts against the line width, and the lines past the first are nested under that line's indentation.
 */
function flowInPlace(
  text: string,
  range: readonly [number, number, ...number[]],
  node: Node,
  padding: boolean,
  step: number,
): string {
  const lineStart = text.lastIndexOf('\n', range[0] - 1) + 1;
  const newline = text.indexOf('\n', range[1]);
  const rest = text.slice(range[1], newline === -1 ? text.length : newline);
  return flowText(node, {
    padding,
    step,
    indent: /^[ ]*/.exec(text.slice(lineStart))?.[0].length ?? 0,
    room: LINE_WIDTH - (range[0] - lineStart) - rest.length,
  });
}

/**
 * The text a removed pair took: in a block map its lines, with the comment lines right above it (its own, as the
 * library drops them with it); in a flow map the item and a comma beside it, other items kept on their lines.
 */
function removal(text: string, map: YAMLMap, pair: Pair): Patch | undefined {
  const key = pair.key as Node | null;
  const start = key?.range?.[0];
  const valueEnd = pairEnd(pair);
  if (start === undefined || valueEnd === undefined) return undefined;
  const lineStart = (at: number): number => text.lastIndexOf('\n', at - 1) + 1;
  if (map.flow !== true) {
    let from = lineStart(start);
    const end = lineEnd(text, valueEnd);
    if (text.slice(from, start).trim() !== '' || end === undefined) return undefined;
    if (key?.commentBefore != null) {
      while (
        from > 0 &&
        text
          .slice(lineStart(from - 1), from)
          .trim()
          .startsWith('#')
      )
        from = lineStart(from - 1);
    }
    return { start: from, end, text: '' };
  }
  const comma = /^\s*,/.exec(text.slice(valueEnd));
  if (comma !== null) {
    const end = valueEnd + comma[0].length;
    const rest = /^[ \t]*(\n|$)/.exec(text.slice(end));
    const spaces = /[ \t]*$/.exec(text.slice(0, start))?.[0].length ?? 0;
    // Alone on its line: the line goes; else the item, its comma and the spaces before it.
    if (rest !== null && lineStart(start) === start - spaces)
      return { start: start - spaces, end: end + rest[0].length, text: '' };
    if (rest !== null) return { start: start - spaces, end, text: '' };
    return { start, end: end + (/^[ \t]*/.exec(text.slice(end))?.[0].length ?? 0), text: '' };
  }
  const before = /,\s*$/.exec(text.slice(0, start));
  return before === null ? undefined : { start: before.index, end: valueEnd, text: '' };
}
