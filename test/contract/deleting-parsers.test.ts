import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, NOCK_ENV, PARSER_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';

/**
 * Parsers whose DELETE the service accepted (202) and still showed are recorded in state's `deleting`. While the
 * service still shows one, plans never adopt it, never count it as a name sharer or an unmanaged object, and never
 * delete it again; a manifest declaring its name gets a create, with a warning naming the parser being deleted. The
 * record leaves state at the next apply once a list no longer shows it and a read by id answers 404.
 */
useNock();

const folder = contractFolder('scrapeform-deleting-parsers-');
const { statePath, readState } = folder;

const urls = ['https://books.example/a.html'];
const definition = { urls, scraperParams: {}, fields: [{ name: 'title', description: 'Book title' }] };
const manifest = (name: string): string =>
  `kind: Parser\nname: ${name}\nurls: [${urls[0]}]\nfields:\n  title: { description: Book title }\n`;
const summary = (id: string, name: string, status = 'FINISHED') => ({
  id,
  name,
  status,
  error: null,
  generated_at: null,
  version: 0,
});
const details = (name: string) => ({
  name,
  status: 'FINISHED',
  error: null,
  version: 0,
  fields: [{ name: 'title', type: 'text' }],
});

/** An ISO time `minutes` and 20 seconds before now: whole minutes stay exact for the length of a test. */
const minutesAgo = (minutes: number): string =>
  new Date(Date.now() - minutes * 60_000 - 20_000).toISOString();

/**
 * State managing parser.other (p-2), with books (p-1) being deleted since `since`; other.yaml declares other, and
 * books.yaml books when `declared`.
 */
async function deletingBooks(since: string, declared: boolean): Promise<void> {
  await mkdir(path.join(folder.dir(), '.scrapeform'), { recursive: true });
  const resources = {
    'parser.other': {
      kind: 'Parser',
      id: 'p-2',
      name: 'other',
      version: 0,
      definition,
      descriptionsKnown: true,
    },
  };
  const deleting = { 'p-1': { name: 'books', since } };
  await writeFile(
    statePath(),
    JSON.stringify({ format_version: 1, serial: 1, lineage: 'l', resources, deleting }),
  );
  await writeFile(path.join(folder.dir(), 'other.yaml'), manifest('other'));
  // `adopt: true`: an adoption would need no consent, so only the plan's own rule keeps p-1 from being adopted.
  if (declared) await writeFile(path.join(folder.dir(), 'books.yaml'), `${manifest('books')}adopt: true\n`);
}

function run(command: string, extra: string[] = []) {
  const dir = command === 'status' ? [] : [folder.dir()];
  return runScrapeform([command, ...extra, '--state', statePath(), ...dir], { env: NOCK_ENV });
}

function lists(parsers: unknown[]): void {
  nock(PARSER_ORIGIN)
    .get('/parsers')
    .query(KEY_QUERY)
    .reply(200, [...parsers, summary('p-2', 'other')]);
}

const stillShown = (minutes: number, since: string): string =>
  `warning: parser books (p-1) is still shown ${minutes} minutes after the service accepted its delete (${since}); nothing is planned for it`;

