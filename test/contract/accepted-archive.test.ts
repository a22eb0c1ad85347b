import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import {
  KEY_QUERY,
  NOCK_ENV,
  PIPELINE_ORIGIN,
  SENTINEL_KEY,
  useNock,
  withUnmatched,
} from '../helpers/api.js';
import { booksProjectYaml } from '../helpers/books-project.js';

// Review: a 202 Accepted to a project's archive was taken as done and the project dropped from state. A service that
// archives later (or not at all) left it running on its schedule, paid per page, with no state or manifest naming it.
// Now it is read by id: one still shown stays in state, marked archiving, and the next plan archives it again (a free
// call, consented to already) or drops it once the service no longer shows it.
useNock();

const folder = contractFolder('scrapeform-accepted-archive-');
const { statePath, readState } = folder;

function scrapeform(args: string[]) {
  return runScrapeform([...args, '--state', statePath(), folder.dir()], { env: NOCK_ENV });
}

const definition = (name: string) => ({
  name,
  projectType: 'urls',
  projectInput: { type: 'list', list: ['https://books.example/'] },
  schedulingEnabled: false,
});
const other = { id: 8, ...definition('other') };

/**
 * State recording the projects named, by id, none of them declared; unless `alone`, a manifest declares
 * project.other (id 8), which state records too.
 */
async function recorded(projects: Record<string, number>, alone = false): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  const resources = Object.fromEntries([
    ...Object.entries(projects).map(([name, id]) => [
      `project.${name}`,
      { kind: 'Project', id, name, definition: definition(name) },
    ]),
    ...(alone
      ? []
      : [['project.other', { kind: 'Project', id: 8, name: 'other', definition: definition('other') }]]),
  ]);
  await writeFile(statePath(), JSON.stringify({ format_version: 1, serial: 1, lineage: 'l', resources }));
  if (!alone) await writeFile(path.join(folder.dir(), 'other.yaml'), booksProjectYaml('other'));
}

const listing = (...projects: object[]) =>
  nock(PIPELINE_ORIGIN).get('/api/projects').query(KEY_QUERY).reply(200, projects);

