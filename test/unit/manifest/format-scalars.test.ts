import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { formatManifestText } from '../../../src/manifest/format-manifest.js';

const values = (text: string): unknown[] => parseAllDocuments(text).map((d) => d.toJS());

/**
 * fmt changes key order and indentation only: the yaml library wrote each scalar its own way, so a string written on
 * two lines was joined (`"Title\n  two"` became `"Title two"`), a folded block's lines too, `0x1F` became `0x1f` and
 * an escape such as `\u00e9` was written as the character.
 */
describe('fmt keeps each scalar as written', () => {
  it('keeps line breaks, escapes and number forms while it sorts keys and indents by two spaces', () => {
    const text = `fields:
    title:
        selector: h1
        description: "Title
            two \\u00e9"
    body:
        description: >-
            folded
              more
            block

            end
    price:
        description: 'single
            quoted'
        type: number
    note:
        description: plain
            words
kind: Parser
name: books
urls:
    - https://books.example/a.html
expect:
    - result: { count: 0x1F }
      url: https://books.example/a.html
`;
    const formatted = formatManifestText(text);
    expect(formatted).toBe(`kind: Parser
name: books
urls:
  - https://books.example/a.html
fields:
  title:
    description: "Title
      two \\u00e9"
    selector: h1
  body:
    description: >-
      folded
        more
      block

      end
  price:
    description: 'single
      quoted'
    type: number
  note:
    description: plain
      words
expect:
  - url: https://books.example/a.html
    result: { count: 0x1F }
`);
    expect(values(formatted)).toEqual(values(text));
    expect(formatManifestText(formatted)).toBe(formatted);
  });

  it('leaves a formatted file with such scalars as it is', () => {
    const text = `kind: Parser\nname: "Books\n  shop"\nurls: [ https://books.example/a.html ]\nfields:\n  title:\n    description: >\n      The title\n      of the book\n  count: { description: "n \\u00e9", type: number }\n`;
    expect(formatManifestText(text)).toBe(text);
  });

  it('keeps a comment on a block header and the empty lines |+ keeps; an indentation indicator is left to the library', () => {
    const text = `fields:\n    a:\n        description: |2\n              indented\n            text\n    b:\n        description: >+ # kept +1\n            one\n            two\n\n\nkind: Parser\nname: b\nurls: [https://books.example/a.html]\n`;
    const formatted = formatManifestText(text);
    expect(formatted).toContain(
      'kind: Parser\nname: b\nurls: [ https://books.example/a.html ]\nfields:\n  a:\n',
    );
    expect(formatted).toContain('  b:\n    description: >+ # kept +1\n      one\n      two\n\n\n');
    expect(values(formatted)).toEqual(values(text));
    expect(formatManifestText(formatted)).toBe(formatted);
  });

  it('writes a scalar with a tag written on it from its value, as before (a binary one too)', () => {
    const text = `urls: [https://books.example/a.html]\nkind: Parser\nname: !!binary Ym9va3M=\nfields:\n  n: { description: !!str 0x1F }\n`;
    expect(formatManifestText(text)).toBe(
      `kind: Parser\nname: !!binary Ym9va3M=\nurls: [ https://books.example/a.html ]\nfields:\n  n: { description: !!str "0x1F" }\n`,
    );
  });
});

describe('formatManifestText: a flow map holding a string written on several lines', () => {
  // README: the string keeps its line breaks (only its lines are indented anew), and the flow collection holding it
  // is laid out one item a line; the values read back are the same.
  it('keeps the string as written, reindents its lines and lays the collection out one item a line', () => {
    const text = `kind: Parser\nname: books\nurls: [https://books.example/a.html]\nfields: { a: { description: "line one\n    line two", selector: h1 }, b: { description: 'plain' } }\n`;
    const formatted = formatManifestText(text);
    expect(formatted).toBe(
      `kind: Parser\nname: books\nurls: [ https://books.example/a.html ]\nfields:\n  {\n    a:\n      {\n        description: "line one\n          line two",\n        selector: h1\n      },\n    b: { description: 'plain' }\n  }\n`,
    );
    expect(values(formatted)).toEqual(values(text));
    expect(formatManifestText(formatted)).toBe(formatted);
  });
});

describe('formatManifestText: a file whose first line ends in LF and others in CRLF', () => {
  it('is written with LF throughout, inside a scalar written on two lines too', () => {
    const text = 'kind: Parser\nname: x\r\ndescription: Title\r\n  two\r\nurls: [https://a.example/]\r\n';
    const formatted = formatManifestText(text);
    expect(formatted).not.toContain('\r');
    expect(formatted).toBe(
      'kind: Parser\nname: x\nurls: [ https://a.example/ ]\ndescription: Title\n  two\n',
    );
  });
});
