import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';

const parser = (name: string): string =>
  `kind: Parser\nname: ${name}\nurls: [https://books.example/catalogue/a-light-in-the-attic_1000/index.html]\nfields:\n  title: { description: Book title, selector: h1 }\n`;

/**
 * An apply with the default flags that waits for more than ten generations at once (--max-generating is 16): each
 * wait put its own listener on the Ctrl-C signal, and Node printed "MaxListenersExceededWarning: Possible
 * EventTarget memory leak detected" into every such CI log, a leak that was not there.
 */
it('an apply waiting for 16 generations at once prints no memory-leak warning', async () => {
  // Emulated time: the generations finish only when the test moves the clock, once all 16 are waited for.
  const h = await startTestEmulator({ generationDelayMs: 60_000 });
  try {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-many-generations-'));
    const names = Array.from({ length: 16 }, (_, i) => `p${i + 1}`);
    await writeFile(path.join(dir, 'parsers.yaml'), names.map(parser).join('---\n'));
    const env = emulatorEnv(h.emulator.url, EMULATOR_KEY);
    const child = spawn(process.execPath, [BUILT_CLI, 'apply', '--auto-approve'], { cwd: dir, env });
    let stdout = '';
    let stderr = '';
    let advanced = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (!advanced && (stderr.match(/GENERATING/g) ?? []).length === names.length) {
        advanced = true;
        h.emulator.clock.advance(61_000);
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('Apply complete: 16 applied, 0 failed.');
    expect(stderr).not.toContain('MaxListenersExceededWarning');
    expect(stderr).not.toContain('memory leak');
    const plan = await runBuiltCli(['plan', '--detailed-exitcode'], { cwd: dir, env, exitWithinMs: 30_000 });
    expect(plan.code, plan.stderr).toBe(0);
  } finally {
    await h.emulator.close();
  }
}, 60_000);
