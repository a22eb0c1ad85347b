import { describe, expect, it } from 'vitest';
import { editManifestText } from '../../../src/manifest/edit-manifest.js';
import type { ManifestEdit, TemplateText } from '../../../src/manifest/edit-manifest.js';

const PROJECT = `kind: Parser
name: books-\${var.edition} # one per environment
urls: [https://books.example/a.html]
fields:
  price: { description: Price, type: number }
---
kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: ['\${var.shop}/page-1.html'] }
scrapingInterval: \${var.interval} # shared by every environment
output_format: JSON
`;

const at = (line: number, edits: ManifestEdit[], kind: 'Parser' | 'Project' = 'Project') => ({
  kind,
  line,
  column: 1,
  edits,
});

/** What removing these fields of the Parser in `text` (its first line) writes: the edit `drift --accept` makes. */
const removing =
  (text: string) =>
  (...fields: string[]): string | null =>
    editManifestText('m.yaml', text, [
      at(
        1,
        fields.map((field): ManifestEdit => ({ edit: 'remove-field', field })),
        'Parser',
      ),
    ]).text;

describe('editManifestText', () => {
  it('finds a document by where it starts, not by its written name (which a reference makes)', () => {
    const edited = editManifestText('m.yaml', PROJECT, [
      at(1, [{ edit: 'rename-field', from: 'price', to: 'cost' }], 'Parser'),
    ]);
    expect(edited.refused).toEqual(new Map());
    expect(edited.text).toContain('  cost: { description: Price, type: number }');
    expect(edited.text).toContain('name: books-${var.edition} # one per environment');
  });

  it('an edit the document already shows (renamed or removed there) is done, and the file is kept byte for byte', () => {
    const done = PROJECT.replace(
      '  price: { description: Price, type: number }',
      '  cost: { description: Price, type: number }',
    );
    const edited = editManifestText('m.yaml', done, [
      at(
        1,
        [
          { edit: 'rename-field', from: 'price', to: 'cost' },
          { edit: 'remove-field', field: 'reviews' },
        ],
        'Parser',
      ),
    ]);
    expect(edited.refused).toEqual(new Map());
    expect(edited.text).toBe(done);
  });

  it("refuses a key written with a reference, with its place, and makes none of the object's edits", () => {
    const edited = editManifestText('m.yaml', PROJECT, [
      at(7, [
        { edit: 'set', key: 'output_format', value: 'CSV' },
        { edit: 'set', key: 'scrapingInterval', value: 'hourly' },
      ]),
    ]);
    expect(edited.refused.get(0)).toEqual([
      'scrapingInterval at m.yaml:11:19 is written with a reference (${var.interval}), shared by every environment or element that reads it; edit the variable (or the element) by hand, or revert with apply',
    ]);
    expect(edited.text).toBe(PROJECT);
  });

  it('refuses a list one of whose items holds a reference', () => {
    const edited = editManifestText('m.yaml', PROJECT, [
      at(7, [{ edit: 'set', key: 'projectInput', value: { type: 'list', list: ['https://b.example/2'] } }]),
    ]);
    expect(edited.refused.get(0)?.[0]).toContain('projectInput at m.yaml:10:36 is written with a reference');
    expect(edited.text).toBe(PROJECT);
  });

  it('overwrites a literal written $${ (no reference), and writes every live string escaped, nested too', () => {
    const text = `kind: Project\nname: n\nprojectType: urls\nprojectInput: { type: list, list: ['https://b.example/?q=$\${HOME}'] }\n`;
    const edited = editManifestText('m.yaml', text, [
      at(1, [
        { edit: 'set', key: 'projectInput', value: { type: 'list', list: ['https://b.example/?q=${USER}'] } },
        { edit: 'set', key: 'apiParams', value: { country_code: '${CC}' } },
        { edit: 'set', key: 'scrapingInterval', value: '${X}' },
      ]),
    ]);
    expect(edited.refused).toEqual(new Map());
    expect(edited.text).toContain('https://b.example/?q=$${USER}');
    expect(edited.text).toContain('country_code: $${CC}');
    expect(edited.text).toContain('scrapingInterval: $${X}');
    expect(edited.text).not.toMatch(/[^$]\$\{(USER|CC|X)\}/);
  });

  it('writes null for a key or a field a template supplies, and refuses to rename a field a template declares', () => {
    const template: TemplateText = {
      label: 'ProjectTemplate "nightly"',
      file: 't.yaml',
      text: `kind: ProjectTemplate\nname: nightly\nwebhookOutput: { url: 'https://h.example/' }\n`,
      line: 1,
      column: 1,
    };
    const own = `kind: Project\nname: p\nextends: nightly\nwebhookOutput: { url: 'https://h.example/' }\n`;
    const removed = editManifestText('m.yaml', own, [
      { ...at(1, [{ edit: 'set', key: 'webhookOutput', value: undefined }]), templates: [template] },
    ]);
    expect(removed.text).toBe(`kind: Project\nname: p\nextends: nightly\nwebhookOutput: null\n`);
    const product: TemplateText = {
      label: 'ParserTemplate "product"',
      file: 'p.yaml',
      text: `kind: ParserTemplate\nname: product\nfields:\n  price: { description: Price }\n`,
      line: 1,
      column: 1,
    };
    const parser = `kind: Parser\nname: books\nextends: product\nurls: [https://b.example/]\n`;
    const renamed = editManifestText('m.yaml', parser, [
      { ...at(1, [{ edit: 'rename-field', from: 'price', to: 'cost' }], 'Parser'), templates: [product] },
    ]);
    expect(renamed.refused.get(0)?.[0]).toContain(
      'rename price: declared by ParserTemplate "product" at p.yaml:4:10',
    );
    expect(renamed.text).toBe(parser);
    // Removing it is exact: a null drops the inherited field for this parser alone.
    const dropped = editManifestText('m.yaml', parser, [
      { ...at(1, [{ edit: 'remove-field', field: 'price' }], 'Parser'), templates: [product] },
    ]);
    expect(dropped.text).toContain(`extends: product\n`);
    expect(dropped.text).toMatch(/\nfields:\n {2}price: null\n$/);
  });
});

