/** How a manifest file is written, apart from its YAML: a UTF-8 byte order mark, and CRLF or LF line endings. */
export interface LineEndings {
  mark: '\uFEFF' | '';
  crlf: boolean;
}

/**
 * A manifest's text split into how it is written and its body with LF endings and no byte order mark, which is
 * what a rewrite works on (`fmt`, `drift --accept`): the yaml library writes LF alone and drops the mark, and
 * places nodes as the loader does (it drops the mark too). A file whose lines end in both ways is written back
 * with the ending of its first line. In YAML a CRLF is a line break as LF is, in block scalars too: the meaning
 * is the same with either.
 */
export function readLineEndings(text: string): { endings: LineEndings; body: string } {
  const mark = text.startsWith('\uFEFF') ? '\uFEFF' : '';
  const crlf = /^[^\n]*\r\n/.test(text);
  const rest = text.slice(mark.length);
  // Every CRLF, whatever the first line ends with: one left in a file that starts with LF was written back inside a
  // scalar (fmt keeps each scalar's text), and the file still mixed both.
  return { endings: { mark, crlf }, body: rest.replace(/\r\n/g, '\n') };
}

/** A body rewritten with LF endings, written back as its file was (readLineEndings). */
export function writeLineEndings(endings: LineEndings, body: string): string {
  return `${endings.mark}${endings.crlf ? body.replace(/\n/g, '\r\n') : body}`;
}
