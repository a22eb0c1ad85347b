import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import {
  KEY_QUERY,
  NOCK_ENV,
  PARSER_ORIGIN,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  counted,
  useNock,
  withUnmatched,
} from '../helpers/api.js';
import { booksProjectYaml, liveBooksProject } from '../helpers/books-project.js';

useNock();

const folder = contractFolder('scrapeform-hostile-');
const { statePath, readState } = folder;

const parserManifest = (name: string) =>
  `kind: Parser\nname: ${name}\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n`;

function apply(extra: string[] = []) {
  return runScrapeform(['apply', '--auto-approve', '--state', statePath(), ...extra, folder.dir()], {
    env: NOCK_ENV,
  });
}

describe('apply: answers that must stop or hold back paid calls', () => {
  it('a 403 to a create (exhausted credits): no further paid call is sent, and each one held back says why', async () => {
    for (const n of ['a', 'b', 'c']) await writeFile(path.join(folder.dir(), `${n}.yaml`), parserManifest(n));
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []).persist();
    const posts = counted(nock(PARSER_ORIGIN).post('/parsers'), [
      403,
      'You have exhausted the API Credits available in this monthly cycle.',
    ]);
    const run = await apply(['--concurrency', '1']);
    expect(posts.n).toBe(1);
    expect(run.code).toBe(1);
    const held =
      'not sent: the service refused the paid call of parser.a (HTTP 403), so no further paid call (a parser create or regeneration, a project create) was made';
    expect(run.stderr).toContain(`parser.b  failed: ${held}`);
    expect(run.stderr).toContain(`parser.c  failed: ${held}`);
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
  });
});

describe('apply: the refusal of a paid call holds back the expect checks, and only a paid call counts', () => {
  it('a 402 to a create: the expect checks of a change that succeeded send no parse, and say why', async () => {
    // parser.a (p-1) at version 1 with title and upc; the manifest drops upc (a free PATCH) and checks a page.
    await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
    const definition = {
      urls: ['https://books.example/a.html'],
      scraperParams: {},
      fields: [
        { name: 'title', description: 'Book title' },
        { name: 'upc', description: 'UPC' },
      ],
    };
    const resources = {
      'parser.a': { kind: 'Parser', id: 'p-1', name: 'a', version: 1, definition, descriptionsKnown: true },
    };
    await writeFile(
      statePath(),
      JSON.stringify({ format_version: 1, serial: 1, lineage: 'refused', resources }),
    );
    await writeFile(
      path.join(folder.dir(), 'a.yaml'),
      `${parserManifest('a')}expect:\n  - url: https://books.example/a.html\n    result: { title: ~\\S }\n`,
    );
    await writeFile(path.join(folder.dir(), 'b.yaml'), parserManifest('b'));
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(1)).persist();
    nock(PARSER_ORIGIN).patch('/parsers/p-1/1').reply(200, { id: 'p-1', version: 2 });
    const posts = counted(nock(PARSER_ORIGIN).post('/parsers'), [402, 'Payment Required']);
    // No parse is mocked: one sent would fail as unmatched, with another message than the one checked.
    const run = await apply(['--concurrency', '1']);
    expect(posts.n).toBe(1);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      'not parsed: the service refused the paid call of parser.b (HTTP 402) during the apply, so no parse (each is paid) was sent',
    );
  });

  it('a 403 to a look at a generation (a read, not a paid call): the next create is still sent', async () => {
    for (const n of ['a', 'b']) await writeFile(path.join(folder.dir(), `${n}.yaml`), parserManifest(n));
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
    nock(PARSER_ORIGIN)
      .get(/^\/parsers\/p-/)
      .query(true)
      .reply(403, 'Forbidden')
      .persist();
    let n = 0;
    nock(PARSER_ORIGIN)
      .post('/parsers')
      .reply(() => [201, { id: `p-${++n}`, version: 0, status: 'GENERATING' }])
      .persist();
    // One generation at a time: parser.b's create starts only once parser.a's wait has ended on the 403.
    const run = await apply(['--concurrency', '1', '--max-generating', '1']);
    expect(n).toBe(2);
    expect(run.stdout + run.stderr).not.toContain('refused the paid call');
  });
});

