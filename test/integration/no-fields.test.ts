import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { tempProjects } from '../helpers/temp-projects.js';
import { BOOK_A } from '../helpers/workspace.js';

/**
 * A FINISHED version listing no fields is read as an answer that left them out (a bad response), except where it is
 * what scrapeform asked for: a manifest that declares no fields, applied as a PATCH removing them all. Plans, drift
 * and an adoption of such a parser must read it, not fail the workspace.
 */
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => {
  await h.emulator.close();
});

const project = tempProjects('scrapeform-no-fields-');
const manifest = (fields: string, extra = ''): string =>
  `kind: Parser\nname: bare\nurls: ['${BOOK_A}']\n${extra}fields:${fields}\n`;

it('a manifest that removes every field: applied, then plan, drift and an adoption read the parser', async () => {
  const dir = await project({ 'bare.yaml': manifest('\n  title: { description: Title, selector: h1 }') });
  const cli = (args: string[]) =>
    runBuiltCli([...args, '--state', 'state.json'], {
      cwd: dir,
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
      exitWithinMs: 30_000,
    });
  expect((await cli(['apply', '.', '--auto-approve'])).code).toBe(0);
  await writeFile(path.join(dir, 'bare.yaml'), manifest(' {}'));
  const removed = await cli(['apply', '.', '--auto-approve']);
  expect(removed.code, removed.stderr).toBe(0);
  expect(removed.stdout).toContain('✓ parser.bare update');

  const plan = await cli(['plan', '.', '--json']);
  expect(plan.code, plan.stderr).toBe(0);
  expect((JSON.parse(plan.stdout) as { status: string }).status).toBe('no_changes');
  const drift = await cli(['drift', '.', '--json']);
  expect(drift.code, drift.stderr).toBe(0);
  expect((JSON.parse(drift.stdout) as { status: string }).status).toBe('no_drift');

  // State lost: import skips it, saying why (an answer with no fields cannot be told from one that left them out),
  // and imports nothing over it; the manifest that declares no fields adopts the parser as it is, with no call.
  await rm(path.join(dir, 'state.json'));
  const imported = await cli(['import', '--out', 'imported']);
  expect(imported.code, imported.stderr).toBe(0);
  expect(imported.stdout + imported.stderr).toContain(
    'is FINISHED with no fields, which cannot be told from an answer that left them out; declare it by hand (fields: {} and adopt: true) if it really has none',
  );
  await rm(path.join(dir, 'state.json'), { force: true });
  await writeFile(path.join(dir, 'bare.yaml'), manifest(' {}', 'adopt: true\n'));
  const adopted = await cli(['apply', '.', '--auto-approve']);
  expect(adopted.code, adopted.stderr).toBe(0);
  expect(adopted.stdout).toContain('parser.bare adopt');
  const after = await cli(['plan', '.', '--json']);
  expect((JSON.parse(after.stdout) as { status: string }).status).toBe('no_changes');
});
