import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv } from '../helpers/child-cli.js';
import { answeringDeletes } from '../helpers/emulator-front.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';

/**
 * A parser DELETE answered 202 Accepted (the seed says 204): a delete that landed, perhaps not done yet. A proxy in
 * front of the emulator answers every DELETE 202, forwarding it (the delete done at once) or not (taken, not done:
 * the parser still shown). Either way apply succeeds and a second plan is empty: no second DELETE, no create.
 */
const FIELDS = '  title: { description: Book title }\n';
const OTHER = bookParser(FIELDS).replace('name: books', 'name: other');

let h: EmulatorHarness | undefined;
let front: { close: () => void } | undefined;
afterEach(async () => {
  front?.close();
  front = undefined;
  await h?.emulator.close();
  h = undefined;
});

/** A front of the emulator answering every DELETE 202, after passing it on when `forward`. */
async function accepting(upstream: string, forward: boolean): Promise<{ url: string; deletes: string[] }> {
  const answering = await answeringDeletes(upstream, 202, forward);
  front = answering;
  return answering;
}

/** parser.books applied, with parser.other beside it (so every plan still reads the parser list). */
async function setUp(): Promise<{ ws: TestWorkspace; harness: EmulatorHarness; id: string }> {
  h = await startTestEmulator({});
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(FIELDS), 'other.yaml': OTHER });
  await ws.converge();
  const recorded = (await ws.state()).resources['parser.books'];
  if (recorded?.kind !== 'Parser') throw new Error('not recorded');
  return { ws, harness: h, id: recorded.id };
}

/** parser.books with one example URL fewer: a replace (its URLs cannot be changed in place). */
function writeReplace(ws: TestWorkspace): Promise<void> {
  return ws.write({ 'books.yaml': bookParser(FIELDS).replace(`, ${BOOK_B}]`, ']'), 'other.yaml': OTHER });
}

function run(ws: TestWorkspace, command: 'apply' | 'plan', url: string): ReturnType<typeof runScrapeform> {
  const flags = command === 'apply' ? ['--auto-approve', '--allow-destroy'] : ['--detailed-exitcode'];
  return runScrapeform([command, path.join(ws.dir, 'manifests'), ...flags, '--state', ws.backend.location], {
    env: emulatorEnv(url, EMULATOR_KEY),
  });
}

const stillShown = (id: string): string =>
  `warning: the service accepted the delete of parser books (${id}) (202 Accepted) but still shows it when read by id: it may still be deleting it; scrapeform no longer manages it and records it as being deleted: no plan adopts, deletes or counts it as unmanaged, and each plan says while the service still shows it`;

/** The plan as JSON: its changes as [address, action], and its warnings. */
async function planJson(
  ws: TestWorkspace,
  url: string,
): Promise<{ changes: string[][]; warnings: string[] }> {
  const planned = await runScrapeform(
    ['plan', path.join(ws.dir, 'manifests'), '--json', '--state', ws.backend.location],
    { env: emulatorEnv(url, EMULATOR_KEY) },
  );
  expect(planned.code, planned.stdout + planned.stderr).toBe(0);
  const plan = JSON.parse(planned.stdout) as {
    resource_changes: { address: string; action: string }[];
    warnings: string[];
  };
  return { changes: plan.resource_changes.map((c) => [c.address, c.action]), warnings: plan.warnings };
}