/** A state holding parser.a (id p-1) FINISHED at `version` with only its title field. */
async function writeParserState(version: number): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  const state = {
    format_version: 1,
    serial: 1,
    lineage: 'hostile-answers',
    resources: {
      'parser.a': {
        kind: 'Parser',
        id: 'p-1',
        name: 'a',
        version,
        definition: {
          urls: ['https://books.example/a.html'],
          scraperParams: {},
          fields: [{ name: 'title', description: 'Book title' }],
        },
        descriptionsKnown: true,
      },
    },
  };
  await writeFile(path.join(folder.dir(), '.scrapeform', 'state.json'), JSON.stringify(state));
}

const listed = (version: number, status = 'FINISHED', error: string | null = null) => [
  { id: 'p-1', name: 'a', status, error, generated_at: null, version },
];
const details = (version: number) => ({
  name: 'a',
  status: 'FINISHED',
  version,
  fields: [{ name: 'title', type: 'text' }],
  example_result: [],
});

/**
 * parser.a at version 1 (title) in state and live, and a manifest that adds `price`: one PATCH, which regenerates.
 * The list is read by the plan (and by every poll, when `listLags`: it stays at version 1).
 */
/** Version 2 of parser.a, read by number, FAILED. */
function version2Fails(): void {
  nock(PARSER_ORIGIN)
    .get('/parsers/p-1/2')
    .query(KEY_QUERY)
    .reply(200, { ...details(2), status: 'FAILED', error: 'GenerationError: no price found', fields: null })
    .persist();
}

async function priceAdded(listLags = false): Promise<void> {
  await writeParserState(1);
  await writeFile(
    path.join(folder.dir(), 'a.yaml'),
    `${parserManifest('a')}  price: { description: Price, type: number }\n`,
  );
  const list = nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(1));
  if (listLags) list.persist();
  nock(PARSER_ORIGIN).get('/parsers/p-1/1').query(KEY_QUERY).reply(200, details(1)).persist();
}

describe('apply: a PATCH answer that does not say what the docs say', () => {
  it('a 200 to a PATCH that adds a field: apply still waits for the generation, and reports its failure', async () => {
    await priceAdded();
    const patches = counted(nock(PARSER_ORIGIN).patch('/parsers/p-1/1'), [200, { id: 'p-1', version: 2 }]);
    // The service generates version 2 all the same, and it fails.
    version2Fails();
    const run = await apply();
    expect(patches.n).toBe(1);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Apply finished with failures: 0 applied, 1 failed.');
    expect(run.stdout).toContain('GenerationError: no price found');
    // Reported as the service answered it (a 200), though apply waited for it as for a 202.
    expect(run.stderr).toContain('PATCH /parsers/p-1/1 -> 200');
    // State still holds version 1 as the last one applied, and version 2 as FAILED.
    const state = await readState();
    expect([state.resources['parser.a'].version, state.resources['parser.a'].failed?.version]).toEqual([
      1, 2,
    ]);
  });

  it.each([1, 0])(
    'a PATCH answered with version %i, not past its base: not recorded as applied, and the next apply takes the version it made without a second PATCH',
    async (answered) => {
      await priceAdded();
      const patches = counted(nock(PARSER_ORIGIN).patch('/parsers/p-1/1'), [
        202,
        { id: 'p-1', version: answered },
      ]);
      const run = await apply();
      expect(patches.n).toBe(1);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(
        `unexpected response from PATCH /parsers/p-1/1: the answer gives version ${answered}, not past version 1 the PATCH was based on; what it made is unknown, and the next plan reads the parser to find out (nothing is sent again meanwhile)`,
      );
      const state = await readState();
      expect(state.resources['parser.a'].version).toBe(1);
      expect(state.resources['parser.a'].definition.fields).toHaveLength(1);
      expect(state.resources['parser.a'].patching.from).toBe(1);

      // The service did make version 2: the next apply records it as this PATCH's, and sends nothing.
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(2)).persist();
      const two = { ...details(2), fields: [{ name: 'title' }, { name: 'price' }] };
      nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(200, two).persist();
      const again = await apply();
      expect(patches.n).toBe(1);
      expect(again.code).toBe(0);
      const after = await readState();
      expect(after.resources['parser.a'].version).toBe(2);
      expect(after.resources['parser.a'].patching).toBeUndefined();
    },
  );
});

