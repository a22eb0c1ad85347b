import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness | undefined;
afterEach(async () => {
  await h?.emulator.close();
  h = undefined;
});

/**
 * A file a command was asked to write (`plan --out`, `apply --markdown-report`) where it cannot be written is the
 * user's to mend: a `cli.output-write` error naming the path, the cause and what was done, never "internal error"
 * with a stack.
 */
describe('files a command writes on request', () => {
  it('plan --out and apply --markdown-report into a folder that does not exist: exit 1, the path and what was done', async () => {
    h = await startTestEmulator({});
    const harness = h;
    const ws = await TestWorkspace.create(harness);
    const cli = (args: string[]): ReturnType<typeof runScrapeform> =>
      runScrapeform([...args, '--state', ws.backend.location], {
        env: emulatorEnv(harness.emulator.url, EMULATOR_KEY),
      });
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
});
