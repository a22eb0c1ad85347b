import { writeFile } from 'node:fs/promises';
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
import { booksProjectYaml, liveBooksProject } from '../helpers/books-project.js';

/**
 * Objects are adopted and created by name, compared as written. A live object whose name differs from the
 * manifest's only in case, spaces or Unicode normalisation (a name typed in a file saved as NFD, a service that
 * trims or normalises what it stores) read as no object of that name: a create was planned beside it, a paid
 * generation for a parser, a second project run on its schedule. Now the plan refuses, naming it.
 */
useNock();

const folder = contractFolder('scrapeform-near-names-');
const { statePath } = folder;

function apply() {
  return runScrapeform(['apply', '--auto-approve', '--allow-adopt', '--state', statePath(), folder.dir()], {
    env: NOCK_ENV,
  });
}

describe('plan: a live object named as the manifest but for case, spaces or Unicode normalisation', () => {
  it('a parser: neither adopted nor created, the plan names it, and nothing is sent', async () => {
    // The manifest's name decomposed (NFD, as macOS writes file names), the service's composed (NFC).
    const declared = 'Cafe\u0301 books';
    await writeFile(
      path.join(folder.dir(), 'p.yaml'),
      `kind: Parser\nname: ${declared}\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n`,
    );
    const live = { id: 'p-1', name: 'Caf\u00e9 Books', status: 'FINISHED', error: null, version: 0 };
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, [live]);
    const { result: run, unmatched } = await withUnmatched(() => apply());
    expect(unmatched).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain(
      `parser.${declared}: no live parser is named "${declared}", but parser p-1 is named "Caf\u00e9 Books", which differs from it only in case, spaces or Unicode normalisation: the service may hold it under that spelling, so it is neither adopted nor created (nothing is sent); to adopt it, write its name in the manifest as the service shows it, or give the manifest a name that differs otherwise; the plan as a whole stops here: to apply the rest meanwhile, plan with --exclude parser.${declared}`,
    );
  });

  it('a project: neither adopted nor created, the plan names it, and nothing is sent', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), booksProjectYaml('nightly'));
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'Nightly ', projectType: 'urls' }]);
    const { result: run, unmatched } = await withUnmatched(() => apply());
    expect(unmatched).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stderr).toContain(
      'project.nightly: no live project is named "nightly", but project 7 is named "Nightly ", which differs from it only in case, spaces or Unicode normalisation: the service may hold it under that spelling, so it is neither adopted nor created (nothing is sent); to adopt it, write its name in the manifest as the service shows it, or give the manifest a name that differs otherwise; the plan as a whole stops here: to apply the rest meanwhile, plan with --exclude project.nightly',
    );
  });

  it('a live object of the exact name besides it: adopted as before', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), booksProjectYaml('nightly'));
    const exact = liveBooksProject(8, 'nightly');
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'Nightly', projectType: 'urls' }, exact]);
    const run = await apply();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('✓ project.nightly adopt 8');
  });

  it('the way out the error gives: --exclude plans and applies the rest, sending nothing for it', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), booksProjectYaml('nightly'));
    await writeFile(path.join(folder.dir(), 'q.yaml'), booksProjectYaml('other'));
    const other = liveBooksProject(8, 'other');
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [{ id: 7, name: 'Nightly ', projectType: 'urls' }, other]);
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(
        [
          'apply',
          '--auto-approve',
          '--allow-adopt',
          '--exclude',
          'project.nightly',
          '--state',
          statePath(),
          folder.dir(),
        ],
        { env: NOCK_ENV },
      ),
    );
    expect(unmatched).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('✓ project.other adopt 8');
    expect(run.stdout + run.stderr).not.toContain('differs from it only in case');
  });

  it('a create whose answer is lost, the list then showing only a near name: not sent again, the error names it', async () => {
    await writeFile(path.join(folder.dir(), 'p.yaml'), booksProjectYaml('nightly'));
    nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, []);
    nock(PIPELINE_ORIGIN).post('/api/projects').query(KEY_QUERY).reply(502, 'Bad Gateway');
    nock(PIPELINE_ORIGIN)
      .get('/api/projects')
      .query(KEY_QUERY)
      .reply(200, [liveBooksProject(9, 'Nightly ')]);
    const { result: run, unmatched } = await withUnmatched(() => apply());
    expect(unmatched).toEqual([]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(
      'and the list shows no object of that name, but 9 named "Nightly ", which differs from it only in case, spaces or Unicode normalisation: it may be the one this create made, stored under that spelling; it was not sent again',
    );
  });
});