describe('editManifestText keeps how the file is written', () => {
  const crlf = (text: string): string => text.replace(/\n/g, '\r\n');
  const BOOKS =
    'kind: Parser\nname: books # the shop\nurls: [ https://books.example/a.html ]\nfields:\n  price: { description: Price, type: number }\n';
  const RENAMED = BOOKS.replace('  price:', '  cost:');
  const rename = [at(1, [{ edit: 'rename-field', from: 'price', to: 'cost' }], 'Parser')];

  it("keeps a file's CRLF line endings and UTF-8 byte order mark, and writes its new lines with CRLF too", () => {
    expect(editManifestText('m.yaml', crlf(BOOKS), rename).text).toBe(crlf(RENAMED));
    expect(editManifestText('m.yaml', `\uFEFF${BOOKS}`, rename).text).toBe(`\uFEFF${RENAMED}`);
    expect(editManifestText('m.yaml', `\uFEFF${crlf(BOOKS)}`, rename).text).toBe(`\uFEFF${crlf(RENAMED)}`);
    const added = editManifestText('m.yaml', crlf(BOOKS), [
      at(1, [{ edit: 'add-field', field: 'upc', value: { description: 'UPC' } }], 'Parser'),
    ]).text;
    expect(added).toBe(crlf(`${BOOKS}  upc:\n    description: UPC\n`));
  });

  it('finds the document of a template whose file starts with a byte order mark where the loader places it', () => {
    const template: TemplateText = {
      label: 'ProjectTemplate "nightly"',
      file: 't.yaml',
      text: `\uFEFFkind: ProjectTemplate\r\nname: nightly\r\nwebhookOutput: { url: 'https://h.example/' }\r\n`,
      line: 1,
      column: 1,
    };
    const own = `kind: Project\nname: p\nextends: nightly\n`;
    const removed = editManifestText('m.yaml', own, [
      { ...at(1, [{ edit: 'set', key: 'webhookOutput', value: undefined }]), templates: [template] },
    ]);
    expect(removed.refused).toEqual(new Map());
    expect(removed.text).toBe(`${own}webhookOutput: null\n`);
  });

  it('writes a file whose lines end in both ways with the ending of its first line, as fmt does', () => {
    expect(editManifestText('m.yaml', BOOKS.replace('\n', '\r\n'), rename).text).toBe(crlf(RENAMED));
  });
  // fmt keeps each scalar as written (scalar-source.ts); accept wrote the untouched ones in the library's form.
  const SCALARS = `kind: Parser
name: books # the shop
urls: [ https://books.example/a.html ]
scraper_params: { max: 0x1F }
fields:
  title:
    description: "Title
      two \\u00e9"
  body:
    description: >-
      folded
        more
      block
  price:
    description: 'single
      quoted'
    type: number
`;

  it('keeps each scalar it does not edit as written (line breaks, escapes, number forms), with LF or CRLF', () => {
    const removed = SCALARS.slice(0, SCALARS.indexOf('  price:'));
    const remove = [at(1, [{ edit: 'remove-field', field: 'price' }], 'Parser')];
    expect(removed).not.toBe(SCALARS);
    expect(editManifestText('m.yaml', SCALARS, remove).text).toBe(removed);
    expect(editManifestText('m.yaml', crlf(SCALARS), remove).text).toBe(crlf(removed));
  });

  it('writes the scalars it edits with their new values, and keeps the others as written', () => {
    const renamed = editManifestText('m.yaml', SCALARS, [
      at(1, [{ edit: 'rename-field', from: 'title', to: 'heading' }], 'Parser'),
    ]);
    expect(renamed.text).toBe(SCALARS.replace('  title:', '  heading:'));
    const project = `kind: Project\nname: nightly # kept\nscrapingInterval: "week\\x6Cy" # was\nretries: 0x1F\n`;
    const set = editManifestText('m.yaml', project, [
      at(1, [{ edit: 'set', key: 'scrapingInterval', value: 'daily' }]),
    ]);
    expect(set.text).toBe(project.replace('"week\\x6Cy"', '"daily"'));
  });

  it('keeps a flow map holding a string on several lines as written when it renames a field in it', () => {
    const text = `kind: Parser\nname: books\nurls: [https://books.example/a.html]\nfields: { a: { description: "line one\n    line two", selector: h1 }, price: { description: Price } }\n`;
    const edited = editManifestText('m.yaml', text, [
      at(1, [{ edit: 'rename-field', from: 'price', to: 'cost' }], 'Parser'),
    ]);
    expect(edited.refused).toEqual(new Map());
    expect(edited.text).toBe(text.replace('price:', 'cost:'));
  });
});

