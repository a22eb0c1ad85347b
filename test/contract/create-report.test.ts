import { readFile, rm, writeFile } from 'node:fs/promises';
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
  useNock,
  withUnmatched,
} from '../helpers/api.js';

/**
 * What the apply report says of a create: the status its POST really got, and, when that answer did not give the
 * object (no answer, a 5xx, a 2xx that could not be read, a 303 See Other), how it was found afterwards. A reviewer reading `POST -> 201` for a
 * create whose answer was lost would take an ambiguous call for a clean one.
 */
useNock();

const folder = contractFolder('scrapeform-create-report-');
const { statePath } = folder;

const parserManifest =
  'kind: Parser\nname: a\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n';
const projectManifest =
  'kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/] }\nscrapingInterval: daily\n';
const summary = { id: 'p-9', name: 'a', status: 'FINISHED', error: null, generated_at: null, version: 0 };
const details = {
  name: 'a',
  status: 'FINISHED',
  version: 0,
  fields: [{ name: 'title', type: 'text' }],
  example_result: [],
};
const project = {
  id: 522,
  name: 'nightly',
  schedulingEnabled: true,
  scrapingInterval: 'daily',
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/'] },
};

type Post = (scope: nock.Interceptor) => void;

/** A parser create: the list before it is empty, the POST answered by `post`, then the list and details show p-9. */
function parserCreate(post: Post, seeOther = false): void {
  nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []);
  post(nock(PARSER_ORIGIN).post('/parsers').query(true));
  if (seeOther)
    nock(PARSER_ORIGIN)
      .get('/parsers/p-9')
      .query(KEY_QUERY)
      .reply(200, { ...details, status: 'GENERATING', fields: null });
  else nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [summary]);
  nock(PARSER_ORIGIN).get('/parsers/p-9/0').query(KEY_QUERY).reply(200, details).persist();
}

function projectCreate(post: Post): void {
  nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
  post(nock(PIPELINE_ORIGIN).post('/api/projects').query(true));
  nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, [project]);
  nock(PIPELINE_ORIGIN).get('/api/projects/522').query(KEY_QUERY).reply(200, project).persist();
}

/**
 * The same apply twice from an empty state: once for people (the progress log on stderr and the summary on stdout),
 * once as `--json` with `--markdown-report`.
 */
async function applyBoth(manifest: string, services: () => void) {
  await writeFile(path.join(folder.dir(), 'a.yaml'), manifest);
  const run = async (extra: string[]) => {
    await rm(path.dirname(statePath()), { recursive: true, force: true });
    services();
    const { result, unmatched } = await withUnmatched(() =>
      runScrapeform(['apply', '--auto-approve', ...extra, '--state', statePath(), folder.dir()], {
        env: { ...NOCK_ENV, CI: 'true' },
      }),
    );
    nock.cleanAll();
    expect([result.code, unmatched]).toEqual([0, []]);
    return result;
  };
  const human = await run([]);
  const report = path.join(folder.dir(), 'report.md');
  const json = await run(['--json', '--markdown-report', report]);
  const results = (JSON.parse(json.stdout) as { results: { calls: unknown[] }[] }).results;
  return {
    log: human.stderr.split('\n').filter((l) => / (POST|GET|PATCH|DELETE) /.test(l)),
    summary: human.stdout
      .slice(human.stdout.indexOf('\nApply '))
      .split('\n')
      .filter((l) => l.startsWith('  ')),
    calls: results.map((r) => r.calls),
    markdown: (await readFile(report, 'utf8')).split('\n').filter((l) => l.startsWith('| `')),
  };
}

