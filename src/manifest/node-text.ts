import { Document, isCollection, isNode, isSeq, LineCounter, parseDocument, visit } from 'yaml';
import type { Node } from 'yaml';

/**
 * The width past which a value written anew in flow style is spread one item a line: the yaml library's own
 * default `lineWidth`. `fmt` writes with `lineWidth: 0` (it never wraps a line the user wrote); a flow value
 * `drift --accept` writes is new text, and three page URLs on one line made a line of 230 columns.
 */
export const LINE_WIDTH = 80;

/** Below this the library folds nothing well (its `minContentWidth`): a line that short is left long. */
const MIN_WIDTH = 20;

/** Where a flow value is written: the spacing of the one read, the file's step, and the line around it. */
export interface FlowPlace {
  /** `{ a }` rather than `{a}`, as the collection read was written. */
  padding: boolean;
  /** How far the file nests a line at this level. */
  step: number;
  /** The indentation of the line the value starts on: the lines after it are nested from there. */
  indent: number;
  /** The columns left for it on its line (the line's width less what stays before and after it). */
  room: number;
}

/**
 * A collection written in flow style in a flow collection's place: on one line as the one read was spaced when it
 * fits in its room, else in the library's own layout past the line width (one item a line, a nested collection
 * that fits kept on its line), nested by the file's step under the line it starts on.
 */
export function flowText(node: Node, place: FlowPlace): string {
  const copy = node.clone();
  if (isCollection(copy)) copy.flow = true;
  const written = (lineWidth: number): string =>
    new Document(copy)
      .toString({ lineWidth, indent: place.step, flowCollectionPadding: place.padding })
      .replace(/\n$/, '');
  const one = written(0);
  if (!one.includes('\n') && one.length <= place.room) return one;
  // The library spreads a flow collection longer than its lineWidth: given the room left on this line, it spreads
  // this one, and those nested in it that would not fit.
  const lines = written(Math.max(place.room, MIN_WIDTH)).split('\n');
  return lines.map((l, i) => (i === 0 || l === '' ? l : `${' '.repeat(place.indent)}${l}`)).join('\n');
}

/**
 * A node written in block style by the library, nested by `step`, with the items of each list under a key
 * `seqOffset` columns in from it, as the file writes its lists: the library writes them `step` in (indentSeq) or
 * `step - 2` in, so a file nesting by four with its items at the key's column (`list:` then `- a`) had them two in.
 * The lines of each such list (its items and all nested in them) are moved as a whole, so what they hold reads the
 * same; when they cannot be (a line not indented that far), the library's text is returned (the caller checks that
 * what it writes reads back as the edit).
 */
export function blockText(node: Node, step: number, seqOffset: number): string {
  const written = new Document(node).toString({ lineWidth: 0, indent: step, indentSeq: true });
  const shift = step - seqOffset;
  if (shift === 0) return written;
  const lineCounter = new LineCounter();
  const read = parseDocument(written, { lineCounter });
  if (read.errors.length > 0) return written;
  const lines = written.split('\n');
  // Where an offset is: its line (0 for the first) and column, as the library counts them (1-based).
  const at = (offset: number): { line: number; column: number } => {
    const { line, col } = lineCounter.linePos(offset);
    return { line: line - 1, column: col - 1 };
  };
  const indentOf = (line: string): number => line.length - line.trimStart().length;
  const moved = lines.map(() => 0);
  visit(read, {
    Pair: (_, pair) => {
      const key = isNode(pair.key) ? pair.key.range?.[0] : undefined;
      const value = pair.value;
      if (key === undefined || !isSeq(value) || value.flow === true || value.range == null) return;
      const { line: keyLine, column } = at(key);
      if (at(value.range[0]).line === keyLine) return;
      // The value's lines: those after the key more indented than it (blank lines within it included).
      for (let i = keyLine + 1; i < lines.length; i++) {
        const line = lines[i] ?? '';
        if (line.trim() !== '' && indentOf(line) <= column) break;
        moved[i] = (moved[i] ?? 0) + shift;
      }
    },
  });
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    const by = moved[i] ?? 0;
    if (by === 0 || line === '') out.push(line);
    else if (by < 0) out.push(`${' '.repeat(-by)}${line}`);
    else if (line.trim() === '') out.push(line.slice(Math.min(by, line.length)));
    else if (indentOf(line) >= by) out.push(line.slice(by));
    else return written;
  }
  return out.join('\n');
}