describe('plan: a parser the service is still deleting', () => {
  it('whose name a manifest declares: a create with a warning naming it, never an adoption; after apply a plan is empty', async () => {
    const since = minutesAgo(5);
    await deletingBooks(since, true);
    lists([summary('p-1', 'books')]);
    const planned = await run('plan', ['--json']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as {
      resource_changes: { address: string; action: string }[];
      drift: unknown[];
      warnings: string[];
    };
    expect(plan.resource_changes.map((c) => [c.address, c.action])).toEqual([['parser.books', 'create']]);
    expect(plan.drift).toEqual([]);
    expect(plan.warnings).toEqual([
      stillShown(5, since).replace('warning: ', ''),
      `parser.books: a new parser "books" is created: the parser of that name the service is still deleting (p-1, its delete accepted at ${since}) is not adopted, so two parsers of this name are listed until the service finishes the delete`,
    ]);

    // Applied without waiting for the generation: a POST, never a PATCH or a DELETE of p-1.
    lists([summary('p-1', 'books')]);
    nock(PARSER_ORIGIN)
      .post('/parsers', (body: { name?: string }) => body.name === 'books')
      .query(true)
      .reply(200, { id: 'p-3', name: 'books', status: 'GENERATING', version: 0 });
    const applied = await run('apply', ['--auto-approve', '--allow-adopt', '--no-wait']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const state = await readState();
    expect(state.resources['parser.books']).toMatchObject({ kind: 'Parser', id: 'p-3' });
    expect(state.deleting).toEqual({ 'p-1': { name: 'books', since } });

    lists([summary('p-1', 'books'), summary('p-3', 'books')]);
    const again = await run('plan', ['--detailed-exitcode']);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout + again.stderr).toContain(stillShown(5, since));
    expect(again.stdout + again.stderr).not.toContain('is not managed by scrapeform');
    expect(again.stdout + again.stderr + applied.stdout + applied.stderr).not.toContain(SENTINEL_KEY);
  });

  it('no manifest declares it: no drift line, not unmanaged, nothing planned; status shows it DELETING', async () => {
    const since = minutesAgo(1);
    await deletingBooks(since, false);
    lists([summary('p-1', 'books')]);
    const planned = await run('plan', ['--show-unmanaged', '--detailed-exitcode']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toContain('No changes.');
    expect(planned.stdout + planned.stderr).toContain(
      `warning: parser books (p-1) is still shown 1 minute after the service accepted its delete (${since}); nothing is planned for it`,
    );
    expect(planned.stdout + planned.stderr).not.toContain('Unmanaged');

    lists([summary('p-1', 'books')]);
    const drift = await run('drift', ['--json']);
    expect(drift.code, drift.stdout + drift.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(drift.stdout))).not.toContain('p-1');

    lists([summary('p-1', 'books')]);
    const status = await run('status', ['--json']);
    expect(status.code, status.stdout + status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toContainEqual({
      address: '(deleting) books',
      id: 'p-1',
      version: 0,
      status: `DELETING (the service accepted its delete at ${since}, 1 minute ago, and still shows it)`,
      drift: false,
    });
  });

  it('shown a day after its delete was accepted: the warning says to check it in the dashboard', async () => {
    const since = minutesAgo(24 * 60 + 5);
    await deletingBooks(since, false);
    lists([summary('p-1', 'books')]);
    const planned = await run('plan');
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout + planned.stderr).toContain(
      `${stillShown(24 * 60 + 5, since)}: a delete still not done after a day has most likely stopped: check it in the ScraperAPI dashboard, and delete it there if it is still listed`,
    );
  });

  it('no longer listed but still shown by id: nothing planned, the record stays', async () => {
    const since = minutesAgo(2);
    await deletingBooks(since, true);
    lists([]);
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(200, details('books'));
    nock(PARSER_ORIGIN).post('/parsers').query(true).reply(200, { id: 'p-3', name: 'books', version: 0 });
    const applied = await run('apply', ['--auto-approve', '--no-wait']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).toContain(stillShown(2, since));
    expect((await readState()).deleting).toEqual({ 'p-1': { name: 'books', since } });
  });

  it('gone (not listed, and a read by id answers 404): plan alone writes nothing; the next apply drops the record', async () => {
    const since = minutesAgo(3);
    await deletingBooks(since, false);
    const before = await readFile(statePath(), 'utf8');
    lists([]);
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(404, { error: 'Not Found' });
    const planned = await run('plan', ['--detailed-exitcode']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout + planned.stderr).not.toContain('p-1');
    expect(await readFile(statePath(), 'utf8')).toBe(before);

    lists([]);
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(404, { error: 'Not Found' });
    const applied = await run('apply', ['--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    const state = await readState();
    expect(state).not.toHaveProperty('deleting');
    expect(Object.keys(state.resources)).toEqual(['parser.other']);
  });

  it('gone with a 410 by id: the next apply drops the record', async () => {
    await deletingBooks(minutesAgo(3), false);
    lists([]);
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(410, { error: 'Gone' });
    const applied = await run('apply', ['--auto-approve']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(await readState()).not.toHaveProperty('deleting');
  });

  it('not listed, and a read by id that fails otherwise: the plan goes on, saying so; the record stays', async () => {
    const since = minutesAgo(3);
    await deletingBooks(since, true);
    lists([]);
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(400, { error: 'boom' });
    nock(PARSER_ORIGIN).post('/parsers').query(true).reply(200, { id: 'p-3', name: 'books', version: 0 });
    const applied = await run('apply', ['--auto-approve', '--no-wait']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout + applied.stderr).toContain(
      `parser books (p-1), whose delete the service accepted at ${since}, is not listed and could not be read by id (GET ${PARSER_ORIGIN}/parsers/p-1?api_key=***: 400: boom): it stays recorded as being deleted, nothing is planned for it, and the next plan reads it again`,
    );
    const state = await readState();
    expect(state.deleting).toEqual({ 'p-1': { name: 'books', since } });
    expect(state.resources['parser.books']?.id).toBe('p-3');
    expect(applied.stdout + applied.stderr).not.toContain(SENTINEL_KEY);
  });

  it('not listed, unread by id a day after its delete was accepted: the warning says to check it in the dashboard', async () => {
    const since = minutesAgo(24 * 60 + 1);
    await deletingBooks(since, false);
    lists([]);
    nock(PARSER_ORIGIN).get('/parsers/p-1').query(KEY_QUERY).reply(403, { error: 'Forbidden' });
    const planned = await run('plan');
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout + planned.stderr).toContain(
      `parser books (p-1), whose delete the service accepted at ${since}, is not listed and could not be read by id (GET ${PARSER_ORIGIN}/parsers/p-1?api_key=***: 403: forbidden or out of credits at the AI Parser service: Forbidden): it stays recorded as being deleted, nothing is planned for it, and the next plan reads it again; a delete still not done after a day has most likely stopped: check it in the ScraperAPI dashboard, and delete it there if it is still listed`,
    );
  });
});