describe('apply: a PATCH answered without a version it can read', () => {
  it.each([
    [{ id: 'p-1' }, 'field version: expected a whole number or a string of its digits, received undefined'],
    [
      { id: 'p-1', version: 'v2' },
      'field version: expected a whole number or a string of its digits, received string "v2"',
    ],
  ])(
    '%j: reported, and the next apply takes the version it made without a second PATCH',
    async (answer, reason) => {
      await priceAdded();
      const patches = counted(nock(PARSER_ORIGIN).patch('/parsers/p-1/1'), [202, answer]);
      const run = await apply();
      expect(patches.n).toBe(1);
      expect(run.code).toBe(1);
      expect(run.stdout).toContain(`unexpected response from PATCH /parsers/p-1/1: ${reason}`);
      expect((await readState()).resources['parser.a'].patching.from).toBe(1);

      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(2)).persist();
      const two = { ...details(2), fields: [{ name: 'title' }, { name: 'price' }] };
      nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(200, two).persist();
      const again = await apply();
      expect(patches.n).toBe(1);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(
        "warning: parser.a: version 2 was made by an apply whose PATCH got no answer; it is taken as that PATCH's, with the definition sent",
      );
      expect((await readState()).resources['parser.a'].version).toBe(2);
    },
  );
});

describe('plan: details that would plan a paid change from nothing', () => {
  it('a FINISHED version moved outside scrapeform whose details list no fields: no add_fields of every field', async () => {
    await writeParserState(1);
    await writeFile(path.join(folder.dir(), 'a.yaml'), parserManifest('a'));
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(2));
    nock(PARSER_ORIGIN)
      .get('/parsers/p-1')
      .query(KEY_QUERY)
      .reply(200, { ...details(2), fields: [] });
    const run = await runScrapeform(
      ['plan', '--state', path.join(folder.dir(), '.scrapeform', 'state.json'), folder.dir()],
      {
        env: { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: PARSER_ORIGIN },
      },
    );
    expect(run.code).toBe(1);
    expect(run.stdout).not.toContain('add_fields');
    expect(run.stderr).toContain(
      'unexpected response from GET /parsers/p-1: version 2 is FINISHED but the answer has no fields; nothing is planned from it',
    );
  });
});

describe('apply: a wait read from an answer about another version', () => {
  it('details asked for the new version that answer the old one FINISHED are not its end: apply waits for the new one', async () => {
    // The list lags at version 1 throughout.
    await priceAdded(true);
    nock(PARSER_ORIGIN).patch('/parsers/p-1/1').reply(202, { id: 'p-1', version: 2 });
    // The details ignore the version asked for at first, answering the latest they know; then version 2 FAILS.
    nock(PARSER_ORIGIN).get('/parsers/p-1/2').query(KEY_QUERY).times(2).reply(200, details(1));
    version2Fails();
    const run = await apply();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '✗ parser.a update p-1 version 2: parser.a: version 2 FAILED: GenerationError: no price found',
    );
    expect(run.stdout).toContain(
      'version 2 of p-1 is not found yet (its details answer for version 1): read as not visible yet, waiting for it',
    );
  });
});

describe('test: answers that must stop paid parses', () => {
  it('a 403 to a parse (exhausted credits): the other expect checks send no parse, and say why', async () => {
    await writeParserState(1);
    const urls = ['a', 'b', 'c'].map((n) => `https://books.example/${n}.html`);
    await writeFile(
      path.join(folder.dir(), 'a.yaml'),
      `${parserManifest('a')}expect:\n${urls.map((u) => `  - url: ${u}\n    result: { title: T }\n`).join('')}`,
    );
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, listed(1));
    const parses = counted(nock(PARSER_ORIGIN).get('/parse/p-1').query(true), [
      403,
      'You have exhausted the API Credits available in this monthly cycle.',
    ]);
    const run = await runScrapeform(
      ['test', '--state', path.join(folder.dir(), '.scrapeform', 'state.json'), folder.dir()],
      {
        env: { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: PARSER_ORIGIN },
      },
    );
    expect(parses.n).toBe(1);
    expect(run.code).toBe(1);
    const held =
      'not parsed: the service refused a parse of parser.a (HTTP 403), so no further parse (each is paid) was sent; check the credits and plan of the account in the ScraperAPI dashboard';
    expect(run.stdout).toContain(`✗ parser.a ${urls[1]}\n    ${held}`);
    expect(run.stdout).toContain(`✗ parser.a ${urls[2]}\n    ${held}`);
  });
});

