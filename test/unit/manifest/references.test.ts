import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProjects } from '../../helpers/temp-projects.js';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import type { LoadedManifests } from '../../../src/manifest/load-manifests.js';
import { literalText } from '../../../src/manifest/interpolate.js';

/** A folder with these files (name -> text), removed after its test. */
const project = tempProjects('scrapeform-references-');

/** Each diagnostic as `file:line:col path: message`, files relative to the folder. */
function reported(loaded: LoadedManifests, dir: string): string[] {
  return loaded.diagnostics.map(
    (d) => `${path.relative(dir, d.file)}:${d.line}:${d.column} ${d.path}: ${d.message}`,
  );
}

const PARSER = `kind: Parser
name: books
urls: [https://books.example/a.html]
scraper_params:
  render: \${RENDER}
fields:
  title:
    description: Title
    selector: \${TITLE_SELECTOR:-@title}
`;

describe('a whole unquoted reference', () => {
  it.each(['*', '@handle', '`x', '%x', '"oops', '[a', 'a #b', '!!binary aGk=', 'a: b', '~', '[a, b]'])(
    'keeps the value %j as text when YAML cannot read it as a scalar, would cut it at a comment or tag it',
    async (value) => {
      const dir = await project({ 'a.yaml': PARSER });
      const loaded = await loadManifests({ paths: [dir], env: { RENDER: value } });
      expect(reported(loaded, dir)).toEqual([
        `a.yaml:5:11 scraper_params.render: expected a boolean, got "${value}"`,
      ]);
      expect(loaded.valid).toBe(false);
      expect(loaded.parsers).toEqual([]);
    },
  );

  it.each([
    ["'quoted'", '"quoted"'],
    ['  yes please  ', '"yes please"'],
  ])('reads the value %j as YAML reads it, as it always did: got %s', async (value, got) => {
    const dir = await project({ 'a.yaml': PARSER });
    const loaded = await loadManifests({ paths: [dir], env: { RENDER: value } });
    expect(reported(loaded, dir)).toEqual([
      `a.yaml:5:11 scraper_params.render: expected a boolean, got ${got}`,
    ]);
  });

  it('a quoted default loses its quotes, and a value its surrounding spaces, so a valid manifest keeps its meaning', async () => {
    const dir = await project({
      'a.yaml': PARSER.replace('${TITLE_SELECTOR:-@title}', '${TITLE_SELECTOR:-"h1"}'),
    });
    const quoted = await loadManifests({ paths: [dir], env: { RENDER: 'false' } });
    expect(quoted.parsers[0]?.fields).toEqual([{ name: 'title', description: 'Title', selector: 'h1' }]);
    const spaced = await loadManifests({
      paths: [dir],
      env: { RENDER: ' true ', TITLE_SELECTOR: 'p.price_color ' },
    });
    expect(spaced.parsers[0]?.scraperParams).toEqual({ render: true });
    expect(spaced.parsers[0]?.fields).toEqual([
      { name: 'title', description: 'Title', selector: 'p.price_color' },
    ]);
  });

  it('keeps a default YAML cannot read as text, and still types one it can', async () => {
    const dir = await project({ 'a.yaml': PARSER });
    const loaded = await loadManifests({ paths: [dir], env: { RENDER: 'true' } });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.parsers[0]?.scraperParams).toEqual({ render: true });
    expect(loaded.parsers[0]?.fields).toEqual([{ name: 'title', description: 'Title', selector: '@title' }]);
  });
});

describe('an empty variable', () => {
  it('stays an empty string unquoted, as quoted, then validated as any value; a default takes its place', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  one: { type: string, default: '' }
`,
      'p.yaml': `kind: Parser
name: books
urls: [https://books.example/a.html]
scraper_params:
  country_code: \${var.one}
---
kind: Parser
name: quoted
urls: [https://books.example/a.html]
scraper_params:
  country_code: '\${var.one}'
`,
      'q.yaml': `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/a.html] }
apiParams:
  note: \${var.one}
  tag: \${var.one:-none}
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(reported(loaded, dir)).toEqual([
      'p.yaml:5:17 scraper_params.country_code: must be a two-letter country code, such as us or de',
      'p.yaml:11:17 scraper_params.country_code: must be a two-letter country code, such as us or de',
    ]);
    expect(loaded.valid).toBe(false);
    expect(loaded.parsers).toEqual([]);
    expect(loaded.projects[0]?.apiParams).toEqual({ note: '', tag: 'none' });
  });
});

describe('a reference in a key', () => {
  it('is an error at the key, not a field sent under the literal name', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser
name: books
urls: [https://books.example/a.html]
fields:
  price_\${CURRENCY}:
    description: Price
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: { CURRENCY: 'usd' } });
    expect(reported(loaded, dir)).toEqual([
      'a.yaml:5:3 fields.price_${CURRENCY}: the key "price_${CURRENCY}" holds ${: references are not expanded in keys',
    ]);
    expect(loaded.diagnostics[0]?.hint).toBe('write the key out in full; ${…} is expanded in values only');
    expect(loaded.parsers).toEqual([]);
  });

  it('is reported once for a for_each manifest, without a misleading "contains a dot"', async () => {
    const dir = await project({
      'a.yaml': `kind: Parser
name: keys-\${each.c}
for_each: [{c: de}, {c: fr}]
urls: [https://books.example/a.html]
fields:
  price_\${each.c}:
    description: Price in \${each.c}
`,
    });
    const loaded = await loadManifests({ paths: [dir], env: {} });
    expect(reported(loaded, dir)).toEqual([
      'a.yaml:6:3 fields.price_${each.c}: the key "price_${each.c}" holds ${: references are not expanded in keys',
    ]);
    expect(loaded.parsers).toEqual([]);
  });
});

