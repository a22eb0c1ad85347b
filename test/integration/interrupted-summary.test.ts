import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import type { State } from '../../src/state/model.js';

/**
 * Ctrl-C while parsers generate: their POSTs were answered (the generations are paid for), so the summary says
 * they were made and stopped while generating, with their ids, not "interrupted before this call" among failures.
 */
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 60_000 });
});
afterAll(async () => {
  await h.emulator.close();
});

const parser = (name: string): string =>
  `kind: Parser\nname: ${name}\nurls: [https://books.example/catalogue/a-light-in-the-attic_1000/index.html]\nfields:\n  title: { description: Book title, selector: h1 }\n`;

it('Ctrl-C while two created parsers generate and a third waits: each is summed up as what it is', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-interrupted-'));
  for (const name of ['p1', 'p2', 'p3']) await writeFile(path.join(dir, `${name}.yaml`), parser(name));
  const child = spawn(
    process.execPath,
    [BUILT_CLI, 'apply', '--auto-approve', '--max-generating', '2', '--markdown-report', 'report.md'],
    { cwd: dir, env: emulatorEnv(h.emulator.url, EMULATOR_KEY) },
  );
  let stdout = '';
  let stderr = '';
  let interrupted = false;
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    // Both POSTs were answered and both parsers are GENERATING: now Ctrl-C.
    if (!interrupted && (stderr.match(/GENERATING/g) ?? []).length === 2) {
      interrupted = true;
      child.kill('SIGINT');
    }
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(130);
  const state = JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as State;
  const made = (['parser.p1', 'parser.p2'] as const).map((address) => String(state.resources[address]?.id));
  expect(state.resources['parser.p3']).toBeUndefined();
  const summary = stdout.slice(stdout.indexOf('Apply interrupted'));
  expect(summary.split('\n')[0]).toBe(
    'Apply interrupted: 0 applied, 2 stopped while in progress, 1 not started, 0 failed.',
  );
  for (const [i, id] of made.entries())
    expect(summary).toContain(
      `■ parser.p${i + 1} create ${id}: interrupted while version 0 of parser ${id} was generating: state records it as pending, and the next apply waits for it (no new generation) and finishes the change`,
    );
  expect(summary).toContain('- parser.p3 create: not started');
  expect(summary).not.toContain('before this call');
  expect(stderr).toContain(
    `parser.p1  stopped: interrupted while version 0 of parser ${made[0]} was generating`,
  );
  const report = await readFile(path.join(dir, 'report.md'), 'utf8');
  expect(report).toContain('0 applied, 2 stopped while in progress, 1 not started, 0 failed.');
  expect(report).toContain(
    `| \`parser.p1\` | create | stopped \`${made[0]}\`: \`interrupted while version 0`,
  );
  expect(report).toContain('| `parser.p3` | create | not started |');

  // The next apply waits for the two generations (no second POST) and creates p3; a plan after it is empty.
  h.emulator.clock.advance(61_000);
  h.emulator.setFaults({ generationDelayMs: 0 });
  const env = emulatorEnv(h.emulator.url, EMULATOR_KEY);
  const again = await runBuiltCli(['apply', '--auto-approve'], { cwd: dir, env, exitWithinMs: 30_000 });
  expect(again.code, again.stderr).toBe(0);
  expect((await h.parsers.list()).map((p) => p.name).sort()).toEqual(['p1', 'p2', 'p3']);
  const plan = await runBuiltCli(['plan', '--detailed-exitcode'], { cwd: dir, env, exitWithinMs: 30_000 });
  expect([plan.code, plan.stdout.split('\n')[0]]).toEqual([
    0,
    'No changes. The live services match the manifests.',
  ]);
}, 60_000);
