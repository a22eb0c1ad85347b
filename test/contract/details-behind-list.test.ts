import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { contractFolder } from '../helpers/contract-folder.js';
import { KEY_QUERY, PARSER_ORIGIN, SENTINEL_KEY, counted, useNock } from '../helpers/api.js';

useNock();

const folder = contractFolder('scrapeform-details-behind-');
const { statePath } = folder;
const env = { SCRAPERAPI_API_KEY: SENTINEL_KEY, SCRAPEFORM_PARSER_URL: PARSER_ORIGIN };
const run = (args: string[]) =>
  runScrapeform([...args, '--state', statePath(), folder.dir()], { env }).finally(() => nock.cleanAll());

/** A manifest adding `price` to parser a, whose version 2 (made outside this state) already has it. */
async function priceWanted(recorded: boolean): Promise<void> {
  await mkdir(path.dirname(statePath()), { recursive: true });
  await writeFile(
    path.join(folder.dir(), 'a.yaml'),
    'kind: Parser\nname: a\nurls: [https://books.example/a.html]\nfields:\n  title: { description: Book title }\n  price: { description: Price, type: number }\n',
  );
  if (!recorded) return;
  await writeFile(
    statePath(),
    JSON.stringify({
      format_version: 1,
      serial: 1,
      lineage: 'details-behind',
      resources: {
        'parser.a': {
          kind: 'Parser',
          id: 'p-1',
          name: 'a',
          version: 1,
          definition: {
            urls: ['https://books.example/a.html'],
            scraperParams: {},
            fields: [{ name: 'title', description: 'Book title' }],
          },
          descriptionsKnown: true,
        },
      },
    }),
  );
}

const details = (version: number, fields: string[]) => ({
  name: 'a',
  status: 'FINISHED',
  version,
  fields: fields.map((name) => ({ name, type: 'text' })),
  example_result: [],
});

/**
 * The list shows version 2; the details of the latest version answer for version 1 (a replica lagging behind);
 * version 2 read by its number answers `byNumber`.
 */
function detailsLag(byNumber: [number, nock.Body]): void {
  nock(PARSER_ORIGIN)
    .get('/parsers')
    .query(KEY_QUERY)
    .reply(200, [{ id: 'p-1', name: 'a', status: 'FINISHED', error: null, generated_at: null, version: 2 }])
    .persist();
  nock(PARSER_ORIGIN)
    .get('/parsers/p-1')
    .query(KEY_QUERY)
    .reply(200, details(1, ['title']))
    .persist();
  nock(PARSER_ORIGIN)
    .get('/parsers/p-1/2')
    .query(KEY_QUERY)
    .reply(...byNumber)
    .persist();
}

const HELD_BACK =
  'warning: parser.a: the details of parser p-1 answer for version 1, below version 2 that its list shows (versions only go up: an answer lagging behind, not a change made outside scrapeform); nothing is planned for it until the service shows version 2 again';

describe('details of the latest version below the version the list shows', () => {
  it('version 2 not found by its number either: nothing is planned for the parser, and the plan says why', async () => {
    await priceWanted(true);
    detailsLag([404, { detail: 'Not found' }]);
    const plan = await run(['plan']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(HELD_BACK);
    expect(plan.stdout).not.toContain('version moved from 1 to 1');
    expect(plan.stdout).not.toContain('PATCH');
  });

  it('apply sends no PATCH based on the older version', async () => {
    await priceWanted(true);
    detailsLag([404, { detail: 'Not found' }]);
    const patches = counted(nock(PARSER_ORIGIN).patch((uri) => uri.startsWith('/parsers/p-1')));
    const applied = await run(['apply', '--auto-approve']);
    expect(patches.n).toBe(0);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(HELD_BACK);
  });

  it('version 2 read by its number: the plan is based on version 2, not on the lagging answer', async () => {
    await priceWanted(true);
    detailsLag([200, details(2, ['title', 'price'])]);
    const plan = await run(['plan']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(
      '  ! parser.a: version moved from 1 to 2 outside scrapeform; fields added: price\n',
    );
    expect(plan.stdout).toContain('    PATCH /parsers/p-1/2 {"modify_fields"');
    expect(plan.stdout).not.toContain('add_fields');
  });

  it('drift reports no drift for it, with the same reason, where it read "version moved from 1 to 1"', async () => {
    await priceWanted(true);
    detailsLag([404, { detail: 'Not found' }]);
    const drift = await run(['drift', '--json']);
    expect(drift.code).toBe(0);
    const report = JSON.parse(drift.stdout) as { status: string; drift: unknown[]; warnings: string[] };
    expect(report.status).toBe('no_drift');
    expect(report.drift).toEqual([]);
    expect(report.warnings).toEqual([
      'parser.a: the details of parser p-1 answer for version 1, below version 2 that its list shows (versions only go up: an answer lagging behind, not a change made outside scrapeform); not drift: run drift again once the service shows version 2 again',
    ]);
  });

  it('adopting: no add_fields of a field the listed version may have', async () => {
    await priceWanted(false);
    detailsLag([404, { detail: 'Not found' }]);
    const plan = await run(['plan']);
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain(HELD_BACK);
    expect(plan.stdout).not.toContain('PATCH');
  });
});