describe('the apply report of a create', () => {
  it('answered 201: the POST and its 201, as before', async () => {
    const report = await applyBoth(parserManifest, () =>
      parserCreate((post) => post.reply(201, { id: 'p-9', version: 0 })),
    );
    expect(report).toEqual({
      log: ['parser.a  POST /parsers -> 201'],
      summary: ['  ✓ parser.a create p-9 version 0'],
      calls: [[{ method: 'POST', path: '/parsers', status: 201 }]],
      markdown: ['| `parser.a` | create | ok `p-9` version 0 |'],
    });
  });

  it('answered 500, then found by name in the list: the 500, and that the list showed it', async () => {
    const report = await applyBoth(parserManifest, () =>
      parserCreate((post) => post.reply(500, { error: 'Internal Server Error' })),
    );
    const line = 'POST /parsers -> 500; found afterwards by name in a list';
    expect(report).toEqual({
      log: [`parser.a  ${line}`],
      summary: ['  ✓ parser.a create p-9 version 0', `      ${line}`],
      calls: [[{ method: 'POST', path: '/parsers', status: 500, found: 'list' }]],
      markdown: [`| \`parser.a\` | create | ok \`p-9\` version 0 (\`${line}\`) |`],
    });
  });

  it('given no answer, then found by name in the list: no answer (status 0 in JSON), and that the list showed it', async () => {
    const report = await applyBoth(parserManifest, () =>
      parserCreate((post) =>
        post.replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })),
      ),
    );
    const line = 'POST /parsers -> no answer; found afterwards by name in a list';
    expect(report).toEqual({
      log: [`parser.a  ${line}`],
      summary: ['  ✓ parser.a create p-9 version 0', `      ${line}`],
      calls: [[{ method: 'POST', path: '/parsers', status: 0, found: 'list' }]],
      markdown: [`| \`parser.a\` | create | ok \`p-9\` version 0 (\`${line}\`) |`],
    });
  });

  it('answered 201 with a body that is not the object (the wrong shape), then found by name: that the 201 could not be read', async () => {
    const report = await applyBoth(parserManifest, () =>
      parserCreate((post) => post.reply(201, { ok: true })),
    );
    // A 201 alone would not say why the object needed finding: the answer is named as unreadable.
    const line = 'POST /parsers -> 201 (answer unreadable); found afterwards by name in a list';
    expect(report).toEqual({
      log: [`parser.a  ${line}`],
      summary: ['  ✓ parser.a create p-9 version 0', `      ${line}`],
      calls: [[{ method: 'POST', path: '/parsers', status: 201, answer: 'unreadable', found: 'list' }]],
      markdown: [`| \`parser.a\` | create | ok \`p-9\` version 0 (\`${line}\`) |`],
    });
  });

  it('of a project answered 201 with a body that is not JSON, then found by name: that the 201 could not be read', async () => {
    const report = await applyBoth(projectManifest, () =>
      projectCreate((post) => post.reply(201, '<html>Created</html>', { 'content-type': 'text/html' })),
    );
    const line = 'POST /api/projects -> 201 (answer unreadable); found afterwards by name in a list';
    expect(report).toEqual({
      log: [`project.nightly  ${line}`],
      summary: ['  ✓ project.nightly create 522', `      ${line}`],
      calls: [[{ method: 'POST', path: '/api/projects', status: 201, answer: 'unreadable', found: 'list' }]],
      markdown: [`| \`project.nightly\` | create | ok \`522\` (\`${line}\`) |`],
    });
  });

  it('answered 303 See Other naming the new parser: the 303, and that it was read at its Location', async () => {
    const report = await applyBoth(parserManifest, () =>
      parserCreate((post) => post.reply(303, 'See Other', { location: '/parsers/p-9' }), true),
    );
    const line = 'POST /parsers -> 303; found at the Location it named';
    expect(report).toEqual({
      log: [`parser.a  ${line}`],
      summary: ['  ✓ parser.a create p-9 version 0', `      ${line}`],
      calls: [[{ method: 'POST', path: '/parsers', status: 303, found: 'location' }]],
      markdown: [`| \`parser.a\` | create | ok \`p-9\` version 0 (\`${line}\`) |`],
    });
  });

  it('of a project answered 502, then found by name in the list', async () => {
    const report = await applyBoth(projectManifest, () =>
      projectCreate((post) => post.reply(502, 'Bad Gateway')),
    );
    const line = 'POST /api/projects -> 502; found afterwards by name in a list';
    expect(report).toEqual({
      log: [`project.nightly  ${line}`],
      summary: ['  ✓ project.nightly create 522', `      ${line}`],
      calls: [[{ method: 'POST', path: '/api/projects', status: 502, found: 'list' }]],
      markdown: [`| \`project.nightly\` | create | ok \`522\` (\`${line}\`) |`],
    });
  });
});
