import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, PARSER_ORIGIN, SENTINEL_KEY, counted, useNock, withUnmatched } from '../helpers/api.js';

/**
 * Apply's generation wait reads a version's details when the list does not show it yet (a list lagging behind a
 * create, API-NOTES: nothing says a new object appears in the list at once). The published details example shows
 * neither `version` nor `fields` (API-NOTES): the wait needs only the status, and a plan reads the fields later.
 */
useNock();

const folder = contractFolder('scrapeform-wait-details-');
const { statePath: stateFile, readState } = folder;
const env = { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: PARSER_ORIGIN };
const manifest =
  'kind: Parser\nname: a\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n';

describe('apply: a generation whose details say FINISHED without fields', () => {
  it('the wait ends on the status: the create is applied, and the next plan is empty', async () => {
    await writeFile(path.join(folder.dir(), 'a.yaml'), manifest);
    const statePath = stateFile();
    // The plan's list, and every look of the wait: the new parser is not in the list yet.
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, []).persist();
    const posts = counted(nock(PARSER_ORIGIN).post('/parsers'), [201, { id: 'p-9', version: 0 }]);
    const reads = counted(nock(PARSER_ORIGIN).get('/parsers/p-9/0').query(KEY_QUERY), [
      200,
      {
        name: 'a',
        status: 'FINISHED',
        error: null,
        created_at: null,
        generated_at: null,
        example_result: [],
      },
    ]);
    const { result: run, unmatched } = await withUnmatched(() =>
      runScrapeform(['apply', '--auto-approve', '--state', statePath, folder.dir()], { env }),
    );
    expect([run.code, posts.n, unmatched]).toEqual([0, 1, []]);
    expect(reads.n).toBeGreaterThan(0);
    expect(run.stdout).toContain('✓ parser.a create p-9 version 0');
    expect(run.stdout + run.stderr).not.toContain(SENTINEL_KEY);
    const state = (await readState()) as {
      resources: Record<string, { version: number; pending?: unknown }>;
    };
    expect([state.resources['parser.a']?.version, state.resources['parser.a']?.pending]).toEqual([
      0,
      undefined,
    ]);

    nock.cleanAll();
    const made = [{ id: 'p-9', name: 'a', status: 'FINISHED', error: null, generated_at: null, version: 0 }];
    nock(PARSER_ORIGIN).get('/parsers').query(KEY_QUERY).reply(200, made);
    const { result: plan, unmatched: after } = await withUnmatched(() =>
      runScrapeform(['plan', '--json', '--state', statePath, folder.dir()], { env }),
    );
    expect([plan.code, after]).toEqual([0, []]);
    expect((JSON.parse(plan.stdout) as { status: string }).status).toBe('no_changes');
  });
});