describe('an archive answered 202 Accepted', () => {
  it('a project still shown after it stays in state, and the next apply archives it again without --allow-destroy', async () => {
    await recorded({ nightly: 7 });
    listing({ id: 7, ...definition('nightly') }, other);
    nock(PIPELINE_ORIGIN).delete('/api/projects/7').query(KEY_QUERY).reply(202, { message: 'queued' });
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/7')
      .query(KEY_QUERY)
      .reply(200, { id: 7, ...definition('nightly') });
    const { result: applied, unmatched } = await withUnmatched(() =>
      scrapeform(['apply', '--auto-approve', '--allow-destroy']),
    );
    expect(unmatched).toEqual([]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).toContain(
      'the service accepted the archive of project nightly (7) with 202 Accepted, but still shows it when read by id, not marked archived: it may still be archiving it, and until then it runs on its schedule; state keeps it, and the next plan archives it again, or drops it once the service no longer shows it',
    );
    const kept = (await readState()).resources['project.nightly'];
    expect(kept).toMatchObject({ kind: 'Project', id: 7 });
    expect(Date.parse(kept.archiving)).toBeGreaterThan(Date.parse('2026-01-01'));

    // Still shown: archived again, with consent given already.
    listing({ id: 7, ...definition('nightly') }, other);
    nock(PIPELINE_ORIGIN).delete('/api/projects/7').query(KEY_QUERY).reply(200, { message: 'archived' });
    const again = await withUnmatched(() => scrapeform(['apply', '--auto-approve']));
    expect(again.unmatched).toEqual([]);
    expect(again.result.code, again.result.stderr).toBe(0);
    expect(again.result.stdout).toContain(
      `# archive accepted at ${kept.archiving as string} (202), and the service still shows it: archived again`,
    );
    expect(again.result.stdout).not.toContain('destructive');
    expect((await readState()).resources['project.nightly']).toBeUndefined();

    listing(other);
    const empty = await withUnmatched(() => scrapeform(['plan']));
    expect(empty.unmatched).toEqual([]);
    expect(empty.result.stdout).toContain('No changes.');
    expect(JSON.stringify(await readState()) + applied.stdout + applied.stderr).not.toContain(SENTINEL_KEY);
  });

  it('a project a read by id then answers 404 for is dropped at once, with no warning', async () => {
    await recorded({ nightly: 7 });
    listing({ id: 7, ...definition('nightly') }, other);
    nock(PIPELINE_ORIGIN).delete('/api/projects/7').query(KEY_QUERY).reply(202, '');
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).reply(404, { error: 'Not Found' });
    const { result, unmatched } = await withUnmatched(() =>
      scrapeform(['apply', '--auto-approve', '--allow-destroy']),
    );
    expect(unmatched).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('202 Accepted');
    expect((await readState()).resources['project.nightly']).toBeUndefined();
  });

  it('a read by id that fails keeps it in state too, saying why', async () => {
    await recorded({ nightly: 7 });
    listing({ id: 7, ...definition('nightly') }, other);
    nock(PIPELINE_ORIGIN).delete('/api/projects/7').query(KEY_QUERY).reply(202, '');
    nock(PIPELINE_ORIGIN).get('/api/projects/7').query(KEY_QUERY).times(4).reply(500, { error: 'boom' });
    const { result } = await withUnmatched(() =>
      scrapeform(['apply', '--auto-approve', '--allow-destroy', '--timeout', '2s']),
    );
    expect(result.stdout + result.stderr).toContain(
      'the service accepted the archive of project nightly (7) with 202 Accepted, but reading it by id to see whether it is archived failed (',
    );
    expect((await readState()).resources['project.nightly']).toMatchObject({ id: 7 });
  });

  it('gone by the next plan, two of them and nothing else: dropped as archived (no drift, no --forget), the plan after empty', async () => {
    // Every project state records gone at once reads as another account's key, but not those whose archive was accepted.
    await recorded({ nightly: 7, weekly: 9 }, true);
    listing({ id: 7, ...definition('nightly') }, { id: 9, ...definition('weekly') });
    for (const id of [7, 9]) {
      nock(PIPELINE_ORIGIN).delete(`/api/projects/${id}`).query(KEY_QUERY).reply(202, '');
      nock(PIPELINE_ORIGIN)
        .get(`/api/projects/${id}`)
        .query(KEY_QUERY)
        .reply(200, { id, ...definition(id === 7 ? 'nightly' : 'weekly') });
    }
    const first = await withUnmatched(() => scrapeform(['apply', '--auto-approve', '--allow-destroy']));
    expect(first.unmatched).toEqual([]);
    expect(first.result.code, first.result.stderr).toBe(0);

    listing();
    for (const id of [7, 9])
      nock(PIPELINE_ORIGIN).get(`/api/projects/${id}`).query(KEY_QUERY).reply(404, { error: 'Not Found' });
    const { result, unmatched } = await withUnmatched(() => scrapeform(['apply', '--auto-approve']));
    expect(unmatched).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/# archived: the archive accepted at \S+ is done/);
    expect(result.stdout).not.toContain('outside scrapeform');
    expect(result.stdout + result.stderr).not.toContain('--forget');
    expect((await readState()).resources).toEqual({});

    // Nothing declared or recorded: nothing to read.
    const empty = await withUnmatched(() => scrapeform(['plan']));
    expect(empty.unmatched).toEqual([]);
    expect(empty.result.stdout).toContain('No changes.');
  });

  // Review: the mark outlived a manifest declaring the project again, and a later removal of that manifest archived
  // it (which cannot be undone) without --allow-destroy, by watch --heal too.
  it('declared again, the project loses its mark: a later removal of its manifest needs --allow-destroy again', async () => {
    await recorded({ nightly: 7 });
    listing({ id: 7, ...definition('nightly') }, other);
    nock(PIPELINE_ORIGIN).delete('/api/projects/7').query(KEY_QUERY).reply(202, '');
    nock(PIPELINE_ORIGIN)
      .get('/api/projects/7')
      .query(KEY_QUERY)
      .reply(200, { id: 7, ...definition('nightly') });
    expect((await scrapeform(['apply', '--auto-approve', '--allow-destroy'])).code).toBe(0);
    expect((await readState()).resources['project.nightly'].archiving).toBeDefined();

    const file = path.join(folder.dir(), 'nightly.yaml');
    await writeFile(file, booksProjectYaml('nightly'));
    listing({ id: 7, ...definition('nightly') }, other);
    const kept = await withUnmatched(() => scrapeform(['apply', '--auto-approve']));
    expect(kept.unmatched).toEqual([]);
    expect(kept.result.code, kept.result.stderr).toBe(0);
    expect(kept.result.stdout + kept.result.stderr).toContain(
      'project.nightly: the service accepted its archive at',
    );
    expect((await readState()).resources['project.nightly']).not.toHaveProperty('archiving');

    await rm(file);
    listing({ id: 7, ...definition('nightly') }, other);
    const refused = await withUnmatched(() => scrapeform(['apply', '--auto-approve']));
    expect(refused.unmatched).toEqual([]);
    expect(refused.result.code).toBe(3);
    expect(refused.result.stderr).toContain('--allow-destroy');
    expect((await readState()).resources['project.nightly']).toMatchObject({ id: 7 });
  });
});
