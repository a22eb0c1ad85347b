import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { State } from '../../src/state/model.js';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { until } from '../helpers/until.js';

const KEY = 'protect-kill-key';

let emulator: RunningEmulator;
let dir: string;

const env = (): NodeJS.ProcessEnv => emulatorEnv(emulator.url, KEY);
const run = (args: string[]) => runBuiltCli(args, { cwd: dir, env: env() });

const project = (interval: string): string => `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
scrapingInterval: ${interval}
scheduledAt: "2099-01-01T00:00:00Z"
lifecycle: { prevent_destroy: true }
`;

const parser = (fields: string): string => `kind: Parser
name: books
urls: [https://books.example/catalogue/page-1.html]
fields:
  heading: { description: Page heading, selector: h1 }
${fields}`;

async function readState(): Promise<State> {
  return JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as State;
}

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
});
afterAll(async () => emulator.close());
beforeEach(async () => {
  emulator.reset();
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-protect-kill-'));
});

/** Issue 15 again: the protection recorded in state must survive every state write of an apply, not only its end. */
describe('prevent_destroy recorded in state survives an apply killed after a PATCH of the object', () => {
  it('a protected project updated by a run killed while a parser generates is still refused an archive', async () => {
    await writeFile(path.join(dir, 'nightly.yaml'), project('daily'));
    await writeFile(path.join(dir, 'books.yaml'), parser(''));
    const created = await run(['apply', '--auto-approve']);
    expect(created.code, created.stderr).toBe(0);
    expect((await readState()).resources['project.nightly']?.preventDestroy).toBe(true);

    // A free PATCH of the project, and a regeneration that never ends on its own: apply is still running once the
    // PATCH is written, and is killed there (a CI job timed out).
    await writeFile(path.join(dir, 'nightly.yaml'), project('weekly'));
    await writeFile(
      path.join(dir, 'books.yaml'),
      parser('  price: { description: Price of the book, selector: .price_color }\n'),
    );
    emulator.setFaults({ generationDelayMs: 600_000 });
    const child = spawn(process.execPath, [BUILT_CLI, 'apply', '--auto-approve'], {
      cwd: dir,
      env: env(),
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    let patched: State | undefined;
    try {
      await until('state records the PATCH of the project', async () => {
        const state = await readState().catch(() => undefined);
        const nightly = state?.resources['project.nightly'];
        if (nightly?.kind === 'Project' && nightly.definition.scrapingInterval === 'weekly') patched = state;
        return patched !== undefined;
      });
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    expect(patched?.resources['project.nightly']?.preventDestroy).toBe(true);
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await emulator.idle();

    // The manifest deleted in the next commit: the project stays protected, nothing is archived.
    await rm(path.join(dir, 'nightly.yaml'));
    const plan = await run(['plan']);
    expect(plan.code, plan.stdout).toBe(1);
    expect(plan.stderr).toContain(
      'project.nightly: no manifest declares it any more, but it was applied with lifecycle.prevent_destroy, so it is not archived; to remove it, declare it again with lifecycle.prevent_destroy: false, apply, then delete its manifest',
    );
    const applied = await run(['apply', '--auto-approve', '--allow-destroy']);
    expect(applied.code).toBe(1);
    expect([...emulator.projects.projects.values()].map((p) => p.name)).toEqual(['nightly']);
  });
});
