import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import type { CliRun } from '../helpers/cli.js';
import {
  KEY_QUERY,
  NOCK_ENV,
  PARSER_ORIGIN,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  useNock,
} from '../helpers/api.js';
import { parserState, stateOf } from '../helpers/state.js';
import { tempProjects } from '../helpers/temp-projects.js';
import type { State } from '../../src/state/model.js';

/**
 * Texts the services send (job ids and statuses, parse results, cancel answers) reach a terminal as the CLI prints
 * them: each is printable there (src/output/escape-text.ts), so a hostile answer cannot clear the screen, colour it,
 * hide a link (OSC 8) or reorder a line. JSON output keeps the exact data, with those characters as `\uXXXX` escapes.
 */

useNock();

const project = tempProjects('scrapeform-service-text-');
const home = process.cwd();
afterEach(() => process.chdir(home));
/** ESC CSI (clear screen), an OSC 8 hyperlink, a one-byte C1 CSI, DEL and a right-to-left override. */
const HOSTILE = 'x\u001b[2J\u001b]8;;https://evil.example\u0007y\u009b31m\u007f\u202ez';
/** HOSTILE as printable() shows it. */
const SHOWN = 'x\\u001b[2J\\u001b]8;;https://evil.example\\u0007y\\u009b31m\\u007f\\u202ez';

async function scrapeform(state: State, args: string[]): Promise<CliRun> {
  const dir = await project({ '.scrapeform/state.json': JSON.stringify(state) });
  // State and manifests are read in the folder a command runs in, as for a user at the project root.
  return runScrapeform(['--chdir', dir, ...args], {
    env: {
      ...NOCK_ENV,
      SCRAPEFORM_POLL_INTERVAL: '1ms',
    },
  });
}

const nightly = stateOf({ 'project.nightly': { kind: 'Project', id: 522, name: 'nightly', definition: {} } });

describe('run --wait: the progress of the new job', () => {
  it("prints the job's id and statuses from the service printable, and warns of an unknown one quoted", async () => {
    const jobs = nock(PIPELINE_ORIGIN);
    jobs.get('/api/projects/522').query(KEY_QUERY).reply(200, { id: 522, name: 'nightly' });
    jobs.get('/api/projects/522/jobs').query(KEY_QUERY).reply(200, []);
    jobs.patch('/api/projects/522', { scheduledAt: 'now' }).query(KEY_QUERY).reply(200, {});
    jobs
      .get('/api/projects/522/jobs')
      .query(KEY_QUERY)
      .reply(200, [{ id: `7${HOSTILE}`, status: `Running${HOSTILE}` }]);
    jobs
      .get('/api/projects/522/jobs')
      .query(KEY_QUERY)
      .reply(200, [{ id: `7${HOSTILE}`, status: 'Finished' }]);
    const run = await scrapeform(nightly, ['run', 'nightly', '--wait']);
    expect(run.code).toBe(0);
    expect(run.stderr.split('\n')).toEqual([
      'nightly: started (scheduledAt now).',
      `nightly  job 7${SHOWN}  Running${SHOWN}`,
      `warning: job status "Running${SHOWN}" is not one scrapeform knows; waiting as if it were still running`,
      `nightly  job 7${SHOWN}  Finished`,
      '',
    ]);
    expect(run.stdout.split('\n')[1]).toMatch(new RegExp(`^7${escapeRegExp(SHOWN)}\\s+Finished`));
  });
});

describe('cancel: the status the service answers', () => {
  it('is printed printable', async () => {
    nock(PIPELINE_ORIGIN)
      .delete('/api/projects/522/jobs/9')
      .query(KEY_QUERY)
      .reply(200, { status: `Cancelled${HOSTILE}` });
    const run = await scrapeform(nightly, ['cancel', 'nightly', '9']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toBe(`Job 9 of nightly: Cancelled${SHOWN} (items already in flight finish first).\n`);
  });
});

describe('parse: JSON that gives back the exact data, and warnings printable', () => {
  const details = {
    name: 'books',
    status: 'FINISHED',
    error: null,
    generated_at: null,
    fields: [{ name: 'title', type: 'text' }],
    version: 0,
  };

  it('writes C1 controls, DEL and bidi overrides in the result as \\u escapes; JSON.parse reads the same string', async () => {
    const parser = nock(PARSER_ORIGIN);
    parser.get('/parsers/p-1/0').query(KEY_QUERY).reply(200, details);
    parser
      .get('/parse/p-1/0')
      .query({ ...KEY_QUERY, url: 'https://books.example/a.html' })
      .reply(200, { parser: 'p-1', version: 0, result: { title: HOSTILE, [HOSTILE]: 1 } });
    const state = stateOf({ 'parser.books': parserState({ definition: null }) });
    const run = await scrapeform(state, ['parse', 'books', 'https://books.example/a.html', '--version', '0']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toBe(
      [
        '{',
        '  "parser": "p-1",',
        '  "version": 0,',
        '  "result": {',
        `    "title": "${SHOWN}",`,
        `    "${SHOWN}": 1`,
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    expect(JSON.parse(run.stdout)).toEqual({
      parser: 'p-1',
      version: 0,
      result: { title: HOSTILE, [HOSTILE]: 1 },
    });
  });

  it('prints a warning that names the parser printable', async () => {
    const address = `parser.books${HOSTILE}`;
    const parser = nock(PARSER_ORIGIN);
    parser.get('/parsers/p-1/0').query(KEY_QUERY).reply(200, details);
    parser
      .get('/parse/p-1/0')
      .query({ ...KEY_QUERY, url: 'https://books.example/a.html' })
      .reply(200, { parser: 'p-1', version: 0, result: {} });
    const state = stateOf({
      [address]: parserState({ definition: null, unknown: { scraperParams: true } }),
    });
    const run = await scrapeform(state, ['parse', address, 'https://books.example/a.html', '--version', '0']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(
      `warning: the scraping parameters of parser.books${SHOWN} were never seen (the service does not return them) and no manifest declares them: none are sent; pass --render or --param if the page needs them\n`,
    );
  });
});

describe('apply: the progress lines in a log', () => {
  it("print a failed call's error, quoting the service's answer, printable", async () => {
    const dir = await project({
      'nightly.yaml':
        'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n',
    });
    const service = nock(PIPELINE_ORIGIN);
    service.get('/api/projects').query(KEY_QUERY).reply(200, []);
    service.post('/api/projects').query(KEY_QUERY).reply(400, { error: HOSTILE });
    const run = await runScrapeform(['--chdir', dir, 'apply', '--auto-approve'], {
      env: { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      `project.nightly  failed: POST ${PIPELINE_ORIGIN}/api/projects?api_key=***: 400: ${SHOWN}\n`,
    );
    expect(run.stdout).toContain(`400: ${SHOWN}`);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