describe('a parser delete answered 202 Accepted', () => {
  it('done at once: apply succeeds without a warning, and a second plan is empty', async () => {
    const { ws, harness, id } = await setUp();
    await ws.write({ 'other.yaml': OTHER });
    const front = await accepting(harness.emulator.url, true);
    const applied = await run(ws, 'apply', front.url);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).not.toContain('warning');
    expect(front.deletes).toEqual([`/parsers/${id}`]);
    // The call's line carries the status the service gave, 202, not the seed's 204.
    expect(applied.stderr).toContain(`parser.books  DELETE /parsers/${id} -> 202`);
    expect(harness.emulator.parsers.parsers.has(id)).toBe(false);
    expect(Object.keys((await ws.state()).resources)).toEqual(['parser.other']);
    const again = await run(ws, 'plan', front.url);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(front.deletes).toHaveLength(1);
  });

  it('taken but not done (the parser still shown): a warning naming it, dropped from state, and a second plan is empty; declared again, a create, and the record goes once the delete is done', async () => {
    const { ws, harness, id } = await setUp();
    await ws.write({ 'other.yaml': OTHER });
    const front = await accepting(harness.emulator.url, false);
    const applied = await run(ws, 'apply', front.url);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(stillShown(id));
    expect(harness.emulator.parsers.parsers.has(id)).toBe(true);
    expect(Object.keys((await ws.state()).resources)).toEqual(['parser.other']);
    const again = await run(ws, 'plan', front.url);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(front.deletes).toHaveLength(1);
    const since = (await ws.state()).deleting?.[id]?.since;
    expect(again.stdout + again.stderr).toContain(
      `warning: parser books (${id}) is still shown 0 minutes after the service accepted its delete (${since}); nothing is planned for it`,
    );

    // The manifest declares books again (a revert) while the service still shows the parser it is deleting: a
    // create beside it, never its adoption; applied, a second plan is empty.
    await ws.write({ 'books.yaml': bookParser(FIELDS), 'other.yaml': OTHER });
    const planned = await planJson(ws, front.url);
    expect(planned.changes).toEqual([['parser.books', 'create']]);
    expect(planned.warnings).toContain(
      `parser.books: a new parser "books" is created: the parser of that name the service is still deleting (${id}, its delete accepted at ${since}) is not adopted, so two parsers of this name are listed until the service finishes the delete`,
    );
    const recreated = await run(ws, 'apply', front.url);
    expect(recreated.code, recreated.stdout + recreated.stderr).toBe(0);
    const books = (await ws.state()).resources['parser.books'];
    if (books?.kind !== 'Parser') throw new Error('not recorded');
    expect(books.id).not.toBe(id);
    const empty = await run(ws, 'plan', front.url);
    expect(empty.code, empty.stdout + empty.stderr).toBe(0);

    // The service finishes the delete: the next apply (nothing to change) drops the record, and a plan is empty.
    harness.emulator.parsers.parsers.delete(id);
    const settled = await run(ws, 'apply', front.url);
    expect(settled.code, settled.stdout + settled.stderr).toBe(0);
    const state = await ws.state();
    expect(state).not.toHaveProperty('deleting');
    expect(Object.keys(state.resources).sort()).toEqual(['parser.books', 'parser.other']);
    const last = await run(ws, 'plan', front.url);
    expect(last.code, last.stdout + last.stderr).toBe(0);
    expect(front.deletes).toHaveLength(1);
  });

  it('the old parser of a replace, still shown: the replace completes, and a second plan is empty', async () => {
    const { ws, harness, id } = await setUp();
    await writeReplace(ws);
    const front = await accepting(harness.emulator.url, false);
    const applied = await run(ws, 'apply', front.url);
    expect(applied.code, applied.stdout + applied.stderr).toBe(0);
    expect(applied.stdout).toContain(stillShown(id));
    const recorded = (await ws.state()).resources['parser.books'];
    if (recorded?.kind !== 'Parser') throw new Error('not recorded');
    expect(recorded.id).not.toBe(id);
    expect(recorded).not.toHaveProperty('replacing');
    const again = await run(ws, 'plan', front.url);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(front.deletes).toEqual([`/parsers/${id}`]);
  });

  it("a replace's new parser that FAILED, its delete taken but not done: the old parser stays, the try counts, and the next apply replaces it", async () => {
    const { ws, harness, id } = await setUp();
    harness.emulator.setFaults({ failGenerations: 1 });
    await writeReplace(ws);
    const front = await accepting(harness.emulator.url, false);
    const applied = await run(ws, 'apply', front.url);
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    const created = front.deletes.map((d) => d.replace('/parsers/', ''));
    expect(created).toHaveLength(1);
    const newId = created[0] as string;
    expect(newId).not.toBe(id);
    expect(harness.emulator.parsers.parsers.has(newId)).toBe(true);
    expect(applied.stdout).toContain(stillShown(newId));
    // The old parser stays managed, with the failed try counted; the new one is no longer managed.
    const recorded = (await ws.state()).resources['parser.books'];
    expect(recorded).toMatchObject({ kind: 'Parser', id, failed: { attempts: 1 } });
    expect(recorded).not.toHaveProperty('replacing');

    // The next apply (no faults left) makes the replace again: one new parser, the old one deleted.
    const again = await run(ws, 'apply', front.url);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    const replaced = (await ws.state()).resources['parser.books'];
    if (replaced?.kind !== 'Parser') throw new Error('not recorded');
    expect([replaced.id === id, replaced.id === newId]).toEqual([false, false]);
    expect(front.deletes).toEqual([`/parsers/${newId}`, `/parsers/${id}`]);
    const last = await run(ws, 'plan', front.url);
    expect(last.code, last.stdout + last.stderr).toBe(0);
  });

  it("a replace's new parser that FAILED, its delete answered 200 with its own FAILED record and not done: taken as a 202 (the old parser stays, the next apply replaces it)", async () => {
    const { ws, harness, id } = await setUp();
    harness.emulator.setFaults({ failGenerations: 1 });
    await writeReplace(ws);
    const record = { name: 'books', status: 'FAILED', error: 'ExtractionError', version: 0 };
    const answering = await answeringDeletes(harness.emulator.url, 200, false, record);
    front = answering;
    const applied = await run(ws, 'apply', answering.url);
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    const newId = answering.deletes.map((d) => d.replace('/parsers/', ''))[0] as string;
    expect(newId).not.toBe(id);
    expect(applied.stdout).toContain(
      `warning: the service answered the delete of parser books (${newId}) with 200 and the parser's own record, its error "ExtractionError" but still shows it when read by id`,
    );
    const state = await ws.state();
    expect(state.resources['parser.books']).toMatchObject({ kind: 'Parser', id, failed: { attempts: 1 } });
    expect(Object.keys(state.deleting ?? {})).toEqual([newId]);

    // The next apply (no faults left, the deletes now done) replaces it; then a plan is empty.
    answering.close();
    const forwarding = await answeringDeletes(harness.emulator.url, 200, true, record);
    front = forwarding;
    const again = await run(ws, 'apply', forwarding.url);
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(forwarding.deletes).toEqual([`/parsers/${id}`]);
    const last = await run(ws, 'plan', forwarding.url);
    expect(last.code, last.stdout + last.stderr).toBe(0);
  });
});
