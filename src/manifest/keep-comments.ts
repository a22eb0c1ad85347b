import { isCollection, isMap, isNode, isScalar, isSeq } from 'yaml';
import type { Node, Pair } from 'yaml';

/**
 * Gives a block list or map set anew (`drift --accept` writing a project key's live value) the comments of the one
 * read on the lines it writes again: a list item of the same value, a key kept (the comments above it and those of
 * its value, nested ones too), a key's value unchanged. A line that goes, or whose value changes, takes its comment
 * with it: it spoke of what was there. The comments of `read` itself (above it, after it) are outside the text
 * written anew and stay where they are; a flow collection read holds none on its one line.
 */
export function keepComments(read: unknown, written: unknown): void {
  if (!isCollection(read) || read.flow === true) return;
  if (isMap(read) && isMap(written)) {
    for (const pair of written.items) {
      const kept = read.items.find((p) => sameScalar(p.key, pair.key));
      if (kept !== undefined) keepPair(kept, pair);
    }
  } else if (isSeq(read) && isSeq(written)) {
    const taken = new Set<unknown>();
    for (const [i, item] of written.items.entries()) {
      // An item is matched by its value; a list or map in a list by its place.
      const kept = isScalar(item)
        ? read.items.find((r) => !taken.has(r) && sameScalar(r, item))
        : read.items[i];
      if (kept === undefined || taken.has(kept)) continue;
      taken.add(kept);
      keepNode(kept, item);
    }
  }
}

function keepPair(read: Pair, written: Pair): void {
  if (isNode(read.key) && isNode(written.key)) copyComments(read.key, written.key);
  keepNode(read.value, written.value);
}

function keepNode(read: unknown, written: unknown): void {
  if (isScalar(read) && isScalar(written)) {
    if (read.value === written.value) copyComments(read, written);
    return;
  }
  if (isCollection(read) && read.flow !== true && isCollection(written) && isMap(read) === isMap(written)) {
    copyComments(read, written);
    keepComments(read, written);
  }
}

function copyComments(read: Node, written: Node): void {
  if (read.commentBefore != null) written.commentBefore = read.commentBefore;
  if (read.comment != null) written.comment = read.comment;
  if (read.spaceBefore === true) written.spaceBefore = true;
}

function sameScalar(a: unknown, b: unknown): boolean {
  return isScalar(a) && isScalar(b) && a.value === b.value;
}
