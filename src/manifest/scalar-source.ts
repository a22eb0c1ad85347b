import { isScalar, visit } from 'yaml';
import type { Document, Scalar, ScalarTag } from 'yaml';

/** A scalar's text as written, which SOURCE_TAG writes back in place of its value. */
class SourceText {
  constructor(
    readonly text: string,
    readonly block: boolean,
  ) {}
}

/**
 * Writes a scalar as it was written, indented where the document puts it now: the yaml library writes a value in
 * its own form, so a string written on two lines was joined (`"Title\n  two"` became `"Title two"`), a folded
 * block's lines too, `0x1F` became `0x1f` and `"\u00e9"` became `"é"`. Parse with `{ keepSourceTokens: true,
 * customTags: [SOURCE_TAG] }`, then keepScalarSource before writing.
 */
export const SOURCE_TAG: ScalarTag = {
  tag: 'tag:scrapeform,2026:source',
  default: true,
  identify: (value) => value instanceof SourceText,
  resolve: (value) => value,
  stringify: (item, ctx, onComment, onChompKeep) => {
    const { text, block } = (item as Scalar).value as SourceText;
    const lines = text.split('\n');
    if (block) {
      // As the library writes them: a comment on the header line, and the lines kept at the end (`|+`).
      const { comment } = item as Scalar;
      if ((lines[0] ?? '').includes('+')) onChompKeep?.();
      if (comment !== undefined && comment !== null) {
        lines[0] = `${lines[0] ?? ''} ${ctx.options.commentString(comment.replace(/ ?[\r\n]+/g, ' '))}`;
        onComment?.();
      }
      return lines.map((line, i) => (i === 0 || line === '' ? line : `${ctx.indent}${line}`)).join('\n');
    }
    if (lines.length === 1) return text;
    // A flow scalar's line breaks fold whatever the indentation of the lines after them (more than the parent's).
    return lines
      .map((line, i) => (i === 0 ? line : line.trim() === '' ? '' : `${ctx.indent}${line.trimStart()}`))
      .join('\n');
  },
};

/**
 * Gives each scalar of a document the text it was written with (SourceText), so that writing the document keeps it.
 * The document is only good for writing after that: its scalars no longer hold their values. Left to the library:
 * a block scalar with an indentation indicator (`|2`), a scalar with a tag written on it, and empty values.
 */
export function keepScalarSource(doc: Document): void {
  visit(doc, {
    Scalar: (_, node) => {
      const token = node.srcToken;
      // A tag written on it (`!!binary`) is written by that tag, from the value.
      if (token === undefined || !isScalar(node) || node.tag !== undefined) return;
      if (token.type === 'block-scalar') {
        const headerToken = token.props.find((p) => p.type === 'block-scalar-header');
        const header = headerToken !== undefined && 'source' in headerToken ? headerToken.source : '';
        if (/[1-9]/.test(header)) return;
        const lines = token.source.split('\n');
        // The empty lines at the end are the value's with keep chomping (`|+`), where the last one ends the block.
        if (header.includes('+')) lines.pop();
        else while (lines.length > 0 && (lines.at(-1) ?? '').trim() === '') lines.pop();
        const first = lines.find((l) => l.trim() !== '');
        if (first === undefined) return;
        const indent = first.length - first.trimStart().length;
        const content = lines.map((l) => (l.length <= indent ? '' : l.slice(indent)));
        node.value = new SourceText([header, ...content].join('\n'), true);
      } else if (
        (token.type === 'scalar' ||
          token.type === 'single-quoted-scalar' ||
          token.type === 'double-quoted-scalar') &&
        token.source !== ''
      ) {
        node.value = new SourceText(token.source, false);
      }
    },
  });
}
