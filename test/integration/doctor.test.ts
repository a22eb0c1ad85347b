import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { QuirkName } from '../../src/emulator/quirks.js';
import { QUIRK_NAMES } from '../../src/emulator/quirks.js';
import type { EmulatorOptions } from '../../src/emulator/server.js';
import type { DoctorReport } from '../../src/output/render-doctor.js';
import { runBuiltCli } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator, waitForVersion } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { silentDatabase } from '../helpers/silent-database.js';
import { parserState, stateOf } from '../helpers/state.js';
import { BOOK_A } from '../helpers/workspace.js';

/** `scrapeform doctor` against the emulator, with and without each quirk: read-only, and what each reading shows. */
const harnesses: EmulatorHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    await h.emulator.projects.idle();
    await h.emulator.close();
  }
});

async function seeded(quirks: QuirkName[], options: EmulatorOptions = {}): Promise<EmulatorHarness> {
  // create-429 would refuse the seeding itself: it is switched on once the account has its objects.
  const atStart = quirks.filter((q) => q !== 'create-429');
  const h = await startTestEmulator({ quirks: atStart, quirkSettings: { listLagMs: 0 }, ...options });
  harnesses.push(h);
  const created = await h.parsers.create({
    name: 'books',
    urls: [BOOK_A],
    fields: [{ name: 'title', description: 'Title' }],
  });
  if (!quirks.includes('queued-status')) await waitForVersion(h.parsers, created.id, 0);
  await h.projects.create({
    name: 'nightly',
    projectInput: { type: 'list', list: [BOOK_A] },
    scrapingInterval: 'daily',
    // With queued-jobs, a run started now: its job is listed Queued (for jobQueuedMs) as doctor reads it.
    scheduledAt: quirks.includes('queued-jobs') ? 'now' : '2099-01-01T00:00:00Z',
  });
  if (atStart.length < quirks.length) await h.raw('PUT', '/_emulator/quirks', { quirks });
  return h;
}

async function doctor(
  parserUrl: string,
  pipelineUrl = parserUrl,
  args: string[] = ['--json'],
): Promise<{ code: number; report: DoctorReport; stdout: string; stderr: string }> {
  const run = await runScrapeform(['doctor', ...args], {
    env: {
      SCRAPERAPI_API_KEY: EMULATOR_KEY,
      SCRAPEFORM_PARSER_URL: parserUrl,
      SCRAPEFORM_PIPELINE_URL: pipelineUrl,
    },
  });
  expect(`${run.stdout}${run.stderr}`).not.toContain(EMULATOR_KEY);
  return {
    ...run,
    report: args.includes('--json') ? (JSON.parse(run.stdout) as DoctorReport) : ({} as DoctorReport),
  };
}

const seen = (report: DoctorReport): Record<string, boolean | null> =>
  Object.fromEntries(report.readings.map((r) => [r.name, r.seen]));

const NONE = {
  'details-without-version': false,
  'lagging-list': null,
  'paged-lists': false,
  'wrapped-lists': false,
  'queued-status': false,
  'queued-jobs': null,
  'sparse-projects': false,
  'create-429': null,
};

