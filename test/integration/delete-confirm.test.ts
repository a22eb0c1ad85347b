import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv } from '../helpers/child-cli.js';
import { answeringDeletes } from '../helpers/emulator-front.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';

/**
 * A parser DELETE answered 404 counts as deleted only once a read by id answers 404 too: an answer is never proof
 * of absence by itself (DESIGN section 2). Here a proxy in front of the emulator answers every DELETE 404 while
 * the parser stays live, as a misrouted proxy or a replica that lags would.
 */
const FIELDS = '  title: { description: Book title }\n';

let h: EmulatorHarness | undefined;
let front: { close: () => void } | undefined;
afterEach(async () => {
  front?.close();
  front = undefined;
  await h?.emulator.close();
  h = undefined;
});

/** A front of the emulator answering every DELETE 404 without passing it on: the parser stays live. */
async function deleting404(upstream: string): Promise<string> {
  const answering = await answeringDeletes(upstream, 404, false);
  front = answering;
  return answering.url;
}

async function setUp(): Promise<{ ws: TestWorkspace; harness: EmulatorHarness; id: string }> {
  h = await startTestEmulator({});
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(FIELDS) });
  await ws.converge();
  const recorded = (await ws.state()).resources['parser.books'];
  if (recorded?.kind !== 'Parser') throw new Error('not recorded');
  return { ws, harness: h, id: recorded.id };
}

function apply(ws: TestWorkspace, url: string, extra: string[] = []): ReturnType<typeof runScrapeform> {
  return runScrapeform(
    [
      'apply',
      path.join(ws.dir, 'manifests'),
      '--auto-approve',
      '--allow-destroy',
      '--state',
      ws.backend.location,
      ...extra,
    ],
    { env: emulatorEnv(url, EMULATOR_KEY) },
  );
}

const unconfirmed = (id: string): string =>
  `the service answered 404 to the delete of parser ${id} but still shows it when read by id: it was not deleted`;
const HINT =
  'state still records it: apply again later, or delete it in the ScraperAPI dashboard (check SCRAPEFORM_PARSER_URL and any proxy if every delete answers 404)';

describe('a parser delete answered 404', () => {
  it('while a read by id still shows it: not dropped from state, the change fails; a later apply deletes it', async () => {
    const { ws, harness, id } = await setUp();
    await ws.write({});
    const run = await apply(ws, await deleting404(harness.emulator.url));
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(`✗ parser.books delete ${id}: ${unconfirmed(id)}`);
    expect(run.stdout).toContain(`hint: ${HINT}`);
    expect((await ws.state()).resources['parser.books']).toMatchObject({ kind: 'Parser', id });
    expect(harness.emulator.parsers.parsers.has(id)).toBe(true);

    const again = await apply(ws, harness.emulator.url);
    expect(again.code, again.stderr).toBe(0);
    expect((await ws.state()).resources).toEqual({});
    expect(harness.emulator.parsers.parsers.has(id)).toBe(false);
  });

  it('the old parser of a replace: kept in state as the one the replace still deletes; the next apply finishes it', async () => {
    const { ws, harness, id } = await setUp();
    await ws.write({ 'books.yaml': bookParser(FIELDS).replace(`, ${BOOK_B}]`, ']') });
    const run = await apply(ws, await deleting404(harness.emulator.url));
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain(unconfirmed(id));
    const recorded = (await ws.state()).resources['parser.books'];
    if (recorded?.kind !== 'Parser') throw new Error('not recorded');
    expect(recorded.id).not.toBe(id);
    expect(recorded.replacing).toEqual({ oldId: id });
    expect(harness.emulator.parsers.parsers.has(id)).toBe(true);

    const again = await apply(ws, harness.emulator.url);
    expect(again.code, again.stderr).toBe(0);
    expect(harness.emulator.parsers.parsers.has(id)).toBe(false);
    const done = (await ws.state()).resources['parser.books'];
    expect(done).toMatchObject({ kind: 'Parser', id: recorded.id });
    expect(done).not.toHaveProperty('replacing');
    expect((await ws.plan()).status).toBe('no_changes');
  });

  it('the new parser of a replace that FAILED: kept in state as a half-done replace, which the next apply finishes', async () => {
    const { ws, harness, id } = await setUp();
    harness.emulator.setFaults({ failGenerations: 1 });
    await ws.write({ 'books.yaml': bookParser(FIELDS).replace(`, ${BOOK_B}]`, ']') });
    const run = await apply(ws, await deleting404(harness.emulator.url));
    expect(run.code, run.stdout + run.stderr).toBe(1);
    const recorded = (await ws.state()).resources['parser.books'];
    if (recorded?.kind !== 'Parser') throw new Error('not recorded');
    expect(recorded.id).not.toBe(id);
    expect(recorded.replacing).toEqual({ oldId: id });
    expect(run.stdout).toContain(
      `✗ parser.books replace ${recorded.id} version 0: the new parser FAILED: version 0 FAILED: GenerationError: the model could not build a parser for these pages (injected fault); ${unconfirmed(recorded.id)}; the old parser ${id} stays`,
    );
    expect(harness.emulator.parsers.parsers.has(recorded.id)).toBe(true);

    const again = await apply(ws, harness.emulator.url);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(harness.emulator.parsers.parsers.has(recorded.id)).toBe(false);
    expect(harness.emulator.parsers.parsers.has(id)).toBe(false);
    expect((await ws.plan()).status).toBe('no_changes');
  });

  it('and a read by id answering 404 too: deleted, dropped from state', async () => {
    const { ws, harness, id } = await setUp();
    harness.emulator.parsers.parsers.delete(id);
    await ws.write({});
    const run = await apply(ws, await deleting404(harness.emulator.url));
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect((await ws.state()).resources).toEqual({});
  });
});