describe('a var file', () => {
  const FILES = {
    'scrapeform.yaml': `kind: Config
variables:
  hook: { type: string }
  note: { type: string, default: none }
environments:
  prod:
    paths: [m]
    varFiles: [vars/prod.yaml]
    state: state/prod.json
`,
    'm/p.yaml': `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/a.html] }
webhookOutput: { url: '\${var.hook}' }
apiParams: { note: '\${var.note}' }
`,
  };

  it('refuses ${…} at its place: nothing in it is expanded, and the literal text would be sent', async () => {
    const dir = await project({
      ...FILES,
      'vars/prod.yaml': 'note: plain\nhook: https://hooks.example/in?t=${HOOK_TOKEN}\n',
    });
    const loaded = await loadManifests({ paths: [dir], env: { HOOK_TOKEN: 't' }, environment: 'prod' });
    expect(reported(loaded, dir)).toEqual([
      'vars/prod.yaml:2:7 hook: "https://hooks.example/in?t=${HOOK_TOKEN}": a var file holds plain values; ${…} is not expanded in it',
    ]);
    expect(loaded.diagnostics[0]?.code).toBe('config.var-file');
    expect(loaded.valid).toBe(false);
    expect(loaded.projects).toEqual([]);
  });

  it('refuses it in a --var-file too, and in a key', async () => {
    const dir = await project({ ...FILES, 'vars/prod.yaml': 'hook: https://hooks.example/in\n' });
    await writeFile(path.join(dir, 'more.yaml'), 'note:\n  - ${X}\nx${Y}: 1\n');
    const loaded = await loadManifests({
      paths: [dir],
      env: { X: 'x' },
      environment: 'prod',
      varFiles: [path.join(dir, 'more.yaml')],
    });
    expect(reported(loaded, dir).filter((line) => line.includes('a var file holds'))).toEqual([
      'more.yaml:2:5 note[0]: "${X}": a var file holds plain values; ${…} is not expanded in it',
      'more.yaml:3:1 x${Y}: "x${Y}": a var file holds plain values; ${…} is not expanded in it',
    ]);
    expect(loaded.projects).toEqual([]);
  });

  it('reads $${ as a literal ${, as manifests do', async () => {
    const dir = await project({
      ...FILES,
      'vars/prod.yaml': 'hook: https://hooks.example/in\nnote: a $${literal}\n',
    });
    const loaded = await loadManifests({ paths: [dir], env: {}, environment: 'prod' });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.projects[0]?.apiParams).toEqual({ note: 'a ${literal}' });
    expect(loaded.projects[0]?.webhookOutput).toEqual({ url: 'https://hooks.example/in' });
  });
});

describe('a value put in place whole', () => {
  it('is never expanded again: $${ in a var file stays a literal ${ in a list, a map and a for_each element', async () => {
    const dir = await project({
      'scrapeform.yaml': `kind: Config
variables:
  inputs: { type: list }
  one: { type: string }
  rows: { type: list }
`,
      'v.yaml': `inputs: ['https://x.example/?q=$\${HOME}']
one: 'https://x.example/?q=$\${HOME}'
rows: [{ name: a, urls: ['https://x.example/?q=$\${HOME}'] }]
`,
      'm/projects.yaml': `kind: Project
name: whole
projectType: urls
projectInput:
  type: list
  list: \${var.inputs}
---
kind: Project
name: item
projectType: urls
projectInput:
  type: list
  list: ['\${var.one}']
`,
      'm/parsers.yaml': `kind: Parser
name: p-\${each.name}
for_each: \${var.rows}
urls: \${each.urls}
---
kind: Parser
name: q-\${each.name}
for_each: [{ name: b, urls: ['https://x.example/?q=$\${HOME}'] }]
urls: \${each.urls}
`,
    });
    const loaded = await loadManifests({
      paths: [path.join(dir, 'm')],
      projectFile: path.join(dir, 'scrapeform.yaml'),
      env: { HOME: '/root' },
      varFiles: [path.join(dir, 'v.yaml')],
    });
    expect(reported(loaded, dir)).toEqual([]);
    expect(loaded.projects.map((p) => [p.name, p.projectInput])).toEqual([
      ['whole', { type: 'list', list: ['https://x.example/?q=${HOME}'] }],
      ['item', { type: 'list', list: ['https://x.example/?q=${HOME}'] }],
    ]);
    expect(loaded.parsers.map((p) => [p.name, p.urls])).toEqual([
      ['p-a', ['https://x.example/?q=${HOME}']],
      ['q-b', ['https://x.example/?q=${HOME}']],
    ]);
  });
});

describe('literalText', () => {
  it.each(['?q=${HOME}', '$${x}', '$$${HOME}', 'a ${b} ${c:-d} $', 'plain'])(
    'a manifest value written with it reads back as %j, nothing expanded',
    async (text) => {
      const dir = await project({
        'p.yaml': `kind: Parser\nname: books\nurls: [https://books.example/a.html]\nfields:\n  title:\n    description: ${JSON.stringify(literalText(text))}\n`,
      });
      const loaded = await loadManifests({ paths: [dir], env: { HOME: '/root', b: 'B' } });
      expect(reported(loaded, dir)).toEqual([]);
      expect(loaded.parsers[0]?.fields[0]?.description).toBe(text);
    },
  );
});
