import { mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import type { State } from '../../src/state/model.js';

const q = `api_key=${EMULATOR_KEY}`;
const BOOK = 'https://books.example/catalogue/page-1.html';

/** What import must never do to objects scrapeform already manages, and how it reads answers that leave fields out. */
describe('import guards', () => {
  let h: EmulatorHarness | undefined;
  afterEach(async () => {
    await h?.emulator.close();
    h = undefined;
  });

  /** A folder with its own state file, and the CLI run there against this emulator (with `env` besides). */
  async function workspace(harness: EmulatorHarness, env: Record<string, string> = {}) {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-import-guards-'));
    const stateFile = path.join(dir, 'state.json');
    const scrapeform = (args: string[]) =>
      runScrapeform([...args, '--state', stateFile], {
        env: {
          SCRAPERAPI_API_KEY: EMULATOR_KEY,
          SCRAPEFORM_PARSER_URL: harness.emulator.url,
          SCRAPEFORM_PIPELINE_URL: harness.emulator.url,
          ...env,
        },
      });
    const state = async (): Promise<State> => JSON.parse(await readFile(stateFile, 'utf8')) as State;
    return { dir, scrapeform, state };
  }

  it('prints live names printable in its messages: a parser named to clear the screen and forge a line cannot', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform } = await workspace(h);
    const created = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'x\u001b[2J\r\nimported ok\u202e',
      urls: [BOOK],
    });
    expect(created.status).toBeLessThan(300);
    const imported = await scrapeform(['import', '--out', path.join(dir, 'imported')]);
    const output = imported.stdout + imported.stderr;
    // eslint-disable-next-line no-control-regex -- the characters that must not reach the terminal raw
    expect(output).not.toMatch(/[\u001b\r\u202e]/);
    expect(output).toContain('x\\u001b[2J\\r\\nimported ok\\u202e');
  });

  it('passes over a parser or project a manifest cannot declare as the service holds it: the next plan still loads', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform, state } = await workspace(h);
    const parser = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'bad\u0007parser',
      urls: [BOOK],
    });
    const project = await h.raw('POST', `/api/projects?${q}`, {
      name: 'bad\u0007project',
      projectInput: { type: 'list', list: [BOOK] },
      scrapingInterval: 'weekly',
    });
    const good = await h.raw('POST', `/api/projects?${q}`, {
      name: 'good',
      projectInput: { type: 'list', list: [BOOK] },
      scrapingInterval: 'weekly',
    });
    expect([parser.status, project.status, good.status]).toEqual([201, 201, 201]);
    await h.emulator.idle(); // the parser's generation is over
    const imported = await scrapeform(['import', '--out', path.join(dir, 'imported')]);
    expect(imported.code).toBe(0);
    const why = 'a value a manifest cannot hold (name: must not hold control characters (NUL, escape, …))';
    expect(imported.stderr.split('\n').sort()).toEqual([
      '',
      `skipped parser "bad\\u0007parser" (${(parser.body as { id: string }).id}): ${why}`,
      `skipped project "bad\\u0007project" (${(project.body as { id: number }).id}): ${why}`,
    ]);
    expect(await readdir(path.join(dir, 'imported'))).toEqual(['project-good.yaml']);
    expect(Object.keys((await state()).resources)).toEqual(['project.good']);
    // Before, the parser's manifest was written and recorded: every later plan failed on it.
    const plan = await scrapeform(['plan', path.join(dir, 'imported'), '--detailed-exitcode']);
    expect(plan.code, plan.stderr).toBe(0);
  });

  it('writes a << key quoted and passes over a field name a manifest refuses: the next plan loads and is empty', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform, state } = await workspace(h);
    const made = async (name: string, field: string): Promise<string> => {
      const created = await h!.raw('POST', '/parsers', {
        api_key: EMULATOR_KEY,
        name,
        urls: [BOOK],
        fields: [
          { name: 'title', description: 'Title', selector: 'h1' },
          { name: field, description: 'Odd', selector: 'h1' },
        ],
      });
      expect(created.status).toBe(201);
      return (created.body as { id: string }).id;
    };
    await made('merge', '<<');
    const reserved = await made('reserved', 'constructor');
    const proto = await made('proto', '__proto__');
    const project = await h.raw('POST', `/api/projects?${q}`, {
      name: 'merged',
      projectInput: { type: 'list', list: [BOOK] },
      scrapingInterval: 'daily',
      apiParams: { '<<': 'x', country_code: 'us' },
    });
    expect(project.status).toBe(201);
    await h.emulator.idle();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the parsers' generations (20 ms) are over
    const out = path.join(dir, 'imported');
    const imported = await scrapeform(['import', '--out', out]);
    expect(imported.code, imported.stderr).toBe(0);
    // Written plain, `<<` was read back as a YAML merge key: every later plan failed on these manifests. A name
    // every JavaScript object has was written and refused by the next load, or (`__proto__`) silently lost.
    expect(
      imported.stderr
        .split('\n')
        .filter((line) => line.startsWith('skipped'))
        .sort(),
    ).toEqual([
      `skipped parser "proto" (${proto}): its field "__proto__" has a name a manifest cannot hold (every JavaScript object has a property of this name)`,
      `skipped parser "reserved" (${reserved}): its field "constructor" has a name a manifest cannot hold (every JavaScript object has a property of this name)`,
    ]);
    expect(await readFile(path.join(out, 'parser-merge.yaml'), 'utf8')).toContain('\n  "<<":\n');
    expect(await readFile(path.join(out, 'project-merged.yaml'), 'utf8')).toContain('\n  "<<": x\n');
    expect(Object.keys((await state()).resources).sort()).toEqual(['parser.merge', 'project.merged']);
    h.emulator.requestLog.length = 0;
    const plan = await scrapeform(['plan', out, '--detailed-exitcode']);
    expect([plan.code, plan.stdout.split('\n')[0]], plan.stderr).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
    expect(h.emulator.requestLog.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('passes over a parser whose fields nest deeper than a manifest holds, and imports the others', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform, state } = await workspace(h);
    // 400 levels of fields (800 of maps in a manifest), an answer within the 1,000 levels one may nest.
    const names = Array.from({ length: 400 }, (_, i) =>
      Array.from({ length: i + 1 }, (_, j) => `f${j}`).join('.'),
    );
    const made = async (name: string, fields: string[]): Promise<string> => {
      const created = await h!.raw('POST', '/parsers', {
        api_key: EMULATOR_KEY,
        name,
        urls: [BOOK],
        fields: fields.map((field) => ({ name: field, description: 'Text', selector: 'h1' })),
      });
      expect(created.status).toBe(201);
      return (created.body as { id: string }).id;
    };
    const deep = await made('deep', names);
    await made('shallow', ['title']);
    await h.emulator.idle();
    await new Promise((resolve) => setTimeout(resolve, 100)); // the parsers' generations (20 ms) are over
    const out = path.join(dir, 'imported');
    const imported = await scrapeform(['import', '--out', out]);
    // Before, the YAML writer ran out of call stack: an internal error, and nothing imported at all.
    expect(imported.code, imported.stderr).toBe(0);
    const where = names
      .slice(0, 32)
      .map((name) => `fields.${name.slice(name.lastIndexOf('.') + 1)}`)
      .join('.');
    expect(imported.stderr.split('\n').filter((line) => line.startsWith('skipped'))).toEqual([
      `skipped parser "deep" (${deep}): a value a manifest cannot hold (${where}: the document is nested too deep (more than 64 levels of maps and lists))`,
    ]);
    expect(await readdir(out)).toEqual(['parser-shallow.yaml']);
    expect(Object.keys((await state()).resources)).toEqual(['parser.shallow']);
    const plan = await scrapeform(['plan', out, '--detailed-exitcode']);
    expect([plan.code, plan.stdout.split('\n')[0]], plan.stderr).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
  });

  it('never imports over an address state holds: a second live object of that name is passed over', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform, state } = await workspace(h);
    await writeFile(
      path.join(dir, 'p.yaml'),
      `kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: ["${BOOK}"] }\nscrapingInterval: daily\n`,
    );
    expect((await scrapeform(['apply', path.join(dir, 'p.yaml'), '--auto-approve'])).code).toBe(0);
    const managedId = (await state()).resources['project.nightly']?.id;
    const other = await h.raw('POST', `/api/projects?${q}`, {
      name: 'nightly',
      projectInput: { type: 'list', list: [BOOK] },
      scrapingInterval: 'weekly',
    });
    expect(other.status).toBe(201);

    const imported = await scrapeform(['import', '--out', path.join(dir, 'imported')]);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toBe(
      `skipped project "nightly" (${(other.body as { id: number }).id}): state already manages project.nightly as ${String(managedId)}, so this one is another of the same name; it is not imported over it (plan --show-unmanaged lists it)\n`,
    );
    expect(imported.stdout).toBe('Nothing to import: every live object is managed or declared.\n');
    expect((await state()).resources['project.nightly']?.id).toBe(managedId);
    await expect(readdir(path.join(dir, 'imported'))).rejects.toThrow(/ENOENT/);
  });

  it('imports a project whose id is the digits of a managed parser\'s id: a parser "N" and a project N are two objects', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform, state } = await workspace(h);
    const made = await h.raw('POST', `/api/projects?${q}`, {
      name: 'crawl',
      projectInput: { type: 'list', list: [BOOK] },
      scrapingInterval: 'daily',
    });
    expect(made.status).toBe(201);
    const id = (made.body as { id: number }).id;
    // Parser ids are opaque strings (API-NOTES): state manages a parser whose id is the project's digits.
    const parser = { urls: [BOOK], scraperParams: {}, fields: [] };
    await writeFile(
      path.join(dir, 'state.json'),
      JSON.stringify({
        format_version: 1,
        serial: 1,
        lineage: 'L',
        resources: {
          'parser.digits': {
            kind: 'Parser',
            id: String(id),
            name: 'digits',
            version: 0,
            definition: parser,
            descriptionsKnown: true,
          },
        },
      }),
    );
    const out = path.join(dir, 'imported');
    const imported = await scrapeform(['import', '--out', out, '--only', 'projects']);
    expect([imported.code, imported.stdout, imported.stderr]).toEqual([
      0,
      `imported project.crawl -> ${path.join(out, 'project-crawl.yaml')}\n`,
      '',
    ]);
    expect((await state()).resources['project.crawl']?.id).toBe(id);
  });

  it('passes over a parser whose details show a newer version still generating, while the list lags at a FINISHED one', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform, state } = await workspace(h);
    const made = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'books',
      urls: [BOOK],
      fields: [{ name: 'title', description: 'Title' }],
    });
    const id = (made.body as { id: string }).id;
    await h.emulator.idle();
    // Version 1 generates for ten emulated minutes; the list shows version 0, FINISHED, for a minute.
    await h.raw('PUT', '/_emulator/faults', { generationDelayMs: 600_000 });
    h.emulator.quirks.set(['lagging-list'], { listLagMs: 0, versionLagMs: 60_000 });
    const patched = await h.raw('PATCH', `/parsers/${id}/0`, {
      api_key: EMULATOR_KEY,
      add_fields: [{ name: 'upc', description: 'UPC' }],
    });
    expect(patched.status).toBe(202);
    expect((await h.parsers.list()).map((p) => [p.version, p.status])).toEqual([[0, 'FINISHED']]);

    const imported = await scrapeform(['import', '--out', path.join(dir, 'imported')]);
    expect([imported.code, imported.stdout, imported.stderr]).toEqual([
      0,
      'Nothing to import: every live object is managed or declared.\n',
      `skipped parser "books" (${id}): its latest version is GENERATING\n`,
    ]);
    await expect(state()).rejects.toThrow(/ENOENT/);
    await expect(readdir(path.join(dir, 'imported'))).rejects.toThrow(/ENOENT/);
  });

  it('imports a webhook the service reports inside projectOutput, and the next plan is empty', async () => {
    h = await startTestEmulator({ quirks: ['sparse-projects'] });
    const { dir, scrapeform, state } = await workspace(h);
    const made = await h.raw('POST', `/api/projects?${q}`, {
      name: 'hooked',
      projectInput: { type: 'list', list: [BOOK] },
      scrapingInterval: 'daily',
      webhookOutput: { url: 'https://hooks.example/books' },
    });
    expect(made.status).toBe(201);
    const out = path.join(dir, 'imported');
    const imported = await scrapeform(['import', '--out', out]);
    expect(imported.stdout).toBe(`imported project.hooked -> ${path.join(out, 'project-hooked.yaml')}\n`);
    expect(await readFile(path.join(out, 'project-hooked.yaml'), 'utf8')).toContain(
      'webhookOutput:\n  url: https://hooks.example/books\n',
    );
    expect((await state()).resources['project.hooked']).toMatchObject({
      definition: { webhookOutput: { url: 'https://hooks.example/books' } },
    });
    const plan = await scrapeform(['plan', out, '--detailed-exitcode']);
    expect(plan.stdout).toContain('No changes.');
    expect(plan.code).toBe(0);
  });

  it('gives objects whose names differ only in case each its own file, and the next plan is empty', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform, state } = await workspace(h);
    const out = path.join(dir, 'imported');
    // A file an earlier import wrote with a suffix is not written over: the suffixes go past it.
    await mkdir(out, { recursive: true });
    await writeFile(path.join(out, 'parser-books-2.yaml'), '# an earlier import\n');
    for (const name of ['books', 'Books', 'BOOKS'])
      expect(
        (
          await h.raw('POST', '/parsers', {
            api_key: EMULATOR_KEY,
            name,
            urls: [BOOK],
            fields: [{ name: 'title', description: 'Title', selector: 'h1' }],
          })
        ).status,
      ).toBe(201);
    await h.emulator.idle();
    const imported = await scrapeform(['import', '--out', out]);
    expect(imported.code, imported.stderr).toBe(0);
    // By code unit, upper case first: the first keeps the plain name, each other one the next free suffix.
    expect(imported.stdout.split('\n').sort()).toEqual([
      '',
      `imported parser.BOOKS -> ${path.join(out, 'parser-books.yaml')}`,
      `imported parser.Books -> ${path.join(out, 'parser-books-3.yaml')}`,
      `imported parser.books -> ${path.join(out, 'parser-books-4.yaml')}`,
    ]);
    expect((await readdir(out)).sort()).toEqual([
      'parser-books-2.yaml',
      'parser-books-3.yaml',
      'parser-books-4.yaml',
      'parser-books.yaml',
    ]);
    expect(await readFile(path.join(out, 'parser-books-2.yaml'), 'utf8')).toBe('# an earlier import\n');
    expect(await readFile(path.join(out, 'parser-books-3.yaml'), 'utf8')).toContain('\nname: Books\n');
    expect(Object.keys((await state()).resources).sort()).toEqual([
      'parser.BOOKS',
      'parser.Books',
      'parser.books',
    ]);
    const plan = await scrapeform(['plan', out, '--detailed-exitcode']);
    expect([plan.code, plan.stdout.split('\n')[0]]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
  });

  it('a second import gives a new object whose file name an imported manifest holds the next suffix, and the plan is empty', async () => {
    h = await startTestEmulator();
    const { dir, scrapeform, state } = await workspace(h);
    const out = path.join(dir, 'imported');
    const make = async (name: string): Promise<void> => {
      const body = { name, projectInput: { type: 'list', list: [BOOK] }, scrapingInterval: 'daily' };
      expect((await h!.raw('POST', `/api/projects?${q}`, body)).status).toBe(201);
    };
    await make('books');
    const first = await scrapeform(['import', '--out', out]);
    expect(first.stdout).toBe(`imported project.books -> ${path.join(out, 'project-books.yaml')}\n`);
    await make('Books');
    // Before, the second run refused ("refusing to overwrite …project-books.yaml"), with the hint to move away the
    // manifest of a managed project: the next plan would then delete it.
    const second = await scrapeform(['import', '--out', out]);
    expect([second.code, second.stdout, second.stderr]).toEqual([
      0,
      `imported project.Books -> ${path.join(out, 'project-books-2.yaml')}\n`,
      '',
    ]);
    expect(await readFile(path.join(out, 'project-books.yaml'), 'utf8')).toContain('\nname: books\n');
    expect(await readFile(path.join(out, 'project-books-2.yaml'), 'utf8')).toContain('\nname: Books\n');
    expect(Object.keys((await state()).resources).sort()).toEqual(['project.Books', 'project.books']);
    h.emulator.requestLog.length = 0;
    const plan = await scrapeform(['plan', out, '--detailed-exitcode']);
    expect([plan.code, plan.stdout.split('\n')[0]], plan.stderr).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
    expect(h.emulator.requestLog.filter((r) => r.method !== 'GET')).toEqual([]);
  });

  it('writes a live ${ as $${, so the next load reads the value back instead of expanding it', async () => {
    h = await startTestEmulator();
    // HOME set, as in every shell: expanded, ${HOME} would read as /root and the next plan PATCH every value.
    const { dir, scrapeform } = await workspace(h, { HOME: '/root' });
    const made = await h.raw('POST', `/api/projects?${q}`, {
      name: 'crawl-${HOME}',
      projectInput: { type: 'list', list: [`${BOOK}?q=\${HOME}`, `${BOOK}?q=\${HOME:-x}&r=$\${y}`] },
      scrapingInterval: 'daily',
      webhookOutput: { url: 'https://hooks.example/in?to=${HOME}' },
      apiParams: { country_code: '${HOME}' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const parser = await h.raw('POST', '/parsers', {
      api_key: EMULATOR_KEY,
      name: 'books-${HOME}',
      urls: [BOOK],
      fields: [{ name: 'title', description: 'Title', selector: 'h1' }],
    });
    expect(parser.status).toBe(201);
    await h.emulator.idle();
    const out = path.join(dir, 'imported');
    const imported = await scrapeform(['import', '--out', out]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stdout.split('\n').sort()).toEqual([
      '',
      `imported parser.books-\${HOME} -> ${path.join(out, 'parser-books--home.yaml')}`,
      `imported project.crawl-\${HOME} -> ${path.join(out, 'project-crawl--home.yaml')}`,
    ]);
    const project = await readFile(path.join(out, 'project-crawl--home.yaml'), 'utf8');
    for (const written of [
      'name: crawl-$${HOME}\n',
      `    - ${BOOK}?q=$\${HOME}\n`,
      `    - ${BOOK}?q=$\${HOME:-x}&r=$$\${y}\n`,
      'url: https://hooks.example/in?to=$${HOME}\n',
      'country_code: $${HOME}\n',
    ])
      expect(project).toContain(written);
    expect(await readFile(path.join(out, 'parser-books--home.yaml'), 'utf8')).toContain(
      'name: books-$${HOME}\n',
    );
    const plan = await scrapeform(['plan', out, '--detailed-exitcode']);
    expect([plan.code, plan.stdout.split('\n')[0]], plan.stderr).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
    await h.emulator.close();
    h = undefined;
  });
});
