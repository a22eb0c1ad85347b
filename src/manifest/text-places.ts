import { Document } from 'yaml';
import type { Node, Pair, Scalar } from 'yaml';

// Where things are in a manifest's text, for the patches that write only what an edit changed (patch-manifest.ts).

/** The column of an offset in the text (0 for the first). */
export function columnOf(text: string, at: number | undefined): number | undefined {
  return at === undefined ? undefined : at - (text.lastIndexOf('\n', at - 1) + 1);
}

/** How far a line at `column` is nested under its parent key's column: two when that does not show it. */
export function nestedBy(column: number | undefined, parent: number | undefined): number {
  return parent !== undefined && column !== undefined && column > parent ? column - parent : 2;
}

/** Where a pair's value (or key, when it has none) ends, trailing blank lines left out. */
export function pairEnd(pair: Pair): number | undefined {
  const node = ((pair.value as Node | null) ?? (pair.key as Node | null)) as Node | null;
  return node?.range?.[1];
}

/** The offset just past the line on which `at` falls, its comment included; undefined when more follows there. */
export function lineEnd(text: string, at: number | undefined): number | undefined {
  if (at === undefined) return undefined;
  // A block collection's range ends after its last line break, and after blank lines following it.
  let end = at;
  while (end > 0 && /\s/.test(text.charAt(end - 1))) end--;
  const newline = text.indexOf('\n', end);
  const rest = text.slice(end, newline === -1 ? text.length : newline);
  if (rest.trim() !== '' && !rest.trimStart().startsWith('#')) return undefined;
  return newline === -1 ? text.length : newline + 1;
}

/** A scalar as the library writes it, when that is one line. */
export function scalarText(node: Scalar): string | undefined {
  // Its comments stay where they are written, outside the range replaced.
  const bare = node.clone() as Scalar;
  delete bare.comment;
  delete bare.commentBefore;
  bare.spaceBefore = false;
  const written = new Document(bare).toString({ lineWidth: 0 }).replace(/\n$/, '');
  return written.includes('\n') ? undefined : written;
}
