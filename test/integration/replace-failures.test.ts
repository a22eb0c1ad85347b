import { afterAll, beforeEach, beforeAll, describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_B, bookParser, TestWorkspace } from '../helpers/workspace.js';

const FIELDS = `  title: { description: Book title, selector: h1 }
  price: { description: Price including tax, type: number }
`;
/** The same parser with one example page less: a replace. */
const ONE_PAGE = bookParser(FIELDS).replace(`, ${BOOK_B}]`, ']');

let h: EmulatorHarness;
let ws: TestWorkspace;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());
beforeEach(async () => {
  h.emulator.reset();
  ws = await TestWorkspace.create(h);
});

/** Every POST /parsers the service received (each one a new parser: 30,000 credits). */
function parserCreates(): number {
  return h.emulator.requestLog.filter((e) => e.method === 'POST' && /^\/parsers(\?|$)/.test(e.path)).length;
}

describe('a replace whose new parser FAILS', () => {
  it('the same definition that FAILED twice is not replaced again by itself, as an update would not be', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    const oldId = String((await ws.state()).resources['parser.books']?.id);
    h.emulator.setFaults({ failGenerations: 10 });
    await ws.write({ 'books.yaml': ONE_PAGE });
    const first = await ws.applyChanges();
    expect(first.results[0]).toMatchObject({ ok: false, error: { code: 'apply.generation-failed' } });
    // Retried once by the next plan, as any FAILED version is.
    const retry = await ws.plan();
    expect(retry.resource_changes.map((c) => c.action)).toEqual(['replace']);
    expect((await ws.applyChanges(retry)).results[0]?.ok).toBe(false);
    const after = await ws.plan();
    expect(after.status).toBe('no_changes');
    expect(after.warnings).toContainEqual(
      expect.stringMatching(
        /^parser\.books: version 0 FAILED 2 times with the definition the manifests ask for \(GenerationError.*\); not retried again by itself: fix the manifest, or try once more with --reassert parser\.books$/,
      ),
    );
    // The old parser stays, alone: the failed new ones were deleted; three creates in all, none since.
    expect([...h.emulator.parsers.parsers.keys()]).toEqual([oldId]);
    expect(parserCreates()).toBe(3);

    // --reassert tries once more; once it works the replace is done and the next plan is empty.
    h.emulator.setFaults({ failGenerations: 0 });
    const forced = await ws.plan({ reassert: ['parser.books'] });
    expect(forced.resource_changes.map((c) => c.action)).toEqual(['replace']);
    expect((await ws.applyChanges(forced)).results[0]?.ok).toBe(true);
    expect((await ws.plan()).status).toBe('no_changes');
    expect(h.emulator.parsers.parsers.size).toBe(1);
    expect(h.emulator.parsers.parsers.has(oldId)).toBe(false);
    expect(parserCreates()).toBe(4);
  });

  it('a replace that FAILED once and is then reverted in the manifest plans nothing and warns of no failure', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    h.emulator.setFaults({ failGenerations: 1 });
    await ws.write({ 'books.yaml': ONE_PAGE });
    expect((await ws.applyChanges()).results[0]?.ok).toBe(false);
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    const plan = await ws.plan();
    expect(plan.status).toBe('no_changes');
    expect(plan.warnings).toEqual([]);
    expect(h.emulator.requestLog.filter((e) => e.method === 'PATCH')).toEqual([]);
  });

  it('a replace whose wait timed out and whose new parser then FAILED is not retried for ever either', async () => {
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    h.emulator.setFaults({ generationDelayMs: 600_000, failGenerations: 10 });
    await ws.write({ 'books.yaml': ONE_PAGE });
    const timedOut = await applyPlan({
      plan: await ws.plan(),
      clients: ws.clients,
      backend: ws.backend,
      state: await ws.state(),
      pollMinMs: 5,
      pollMaxMs: 20,
      waitTimeoutMs: 200,
    });
    expect(timedOut.results[0]?.error?.code).toBe('apply.wait-timeout');
    h.emulator.setFaults({ generationDelayMs: null });
    h.emulator.clock.advance(600_000);
    await h.emulator.idle();
    // The interrupted replace is tried again (its new parser FAILED: the first try), and that try FAILS: the second.
    const retry = await ws.plan();
    expect(retry.resource_changes.map((c) => c.action)).toEqual(['replace']);
    expect((await ws.applyChanges(retry)).results[0]?.error?.code).toBe('apply.generation-failed');
    const after = await ws.plan();
    expect(after.status).toBe('no_changes');
    expect(after.warnings).toContainEqual(
      expect.stringMatching(
        /^parser\.books: version 0 FAILED 2 times with the definition the manifests ask for \(GenerationError.*\); not retried again by itself: fix the manifest, or try once more with --reassert parser\.books$/,
      ),
    );
    // The original and the first new parser (FAILED) stay until a new one is FINISHED; the retry's was deleted.
    // Two new parsers in all, as for a replace whose waits all ended (the test above): the unseen failure counts.
    expect(h.emulator.parsers.parsers.size).toBe(2);
    expect(parserCreates()).toBe(3);
  });

  it('a replace whose every wait times out, its new parser FAILING unseen each time, is not made again for ever', async () => {
    // Each run's wait ends before the generation does (a short --wait-timeout in CI), and the new parser then FAILS
    // where no run sees it. Each new parser started its count anew (refreshState skips a replace under way, and
    // every new parser is at version 0): every run paid for one more parser, 30,000 credits, without end.
    await ws.write({ 'books.yaml': bookParser(FIELDS) });
    await ws.converge();
    const original = String((await ws.state()).resources['parser.books']?.id);
    h.emulator.setFaults({ generationDelayMs: 600_000, failGenerations: 10 });
    await ws.write({ 'books.yaml': ONE_PAGE });
    const actions: string[][] = [];
    for (let run = 0; run < 5; run++) {
      const plan = await ws.plan();
      actions.push(plan.resource_changes.map((c) => c.action));
      if (plan.status === 'no_changes') break;
      // As apply does: what the previous run left is recorded first (refreshState), then the calls.
      const timedOut = await ws.applyChanges(plan, { waitTimeoutMs: 200 });
      expect(timedOut.results[0]?.error?.code).toBe('apply.wait-timeout');
      h.emulator.clock.advance(600_000);
      await h.emulator.idle();
    }
    // Tried as an update would be: the first new parser FAILED, one more try, and no third.
    expect(actions).toEqual([['replace'], ['replace'], []]);
    expect(parserCreates()).toBe(3);
    const after = await ws.plan();
    expect(after.warnings).toContainEqual(
      expect.stringMatching(
        /^parser\.books: version 0 FAILED 2 times with the definition the manifests ask for \(GenerationError.*\); not retried again by itself: fix the manifest, or try once more with --reassert parser\.books$/,
      ),
    );
    // Nothing orphaned: the original and both FAILED new parsers stay, in state, until a new one is FINISHED.
    expect(h.emulator.parsers.parsers.size).toBe(3);
    const recorded = (await ws.state()).resources['parser.books'];
    expect(
      recorded?.kind === 'Parser' ? [recorded.replacing?.oldId, ...(recorded.replacing?.also ?? [])] : [],
    ).toContain(original);
    h.emulator.setFaults({ generationDelayMs: null, failGenerations: 0 });
    const forced = await ws.plan({ reassert: ['parser.books'] });
    expect(forced.resource_changes.map((c) => c.action)).toEqual(['replace']);
    expect((await ws.applyChanges(forced)).results[0]?.ok).toBe(true);
    expect((await ws.plan()).status).toBe('no_changes');
    expect(h.emulator.parsers.parsers.size).toBe(1);
    expect(h.emulator.parsers.parsers.has(original)).toBe(false);
    expect(parserCreates()).toBe(4);
  });
});
