import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ParsersClient } from '../../src/api/parsers-client.js';
import type { ApplyWorkspaceOptions } from '../../src/workspace/apply-workspace.js';
import { applyWorkspace } from '../../src/workspace/apply-workspace.js';
import { openWorkspace } from '../../src/workspace/open-workspace.js';
import { planWorkspace } from '../../src/workspace/plan-workspace.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const BOOK_A = 'https://books.example/catalogue/a-light-in-the-attic_1000/index.html';
const BOOK_B = 'https://books.example/catalogue/tipping-the-velvet_999/index.html';

const parserYaml = (name: string, revision: number, url = BOOK_A): string => `kind: Parser
name: ${name}
urls: [${url}]
fields:
  title: { description: "Book title from the main heading (revision ${revision})", selector: h1 }
`;

/** One line per parser call apply makes once the plan is made: `GET a/0`, with the parsers generating then. */
interface Call {
  line: string;
  generating: string[];
}

/**
 * When apply reads the example results the report compares: each parser's base version before its own PATCH (a
 * replace's old parser before its DELETE), its new version once that one is FINISHED while others still run, and
 * nothing with --no-wait. Against the emulator, the library apply the CLI calls, with the parser client watched.
 */
describe('the result reads of an apply', () => {
  let h: EmulatorHarness;
  let dir: string;
  beforeAll(async () => {
    h = await startTestEmulator();
  });
  afterAll(async () => {
    await h.emulator.close();
  });

  const nameOf = (id: string): string => h.emulator.parsers.parsers.get(id)?.name ?? id;
  const generatingNow = (): string[] =>
    [...h.emulator.parsers.parsers.values()]
      .filter((p) => p.versions.at(-1)?.status === 'GENERATING')
      .map((p) => p.name)
      .sort();

  async function write(files: Record<string, string>): Promise<void> {
    for (const [name, text] of Object.entries(files))
      await writeFile(path.join(dir, 'manifests', name), text);
  }

  /**
   * Applies the manifests. The reads in `failing` (`b/1`) throw: those in `before` from the plan on, those in
   * `after` once that parser's generation was seen FINISHED (the waits' own reads come before).
   */
  async function apply(
    options: Partial<ApplyWorkspaceOptions> = {},
    failing: { before?: string[]; after?: string[] } = {},
  ) {
    const ws = await openWorkspace({
      paths: [path.join(dir, 'manifests')],
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: h.emulator.url,
      },
      statePath: path.join(dir, 'state.json'),
    });
    const calls: Call[] = [];
    let planned = false;
    const finished = new Set<string>();
    const armed = (line: string): boolean => {
      const read = line.slice('GET '.length);
      const name = read.split('/')[0] ?? '';
      return (
        (failing.before ?? []).includes(read) || ((failing.after ?? []).includes(read) && finished.has(name))
      );
    };
    const note = (line: string): void => {
      if (planned) calls.push({ line, generating: generatingNow() });
    };
    const parsers = new Proxy(ws.clients.parsers, {
      get(target, prop) {
        if (prop === 'get')
          return async (...args: Parameters<ParsersClient['get']>) => {
            const line = `GET ${nameOf(args[0])}/${String(args[1])}`;
            note(line);
            if (planned && armed(line)) throw new Error(`injected: ${line} cannot be read`);
            return target.get(...args);
          };
        if (prop === 'update')
          return async (...args: Parameters<ParsersClient['update']>) => {
            note(`PATCH ${nameOf(args[0])}/${args[1]}`);
            return target.update(...args);
          };
        if (prop === 'delete')
          return async (...args: Parameters<ParsersClient['delete']>) => {
            note(`DELETE ${nameOf(args[0])} ${args[0]}`);
            return target.delete(...args);
          };
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    try {
      const outcome = await applyWorkspace(
        { ...ws, clients: { ...ws.clients, parsers } },
        {
          autoApprove: true,
          allowDestroy: true,
          pollMinMs: 10,
          pollMaxMs: 50,
          onPlan: () => (planned = true),
          onEvent: (event) => {
            if (event.type === 'generation' && event.status === 'FINISHED')
              finished.add(event.address.slice(7));
          },
          ...options,
        },
      );
      const second = await planWorkspace(ws);
      return { outcome, calls, second: second.plan.resource_changes };
    } finally {
      await ws.close();
    }
  }

  const indexOf = (calls: Call[], line: string): number => calls.findIndex((c) => c.line === line);
  const lastIndexOf = (calls: Call[], line: string): number => calls.findLastIndex((c) => c.line === line);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-result-reads-'));
    await mkdir(path.join(dir, 'manifests'));
  });

  it('reads each base version before its PATCH, and each new version after its finish while the next generates', async () => {
    h.emulator.setFaults({ generationDelayMs: 20 });
    await write({ 'a.yaml': parserYaml('a', 0), 'b.yaml': parserYaml('b', 0) });
    expect((await apply()).outcome.result?.results.every((r) => r.ok)).toBe(true);

    await write({ 'a.yaml': parserYaml('a', 1), 'b.yaml': parserYaml('b', 1) });
    h.emulator.setFaults({ generationDelayMs: 300 });
    // One generation at a time: b's turn comes when a finished.
    const { outcome, calls, second } = await apply({ maxGenerating: 1 });
    expect(outcome.result?.results.every((r) => r.ok)).toBe(true);
    expect(second).toEqual([]);

    // a reads its base version just before its PATCH; b reads its own while a generates, before its PATCH.
    expect(indexOf(calls, 'GET a/0')).toBeGreaterThanOrEqual(0);
    expect(indexOf(calls, 'GET a/0')).toBeLessThan(indexOf(calls, 'PATCH a/0'));
    expect(indexOf(calls, 'GET b/0')).toBeGreaterThan(indexOf(calls, 'PATCH a/0'));
    expect(calls[indexOf(calls, 'GET b/0')]?.generating).toEqual(['a']);
    expect(indexOf(calls, 'GET b/0')).toBeLessThan(indexOf(calls, 'PATCH b/0'));
    // a's new version is read once a finished, after b's PATCH (the generation goes first) and while b generates.
    const aAfter = lastIndexOf(calls, 'GET a/1');
    expect(aAfter).toBeGreaterThan(indexOf(calls, 'PATCH b/0'));
    expect(calls[aAfter]?.generating).toEqual(['b']);
    const bAfter = lastIndexOf(calls, 'GET b/1');
    expect(calls[bAfter]?.generating).toEqual([]);

    expect(outcome.resultDiffs.map((d) => [d.address, d.from.version, d.to.version])).toEqual([
      ['parser.a', 0, 1],
      ['parser.b', 0, 1],
    ]);
  });

  it("reads a replace's old parser before it is deleted", async () => {
    h.emulator.setFaults({ generationDelayMs: 20 });
    await write({ 'a.yaml': parserYaml('a', 2, BOOK_B), 'b.yaml': parserYaml('b', 1) });
    const { outcome, calls, second } = await apply();
    expect(outcome.result?.results.every((r) => r.ok)).toBe(true);
    expect(second).toEqual([]);
    const [diff] = outcome.resultDiffs;
    expect(outcome.resultDiffs).toHaveLength(1);
    expect(diff).toMatchObject({ address: 'parser.a', from: { version: 1 }, to: { version: 0 } });
    expect(diff?.from.id).not.toBe(diff?.to.id);
    const deleted = calls.findIndex((c) => c.line === `DELETE a ${diff?.from.id ?? ''}`);
    expect(deleted).toBeGreaterThan(0);
    expect(indexOf(calls, 'GET a/1')).toBeLessThan(deleted);
  });

  it('a version that cannot be read leaves that parser out of the report, and the apply succeeds', async () => {
    h.emulator.setFaults({ generationDelayMs: 20 });
    await write({
      'a.yaml': parserYaml('a', 3, BOOK_B),
      'b.yaml': parserYaml('b', 3),
      'c.yaml': parserYaml('c', 0),
    });
    await apply();
    await write({
      'a.yaml': parserYaml('a', 4, BOOK_B),
      'b.yaml': parserYaml('b', 4),
      'c.yaml': parserYaml('c', 1),
    });
    h.emulator.setFaults({ generationDelayMs: 100 });
    // a's base version (1) and b's new version (3) cannot be read.
    const { outcome, calls } = await apply({}, { before: ['a/1'], after: ['b/3'] });
    expect(outcome.result?.results.map((r) => [r.address, r.ok, r.status])).toEqual([
      ['parser.a', true, 'FINISHED'],
      ['parser.b', true, 'FINISHED'],
      ['parser.c', true, 'FINISHED'],
    ]);
    expect(indexOf(calls, 'GET a/1')).toBeGreaterThanOrEqual(0);
    expect(lastIndexOf(calls, 'GET b/3')).toBeGreaterThan(indexOf(calls, 'PATCH b/2'));
    expect(outcome.resultDiffs.map((d) => [d.address, d.from.version, d.to.version])).toEqual([
      ['parser.c', 0, 1],
    ]);
  });

  it('--no-wait reads no example result', async () => {
    h.emulator.setFaults({ generationDelayMs: 20 });
    await write({
      'a.yaml': parserYaml('a', 5, BOOK_B),
      'b.yaml': parserYaml('b', 5),
      'c.yaml': parserYaml('c', 2),
    });
    const { outcome, calls } = await apply({ noWait: true });
    expect(outcome.result?.results.every((r) => r.ok)).toBe(true);
    expect(calls.map((c) => c.line.split(' ')[0])).toEqual(['PATCH', 'PATCH', 'PATCH']);
    expect(outcome.resultDiffs).toEqual([]);
  });
});