describe('apply: a create answered as done, in a shape that cannot be read', () => {
  it.each([
    [201, { version: 0 }],
    [201, { id: null, version: 0 }],
    [201, { id: 42, version: 0 }],
    [201, '<html>created</html>'],
  ])(
    '%i %j: the parser is found by name and recorded in the same run, never created twice',
    async (status, body) => {
      await writeFile(path.join(folder.dir(), 'a.yaml'), parserManifest('a'));
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
      const posts = counted(nock(PARSER_ORIGIN).post('/parsers'), [status, body]);
      const made = [
        { id: 'p-9', name: 'a', status: 'FINISHED', error: null, generated_at: null, version: 0 },
      ];
      nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, made).persist();
      nock(PARSER_ORIGIN).get('/parsers/p-9/0').query(KEY_QUERY).reply(200, details(0)).persist();
      const run = await apply();
      expect(posts.n).toBe(1);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('✓ parser.a create p-9 version 0');
      const state = await readState();
      expect([state.resources['parser.a'].id, state.resources['parser.a'].version, state.intents]).toEqual([
        'p-9',
        0,
        undefined,
      ]);
    },
  );
});

describe('apply: a project the service schedules against the manifest', () => {
  it('a create answered with a weekly schedule, when the manifest asks for none: the apply fails and says what to do', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), booksProjectYaml('once'));
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    const scheduled = {
      id: 7,
      name: 'once',
      schedulingEnabled: true,
      scrapingInterval: 'weekly',
      projectType: 'urls',
    };
    const posts = counted(nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY), [201, scheduled]);
    const run = await apply();
    expect(posts.n).toBe(1);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '✗ project.once create 7: project 7 was created, but the service reports schedulingEnabled = true, not the schedule the manifest asks for (schedulingEnabled = false): it may run, at the price of its pages, when the manifest says it must not',
    );
    expect(run.stdout).toContain("hint: check the project's schedule in the ScraperAPI dashboard");
    // The project is recorded, not created again; the schedule is not: the next apply sends it again (a free
    // PATCH) and fails the same way while the service runs the project against the manifest.
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [scheduled]);
    const patched: unknown[] = [];
    nock(PIPELINE_ORIGIN)
      .patch('/api/projects/7')
      .query(KEY_QUERY)
      .reply((_uri, body) => {
        patched.push(body);
        return [200, scheduled];
      });
    const again = await apply();
    expect(posts.n).toBe(1);
    expect(patched).toEqual([{ schedulingEnabled: false }]);
    expect(again.code).toBe(1);
    expect(again.stdout).toContain(
      '✗ project.once update 7: project 7 was updated, but the service reports schedulingEnabled = true, not the schedule the manifest asks for (schedulingEnabled = false)',
    );
    // Once the service runs it as the manifest says, the apply is done and the plan empty.
    const taken = { ...scheduled, schedulingEnabled: false };
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [taken]);
    expect((await apply()).code).toBe(0);
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [taken]);
    const plan = await runScrapeform(['plan', '--json', '--state', statePath(), folder.dir()], {
      env: NOCK_ENV,
    });
    expect((JSON.parse(plan.stdout) as { status: string }).status).toBe('no_changes');
  });
});

describe('apply: scheduling reported off where the manifest asks for a schedule', () => {
  it('fails, saying the project does not run as asked (no page is paid for, none is scraped)', async () => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n',
    );
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    const created = { id: 12, name: 'nightly', schedulingEnabled: false, scrapingInterval: 'daily' };
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, created);
    const run = await apply();
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '✗ project.nightly create 12: project 12 was created, but the service reports schedulingEnabled = false, not the schedule the manifest asks for (schedulingEnabled = true): it does not run on the schedule the manifest asks for',
    );
    expect(run.stdout).toContain(
      "hint: check the project's schedule in the ScraperAPI dashboard and enable it there",
    );
  });
});