describe('scrapeform doctor', () => {
  it('without quirks: every check passes, no reading seen, nothing created or changed', async () => {
    const h = await seeded([]);
    const credits = h.emulator.accounts.list();
    h.emulator.requestLog.length = 0;
    const { code, report } = await doctor(h.emulator.url);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => [c.name, c.status])).toEqual([
      ['parsers.list', 'ok'],
      ['parsers.details', 'ok'],
      ['parsers.managed', 'skipped'],
      ['projects.list', 'ok'],
      ['projects.details', 'ok'],
      ['clock', 'ok'],
      ['proxy', 'ok'],
    ]);
    expect(seen(report)).toEqual(NONE);
    expect(report.readings.map((r) => r.name)).toEqual([...QUIRK_NAMES]);
    expect(report.proxy).toEqual({
      httpProxy: null,
      httpsProxy: null,
      noProxy: null,
      route: { parsers: 'direct', projects: 'direct' },
    });
    expect(Math.abs(report.clockSkewMs ?? Infinity)).toBeLessThan(5_000);
    expect(h.emulator.requestLog.map((e) => e.method)).toEqual(['GET', 'GET', 'GET', 'GET', 'GET']);
    expect(h.emulator.accounts.list()).toEqual(credits);
  });

  const shows: [QuirkName, Partial<Record<string, boolean | null>>][] = [
    ['details-without-version', { 'details-without-version': true }],
    ['paged-lists', { 'paged-lists': true, 'wrapped-lists': true }],
    ['wrapped-lists', { 'wrapped-lists': true }],
    ['queued-status', { 'queued-status': true }],
    ['queued-jobs', { 'queued-jobs': true }],
    ['sparse-projects', { 'sparse-projects': true }],
    ['lagging-list', {}],
    ['create-429', {}],
  ];
  for (const [quirk, readings] of shows) {
    it(`with ${quirk}: exit 0, and the readings it can see`, async () => {
      const h = await seeded(
        [quirk],
        quirk === 'queued-status'
          ? { generationDelayMs: 600_000 }
          : quirk === 'queued-jobs'
            ? { quirkSettings: { listLagMs: 0, jobQueuedMs: 600_000 } }
            : {},
      );
      try {
        const { code, report } = await doctor(h.emulator.url);
        expect(code).toBe(0);
        expect(seen(report)).toEqual({ ...NONE, ...readings });
      } finally {
        // The queued job runs now, so that the emulator closes idle whatever the test found.
        if (quirk === 'queued-jobs') h.emulator.clock.advance(600_000);
      }
    });
  }

  it('with paged-lists paging bare arrays by a Link header: paged, not wrapped', async () => {
    const h = await seeded(['paged-lists'], {
      quirkSettings: { listLagMs: 0, pageSize: 1, pageStyle: 'link' },
    });
    await h.parsers.create({
      name: 'more',
      urls: [BOOK_A],
      fields: [{ name: 'title', description: 'Title' }],
    });
    await h.projects.create({ name: 'more', projectInput: { type: 'list', list: [BOOK_A] } });
    const { code, report } = await doctor(h.emulator.url);
    expect(code).toBe(0);
    expect(seen(report)).toEqual({ ...NONE, 'paged-lists': true });
    expect(report.checks.find((c) => c.name === 'parsers.list')?.message).toBe(
      'the key works; 1 parsers on the first answer, a bare array paged by a Link header; 2 in all, every page followed as plan follows them',
    );
  });

  it('names the service that refused the key, exits 1, and --only leaves that service out', async () => {
    const h = await seeded([]);
    const pipeline = await startTestEmulator({ apiKeys: ['another-key'] });
    harnesses.push(pipeline);
    const refused = await doctor(h.emulator.url, pipeline.emulator.url);
    expect(refused.code).toBe(1);
    expect(refused.report.ok).toBe(false);
    const check = refused.report.checks.find((c) => c.name === 'projects.list');
    expect(check?.status).toBe('fail');
    expect(check?.message).toContain('the DataPipeline service');
    const only = await doctor(h.emulator.url, pipeline.emulator.url, ['--json', '--only', 'parsers']);
    expect(only.code).toBe(0);
    expect(only.report.checks.find((c) => c.name === 'projects.list')?.status).toBe('skipped');
    expect(pipeline.emulator.requestLog.length).toBe(1);
  });

  it('a service URL holding the key (pasted with its query) is reported without it, as the calls are', async () => {
    const h = await seeded([]);
    // doctor() holds the whole output to not containing the key: the report is made to be shared in issues.
    const keyed = await doctor(`${h.emulator.url}/?api_key=${EMULATOR_KEY}`, h.emulator.url);
    expect(keyed.code).toBe(1);
    expect(keyed.report.endpoints).toEqual({
      parsers: `${h.emulator.url}/?api_key=***`,
      projects: h.emulator.url,
    });
    expect(keyed.report.checks.find((c) => c.name === 'parsers.list')?.message).toContain(
      `GET ${h.emulator.url}/?api_key=***: 404`,
    );
  });

  it('prints a report for people on stdout, and names the proxy without its credentials', async () => {
    const h = await seeded(['sparse-projects']);
    const run = await runScrapeform(['doctor'], {
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: h.emulator.url,
        HTTP_PROXY: 'http://user:secret@127.0.0.1:9',
        NO_PROXY: '127.0.0.1',
      },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('✓ parsers.list');
    expect(run.stdout).toContain('seen     sparse-projects: the project answer leaves out');
    expect(run.stdout).toContain('Proxy: parsers direct (NO_PROXY), projects direct (NO_PROXY)');
    expect(run.stdout).toContain('scrapeform can work with this account.');
    expect(run.stdout).not.toContain('secret');
  });

  it('--env reads the key variable and the service URLs of that environment, as every other command', async () => {
    const h = await seeded([]);
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-doctor-env-'));
    try {
      await writeFile(
        path.join(dir, 'scrapeform.yaml'),
        `kind: Config\nenvironments:\n  staging:\n    apiKeyEnv: STAGING_KEY\n    parserUrl: ${h.emulator.url}\n    pipelineUrl: ${h.emulator.url}\n`,
      );
      h.emulator.requestLog.length = 0;
      // A child process: environments are read from the folder it runs in. The default variable and URLs point
      // elsewhere, so only the environment's can reach the emulator.
      const run = await runBuiltCli(['doctor', '--env', 'staging', '--json'], {
        cwd: dir,
        env: { STAGING_KEY: EMULATOR_KEY, SCRAPEFORM_PARSER_URL: 'http://127.0.0.1:9' },
        exitWithinMs: 20_000,
      });
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect((JSON.parse(run.stdout) as DoctorReport).ok).toBe(true);
      expect(h.emulator.requestLog.length).toBeGreaterThanOrEqual(2);
      expect(`${run.stdout}${run.stderr}`).not.toContain(EMULATOR_KEY);

      const unknown = await runBuiltCli(['doctor', '--env', 'prod'], {
        cwd: dir,
        env: {},
        exitWithinMs: 20_000,
      });
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain(
        'scrapeform.yaml:2:1 environments: --env prod: no environment "prod" in scrapeform.yaml',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads the details of the parsers its state records: counted, said, and no call beyond them', async () => {
    const h = await seeded([]);
    const [books] = await h.parsers.list();
    const other = await h.parsers.create({
      name: 'other',
      urls: [BOOK_A],
      fields: [{ name: 'title', description: 'Title' }],
    });
    await waitForVersion(h.parsers, other.id, 0);
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-doctor-state-'));
    try {
      const statePath = path.join(dir, 'state.json');
      await writeFile(
        statePath,
        JSON.stringify(
          stateOf({
            'parser.books': parserState({ id: books?.id ?? 'none', name: 'books', definition: null }),
            'parser.other': parserState({ id: other.id, name: 'other', definition: null }),
          }),
        ),
      );
      const project = String((await h.projects.list())[0]?.id);
      h.emulator.requestLog.length = 0;
      const { code, report } = await doctor(h.emulator.url, h.emulator.url, ['--json', '--state', statePath]);
      expect(code).toBe(0);
      expect(report.checks.filter((c) => c.name.startsWith('parsers.'))).toEqual([
        {
          name: 'parsers.list',
          status: 'ok',
          message: 'the key works; 2 parsers on the first answer, a bare array',
        },
        {
          name: 'parsers.details',
          status: 'ok',
          message: expect.stringMatching(/^parser "books" \(.+, managed as parser\.books\): /) as string,
        },
        {
          name: 'parsers.managed',
          status: 'ok',
          message:
            'read the details of 2 of the 2 parsers state records (each one the list shows FINISHED): each as plan reads them',
        },
      ]);
      // Two lists, one project by id and its jobs, and the details of each managed parser: the first is not read
      // twice.
      expect(h.emulator.requestLog.map((e) => `${e.method} ${e.path.split('?')[0] ?? ''}`).sort()).toEqual(
        [
          'GET /api/projects',
          `GET /api/projects/${project}`,
          `GET /api/projects/${project}/jobs`,
          'GET /parsers',
          `GET /parsers/${books?.id ?? 'none'}`,
          `GET /parsers/${other.id}`,
        ].sort(),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a state database that never answers: parsers.managed warns, the account is still checked and decides the exit (0)', async () => {
    const h = await seeded([]);
    const db = await silentDatabase();
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-doctor-silent-'));
    try {
      // A child process: an open database connection would keep it alive after its answer.
      const run = await runBuiltCli(['doctor', '--json', '--state', db.url], {
        cwd: dir,
        env: {
          SCRAPERAPI_API_KEY: EMULATOR_KEY,
          SCRAPEFORM_PARSER_URL: h.emulator.url,
          SCRAPEFORM_PIPELINE_URL: h.emulator.url,
          SCRAPEFORM_STATE_TIMEOUT: '1s',
        },
        exitWithinMs: 20_000,
      });
      expect(run.hung).toBeUndefined();
      expect(run.code).toBe(0);
      expect(db.sockets.length).toBeGreaterThan(0);
      const report = JSON.parse(run.stdout) as DoctorReport;
      expect(report.checks.map((c) => [c.name, c.status])).toEqual([
        ['parsers.list', 'ok'],
        ['parsers.details', 'ok'],
        ['parsers.managed', 'warn'],
        ['projects.list', 'ok'],
        ['projects.details', 'ok'],
        ['clock', 'ok'],
        ['proxy', 'ok'],
      ]);
      expect(report.checks.find((c) => c.name === 'parsers.managed')?.message).toBe(
        `state could not be read (cannot connect to the state database ${db.url}: timeout expired): the details of the parsers it records were not checked (only those of the first FINISHED parser were); the account's own checks decide the exit code`,
      );
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