// accept wrote the whole edited document in the yaml library's layout: `[x]` became `[ x ]`, a flow map holding a
// string on several lines was spread one item a line, lines nobody edited changed in the user's diff.
describe('editManifestText changes only the text of what it edits', () => {
  const LAYOUT = `kind: Parser
name: books   # the shop
urls: [https://books.example/a.html, 'https://books.example/b.html']
scraper_params: {render: true, country_code: "us"}
fields:
    title:   {description: "Title\n      two", selector: h1}
    price:
        description: 'Price'   # in euros
        type: number
    tags: [a,b]
    stock: {description: Stock}
---
kind: Project
name: nightly # kept
scrapingInterval: "weekly"  # was
projectInput: {type: list, list: [https://books.example/a.html]}
`;
  const lines = (text: string | null): string[] => (text ?? '').split('\n');

  it('renames a field: only its key changes, every other line stays byte for byte', () => {
    const edited = editManifestText('m.yaml', LAYOUT, [
      at(1, [{ edit: 'rename-field', from: 'price', to: 'cost' }], 'Parser'),
    ]);
    expect(edited.refused).toEqual(new Map());
    expect(edited.text).toBe(LAYOUT.replace('    price:\n', '    cost:\n'));
    const changed = lines(edited.text).filter((line, i) => line !== lines(LAYOUT)[i]);
    expect(changed).toEqual(['    cost:']);
  });

  it('renames a field written in a flow map, and sets a project key, in place', () => {
    const edited = editManifestText('m.yaml', LAYOUT, [
      at(1, [{ edit: 'rename-field', from: 'stock', to: 'in_stock' }], 'Parser'),
      at(14, [{ edit: 'set', key: 'scrapingInterval', value: 'daily' }]),
    ]);
    expect(edited.refused).toEqual(new Map());
    expect(edited.text).toBe(
      LAYOUT.replace('    stock: {', '    in_stock: {').replace('"weekly"  # was', '"daily"  # was'),
    );
  });

  it('removes a field and adds one without touching the lines around them', () => {
    const edited = editManifestText('m.yaml', LAYOUT, [
      at(
        1,
        [
          { edit: 'remove-field', field: 'price' },
          { edit: 'add-field', field: 'upc', value: { description: 'UPC' } },
        ],
        'Parser',
      ),
    ]);
    expect(edited.refused).toEqual(new Map());
    expect(edited.text).toBe(
      LAYOUT.replace(
        "    price:\n        description: 'Price'   # in euros\n        type: number\n",
        '',
      ).replace(
        '    stock: {description: Stock}\n',
        '    stock: {description: Stock}\n    upc:\n        description: UPC\n',
      ),
    );
  });

  // The added lines were written with the library's two-space nesting inside a file indented by four, so one
  // field's lines mixed both indentations in the reviewed diff.
  it('indents the lines it adds or writes anew as the file indents at that level, nested ones too', () => {
    const text = `kind: Parser # the shop\nname: books\nurls: [x]\nfields:\n    title: {description: T}\n`;
    const added = editManifestText('m.yaml', text, [
      at(
        1,
        [
          {
            edit: 'add-field',
            field: 'reviews',
            value: { description: 'R', fields: { author: { description: 'A' } } },
          },
        ],
        'Parser',
      ),
    ]);
    expect(added.text).toBe(
      `${text}    reviews:\n        description: R\n        fields:\n            author:\n                description: A\n`,
    );
    // Where the siblings' own lines show the step (three here), that is the one followed.
    const three = `kind: Parser\nname: books\nurls: [x]\nfields:\n  title:\n     description: T\n`;
    const nested = editManifestText('m.yaml', three, [
      at(1, [{ edit: 'add-field', field: 'upc', value: { description: 'U' } }], 'Parser'),
    ]);
    expect(nested.text).toBe(`${three}  upc:\n     description: U\n`);
    const block =
      'kind: Project\nname: n\nprojectInput:\n    type: list\n    list:\n        - https://a.example/\n';
    const set = editManifestText('m.yaml', block, [
      at(1, [{ edit: 'set', key: 'projectInput', value: { type: 'list', list: ['https://b.example/'] } }]),
    ]);
    expect(set.text).toBe(block.replace('a.example', 'b.example'));
  });

  it('removes a field with the comment above it, and an item of a flow map with its comma, other lines kept', () => {
    const text = `kind: Parser\nname: books\nurls: [x]\nfields:\n  # about a\n  a:\n    description: A\n  # about b\n  b: {description: B}   # b!\n  c: {description: C, fields: {d: {description: D}, x: {description: X},\n    e: {description: E},\n    f: {description: F}}}\n\n# trailing\n`;
    const remove = removing(text);
    expect(remove('b')).toBe(text.replace('  # about b\n  b: {description: B}   # b!\n', ''));
    expect(remove('c.d')).toBe(text.replace('{d: {description: D}, x:', '{x:'));
    expect(remove('c.x')).toBe(text.replace(' x: {description: X},', ''));
    expect(remove('c.e')).toBe(text.replace('    e: {description: E},\n', ''));
    expect(remove('c.f')).toBe(text.replace(',\n    f: {description: F}}}', '}}'));
    expect(remove('c.d', 'c.f')).toBe(
      text.replace('{d: {description: D}, x:', '{x:').replace(',\n    f: {description: F}}}', '}}'),
    );
  });

  // Removing the last item of a flow map found no comma to take with it, and the whole document was written in the
  // library's layout: `[x]` became `[ x ]` and every flow map on the page was respaced.
  it('writes {} for a flow map all of whose items it removes, every other byte kept', () => {
    const text = `kind: Parser # the shop\nname: books\nurls: [x]\nfields:\n  c: {description: C, fields: {d: {description: D}}} # keep\n  e: {description: E}\n  g: {description: G, fields: {h: {description: H},\n    i: {description: I}}}\n`;
    const remove = removing(text);
    expect(remove('c.d')).toBe(text.replace('fields: {d: {description: D}}}', 'fields: {}}'));
    expect(remove('g.h', 'g.i')).toBe(
      text.replace('fields: {h: {description: H},\n    i: {description: I}}}', 'fields: {}}'),
    );
    const flat =
      'kind: Parser\nname: books\nurls: [x]\nfields: {a: {description: A}, b: {description: B}}   # all\n';
    const all = editManifestText('m.yaml', flat, [
      at(
        1,
        [
          { edit: 'remove-field', field: 'a' },
          { edit: 'remove-field', field: 'b' },
        ],
        'Parser',
      ),
    ]);
    expect(all.text).toBe(flat.replace('{a: {description: A}, b: {description: B}}', '{}'));
  });

  it('writes a project key set to a new list or map where the one read was, flow or block', () => {
    const list = editManifestText('m.yaml', LAYOUT, [
      at(14, [{ edit: 'set', key: 'projectInput', value: { type: 'list', list: ['https://b.example/'] } }]),
    ]);
    expect(list.text).toBe(
      LAYOUT.replace(
        'projectInput: {type: list, list: [https://books.example/a.html]}',
        'projectInput: {type: list, list: [https://b.example/]}',
      ),
    );
    const block =
      'kind: Project\nname: n\nwebhookOutput:\n    url: https://a.example/ # old\n\noutput_format: JSON\n';
    const hook = editManifestText('m.yaml', block, [
      at(1, [
        { edit: 'set', key: 'webhookOutput', value: { url: 'https://b.example/', webhookEncoding: 'json' } },
      ]),
    ]);
    expect(hook.text).toBe(
      'kind: Project\nname: n\nwebhookOutput:\n    url: https://b.example/\n    webhookEncoding: json\n\noutput_format: JSON\n',
    );
  });

  // A list written with its items at its key's column (`list:` then `- a`) was written anew in the library's style,
  // its items indented under the key: every item line changed in the diff, the new ones in another style.
  it("writes a list anew in the file's style when its items are at its key's column", () => {
    const text =
      'kind: Project # nightly\nname: n\nprojectInput:\n  type: list\n  list:\n  - https://a.example/\n  - https://c.example/ # c\noutput_format: JSON\nwebhookOutput:\n  url: https://h.example/\n';
    const set = editManifestText('m.yaml', text, [
      at(1, [
        {
          edit: 'set',
          key: 'projectInput',
          value: { type: 'list', list: ['https://b.example/', 'https://d.example/'] },
        },
      ]),
    ]);
    expect(set.refused).toEqual(new Map());
    expect(set.text).toBe(
      text.replace(
        '  - https://a.example/\n  - https://c.example/ # c\n',
        '  - https://b.example/\n  - https://d.example/\n',
      ),
    );
    // A map set anew with a list in it, in a file whose lists are written so.
    const hook = editManifestText('m.yaml', text, [
      at(1, [{ edit: 'set', key: 'webhookOutput', value: { url: 'https://h.example/', tags: ['a', 'b'] } }]),
    ]);
    expect(hook.text).toBe(`${text}  tags:\n  - a\n  - b\n`);
  });

  it('removes the document of a deleted object and keeps the other one as written', () => {
    const edited = editManifestText('m.yaml', LAYOUT, [at(14, [{ edit: 'remove-document' }])]);
    expect(edited.text).toBe(LAYOUT.slice(0, LAYOUT.indexOf('---\n')));
  });

  it("writes the library's layout when only changing the edited text would not read back as the edit, or cannot", () => {
    const text =
      'kind: Parser\nname: books # the shop\nurls: [https://books.example/a.html]\nfields: {stock: {description: Stock}}\n';
    const library = (fields: string): string =>
      `kind: Parser\nname: books # the shop\nurls: [ https://books.example/a.html ]\nfields: { ${fields} }\n`;
    // `{in, stock: …}` would read as two keys: the key is written quoted, in the library's layout.
    const renamed = editManifestText('m.yaml', text, [
      at(1, [{ edit: 'rename-field', from: 'stock', to: 'in, stock' }], 'Parser'),
    ]);
    expect(renamed.text).toBe(library('"in, stock": { description: Stock }'));
  });

  // A field added to a flow map wrote the whole document in the library's layout: `[x]` became `[ x ]`, every flow
  // map on the page was respaced and the user's layout lost, for one pair that fits before the closing brace.
  it('adds a field to a flow map after its last item, on its line or on a line of its own, every other byte kept', () => {
    const add = (text: string, field: string): string | null =>
      editManifestText('m.yaml', text, [
        at(
          1,
          [
            {
              edit: 'add-field',
              field,
              value: { description: (field.split('.').pop() ?? '').toUpperCase() },
            },
          ],
          'Parser',
        ),
      ]).text;
    const flat =
      'kind: Parser\nname: books # the shop\nurls: [https://books.example/a.html]\nfields: {stock: {description: Stock}}   # flow\n';
    expect(add(flat, 'upc')).toBe(
      flat.replace('{description: Stock}}', '{description: Stock}, upc: {description: UPC}}'),
    );
    // Written with spaces inside its braces: the new pair is too.
    const spaced = flat.replace('{stock: {description: Stock}}', '{ stock: { description: Stock } }');
    expect(add(spaced, 'upc')).toBe(
      spaced.replace('{ description: Stock } }', '{ description: Stock }, upc: { description: UPC } }'),
    );
    // One item a line: the new one gets a line of its own, indented as the last.
    const lines = `kind: Parser\nname: books\nurls: [x]\nfields:\n  c: {description: C, fields: {d: {description: D}, x: {description: X},\n    e: {description: E} # e!\n    }}\n  g: {description: G, fields: {}}\n`;
    expect(add(lines, 'c.f')).toBe(
      lines.replace(
        '    e: {description: E} # e!\n',
        '    e: {description: E}, # e!\n    f: {description: F}\n',
      ),
    );
    // The closing braces on the last item's line stay after the new one.
    const closed = lines.replace(' # e!\n    }}', '}}');
    expect(add(closed, 'c.f')).toBe(
      closed.replace('    e: {description: E}}}', '    e: {description: E},\n    f: {description: F}}}'),
    );
    expect(add(lines, 'g.h')).toBe(lines.replace('fields: {}}', 'fields: {h: {description: H}}}'));
  });
});
