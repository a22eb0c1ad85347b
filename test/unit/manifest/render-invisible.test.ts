import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { tempProjects } from '../../helpers/temp-projects.js';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import { renderManifests } from '../../../src/manifest/render-manifests.js';

/** A folder with these files (name -> text), removed after its test. */
const project = tempProjects('scrapeform-render-invisible-');

/** The parsers the files (name -> text) declare, as loaded and as render writes them, and the folder they are in. */
async function rendered(files: Record<string, string>) {
  const dir = await project(files);
  const loaded = await loadManifests({ paths: [dir], env: {} });
  expect(loaded.diagnostics).toEqual([]);
  return { dir, text: renderManifests([{ objects: loaded.parsers }]), parsers: loaded.parsers };
}

// Written as escapes here so this file holds none of them raw.
const RLO = '\u202e';
const LRI = '\u2066';
const PDI = '\u2069';
const ZWSP = '\u200b';

/**
 * A bidirectional override or zero-width character that render printed raw showed a reviewer text other than the
 * value ("Trojan Source"): render writes it as a YAML escape inside double quotes, which reads back as the value.
 */
describe('render of bidirectional and zero-width characters', () => {
  it('writes them as escapes in double quotes, keys and the heading comment included, and reads back the same', async () => {
    const manifest = [
      'kind: Parser',
      `name: "books${ZWSP}"`,
      "urls: ['https://books.example/a.html']",
      'fields:',
      `  "ti${RLO}tle":`,
      `    description: "Price ${RLO}0.01 EUR${LRI}x${PDI}"`,
      '  notes:',
      `    description: "first line\\nsecond ${RLO}line"`,
      '',
    ].join('\n');
    const { dir, text } = await rendered({ 'a.yaml': manifest });
    expect(text).toBe(
      `# parser.books\\u200b from ${dir}/a.yaml:1:1\n\n` +
        'kind: Parser\n' +
        'name: "books\\u200b"\n' +
        'urls:\n' +
        '  - https://books.example/a.html\n' +
        'fields:\n' +
        '  "ti\\u202etle":\n' +
        '    description: "Price \\u202e0.01 EUR\\u2066x\\u2069"\n' +
        '  notes:\n' +
        '    description: "first line\\nsecond \\u202eline"\n',
    );
    expect(text).not.toMatch(/[\u200b\u202e\u2066\u2069]/);
    const [document] = parseAllDocuments(text);
    expect(document?.errors).toEqual([]);
    expect(document?.toJS()).toEqual({
      kind: 'Parser',
      name: `books${ZWSP}`,
      urls: ['https://books.example/a.html'],
      fields: {
        [`ti${RLO}tle`]: { description: `Price ${RLO}0.01 EUR${LRI}x${PDI}` },
        notes: { description: `first line\nsecond ${RLO}line` },
      },
    });
  });

  it('escapes them in a long description of several lines and in expected results, and loads back the same', async () => {
    const long = `A price as the page shows it, ${RLO}in euros\nand cents, never the list price`;
    const manifest = [
      'kind: Parser',
      'name: books',
      "urls: ['https://books.example/a.html']",
      'fields:',
      `  price: { description: ${JSON.stringify(long)} }`,
      'expect:',
      `  - { url: 'https://books.example/a.html', result: { price: "9${LRI}\u009b\u001b[2J" } }`,
      '',
    ].join('\n');
    const { text, parsers } = await rendered({ 'a.yaml': manifest });
    // eslint-disable-next-line no-control-regex -- no control character may come out raw
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e\u2066]/);
    expect(text).toContain('\\u202ein euros');
    expect(text).toContain('price: "9\\u2066\\u009b\\e[2J"');
    const again = await project({ 'rendered.yaml': text });
    const reloaded = await loadManifests({ paths: [again], env: {} });
    expect(reloaded.diagnostics).toEqual([]);
    expect(reloaded.parsers).toHaveLength(1);
    expect(reloaded.parsers[0]?.fields).toEqual(parsers[0]?.fields);
    expect(reloaded.parsers[0]?.expect).toEqual(parsers[0]?.expect);
    expect(reloaded.parsers[0]?.fields[0]?.description).toBe(long);
  });

  it('writes a control character of a file or folder name as an escape in the heading: one line, nothing raw', async () => {
    // A file name may hold any byte but / and NUL: ESC started a terminal sequence in the heading (and strict YAML
    // readers refuse the raw character), and a line break split the heading into lines of its own.
    const manifest = "kind: Parser\nname: books\nurls: ['https://books.example/a.html']\n";
    const { dir, text } = await rendered({
      'team\nkind: x/a.yaml': manifest,
      'b\r---\u001b[2Jc.yaml': manifest.replace('books', 'films'),
    });
    expect(text.split('\n').filter((line) => line.startsWith('#'))).toEqual([
      `# parser.films from ${dir}/b\\r---\\u001b[2Jc.yaml:1:1`,
      `# parser.books from ${dir}/team\\nkind: x/a.yaml:1:1`,
    ]);
    // eslint-disable-next-line no-control-regex -- no control character but the line breaks may come out raw
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    const documents = parseAllDocuments(text);
    expect(documents.map((d) => d.errors)).toEqual([[], []]);
    expect(documents.map((d) => d.toJS() as unknown)).toEqual([
      { kind: 'Parser', name: 'films', urls: ['https://books.example/a.html'] },
      { kind: 'Parser', name: 'books', urls: ['https://books.example/a.html'] },
    ]);
  });

  it('leaves text without them as it was', async () => {
    const { dir, text } = await rendered({
      'a.yaml':
        'kind: Parser\nname: books\nurls: [\'https://books.example/a.html\']\nfields:\n  title: { description: "Title\\nand more" }\n',
    });
    expect(text).toBe(
      `# parser.books from ${dir}/a.yaml:1:1\n\nkind: Parser\nname: books\nurls:\n  - https://books.example/a.html\nfields:\n  title:\n    description: |-\n      Title\n      and more\n`,
    );
  });
});