describe('apply: an interval not taken while scheduling is off', () => {
  it('weekly for daily with schedulingEnabled false runs nothing: a warning, not a failure', async () => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      'kind: Project\nname: paused\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\nschedulingEnabled: false\n',
    );
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    const created = { id: 11, name: 'paused', schedulingEnabled: false, scrapingInterval: 'weekly' };
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, created);
    const run = await apply();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'warning: scrapingInterval was sent as "daily" but the service answered "weekly"',
    );
  });
});

describe('apply: a schedule reported in another spelling', () => {
  it('DAILY for daily is the same schedule: no failure, and no warning (test/contract/interval-spelling.test.ts)', async () => {
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n',
    );
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    const created = { id: 9, name: 'nightly', schedulingEnabled: true, scrapingInterval: 'DAILY' };
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(201, created);
    const run = await apply();
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('warning: scrapingInterval');
  });
});

/** State holding project.nightly (id `id`), which no manifest declares any more (another project is declared). */
async function nightlyDropped(id = 7): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  const nightly = { kind: 'Project', id, name: 'nightly', definition: { name: 'nightly' } };
  const state = { format_version: 1, serial: 1, lineage: 'l', resources: { 'project.nightly': nightly } };
  await writeFile(statePath(), JSON.stringify(state));
  await writeFile(path.join(folder.dir(), 'other.yaml'), booksProjectYaml('other'));
}

const nightlyLive = {
  id: 7,
  name: 'nightly',
  schedulingEnabled: true,
  scrapingInterval: 'daily',
  projectType: 'urls',
};
const otherLive = liveBooksProject(8, 'other');

/** A 410 Gone (HTTP's "gone for good") reads as a 404 does: a service that keeps an archived project's id may answer so. */
describe.each([
  [404, 'Not Found'],
  [410, 'Gone'],
])('apply: an archive answered %i', (status, error) => {
  it('while a read by id still shows the project: not recorded as archived, and the apply says so', async () => {
    await nightlyDropped();
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [nightlyLive, otherLive]);
    nock(PIPELINE_ORIGIN).delete('/api/projects/7').query(KEY_QUERY).reply(status, { error });
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(200, nightlyLive);
    const run = await apply(['--allow-destroy', '--allow-adopt']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `✗ project.nightly archive 7: the service answered ${status} to the archive of project 7 but still shows it when read by id: it was not archived, and keeps its schedule`,
    );
    expect((await readState()).resources['project.nightly']?.id).toBe(7);
  });

  it('and a read by id answering the same: gone, dropped from state, the call listed with its status; the next plan is empty', async () => {
    await nightlyDropped();
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [nightlyLive, otherLive]);
    nock(PIPELINE_ORIGIN).delete('/api/projects/7').query(KEY_QUERY).reply(status, { error });
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(status, { error });
    const run = await apply(['--allow-destroy', '--allow-adopt', '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { results: { address: string; calls: unknown[] }[] };
    expect(report.results.find((r) => r.address === 'project.nightly')?.calls).toEqual([
      { method: 'DELETE', path: '/api/projects/7', status },
    ]);
    expect((await readState()).resources['project.nightly']).toBeUndefined();
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [otherLive]);
    const again = await runScrapeform(['plan', '--state', statePath(), folder.dir()], { env: NOCK_ENV });
    expect(again.stdout).toContain('No changes.');
  });
});

describe('plan: a project state records that the list lacks', () => {
  it('and a read by id answers 410: planned as gone, nothing archived', async () => {
    await nightlyDropped();
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [otherLive]);
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(410, { error: 'Gone' });
    const { result: run, unmatched } = await withUnmatched(() => apply(['--allow-destroy', '--allow-adopt']));
    expect(unmatched).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).not.toContain('DELETE');
    expect((await readState()).resources['project.nightly']).toBeUndefined();
  });
});

describe('plan: project ids a number cannot hold', () => {
  it('a string id beyond the safe integers is a bad response: two such ids read as one would send an archive to the other project', async () => {
    // As recorded from an earlier read of "9007199254740993", rounded to the nearest number.
    await nightlyDropped(9007199254740992);
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [
        { id: '9007199254740993', name: 'nightly' },
        { id: '9007199254740992', name: 'someone-elses' },
      ]);
    const { result: run, unmatched } = await withUnmatched(() => apply(['--allow-destroy']));
    expect(unmatched).toEqual([]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'unexpected response from GET /api/projects: field 0.id: a numeric id too large to be read exactly',
    );
  });
});
