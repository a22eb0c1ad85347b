import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { BOOK_A, bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness | undefined;
afterEach(async () => {
  await h?.emulator.close();
  h = undefined;
});

/** A workspace on a fresh emulator, and the in-process CLI on its state. */
async function workspaceWithCli(): Promise<{
  ws: TestWorkspace;
  cli: (args: string[]) => ReturnType<typeof runScrapeform>;
}> {
  const harness = (h = await startTestEmulator({}));
  const ws = await TestWorkspace.create(harness);
  const cli = (args: string[]): ReturnType<typeof runScrapeform> =>
    runScrapeform([...args, '--state', ws.backend.location], {
      env: emulatorEnv(harness.emulator.url, EMULATOR_KEY),
    });
  return { ws, cli };
}

/**
 * A file a command was asked to write (`plan --out`, `apply --markdown-report`) where it cannot be written is the
 * user's to mend: a `cli.output-write` error naming the path, the cause and what was done, never "internal error"
 * with a stack.
 */
describe('files a command writes on request', () => {
  it('plan --out and apply --markdown-report into a folder that does not exist: exit 1, the path and what was done', async () => {
    const { ws, cli } = await workspaceWithCli();
    await ws.write({
      'books.yaml': bookParser('  price: { description: Price including tax, type: number }\n'),
    });
    const missing = path.join(ws.dir, 'no-such-folder');

    const plan = await cli([
      'plan',
      path.join(ws.dir, 'manifests'),
      '--out',
      path.join(missing, 'plan.json'),
    ]);
    expect(plan.code).toBe(1);
    expect(plan.stderr).not.toContain('internal error');
    expect(plan.stderr).toContain(
      `error: cannot write the saved plan to ${path.join(missing, 'plan.json')}: no such file or directory (ENOENT); the plan above was not saved`,
    );
    expect(plan.stderr).toContain('give a path in a folder that exists and this user can write');

    const apply = await cli([
      'apply',
      path.join(ws.dir, 'manifests'),
      '--auto-approve',
      '--markdown-report',
      path.join(missing, 'report.md'),
    ]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).not.toContain('internal error');
    expect(apply.stderr).toContain(
      `error: cannot write the apply report to ${path.join(missing, 'report.md')}: no such file or directory (ENOENT); the apply itself is over and state records what it did`,
    );
    // The apply was made, and recorded: the next plan has nothing to do.
    expect((await ws.state()).resources['parser.books']).toBeDefined();
    expect((await ws.plan()).status).toBe('no_changes');
  });

  it('apply --json and test --json print their result on stdout even when the report file cannot be written', async () => {
    const { ws, cli } = await workspaceWithCli();
    await ws.write({
      'books.yaml': bookParser(
        '  title: { description: Book title, selector: h1 }\n',
        `expect:\n  - url: ${BOOK_A}\n    result: { title: A Light in the Attic }\n`,
      ),
    });
    const missing = path.join(ws.dir, 'no-such-folder');

    // The apply made its calls (a paid generation): CI reads what it did, ids included, from stdout.
    const apply = await cli([
      'apply',
      path.join(ws.dir, 'manifests'),
      '--auto-approve',
      '--json',
      '--markdown-report',
      path.join(missing, 'report.md'),
    ]);
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(
      `error: cannot write the apply report to ${path.join(missing, 'report.md')}: no such file or directory (ENOENT); the apply itself is over and state records what it did`,
    );
    const applied = JSON.parse(apply.stdout) as {
      status: string;
      results: { address: string; action: string; ok: boolean; id: string | null }[];
      checks: { address: string }[];
    };
    expect(applied.status).toBe('applied');
    expect(applied.results.map((r) => [r.address, r.action, r.ok])).toEqual([
      ['parser.books', 'create', true],
    ]);
    expect(applied.results[0]?.id).toBe((await ws.state()).resources['parser.books']?.id);
    expect(applied.checks.map((c) => c.address)).toEqual(['parser.books']);

    const test = await cli([
      'test',
      path.join(ws.dir, 'manifests'),
      '--json',
      '--junit',
      path.join(missing, 'junit.xml'),
    ]);
    expect(test.code).toBe(1);
    expect(test.stderr).toContain(
      `error: cannot write the JUnit report to ${path.join(missing, 'junit.xml')}: no such file or directory (ENOENT); the checks ran`,
    );
    const tested = JSON.parse(test.stdout) as { results: { address: string; url: string }[] };
    expect(tested.results.map((r) => [r.address, r.url])).toEqual([['parser.books', BOOK_A]]);
  });
});
