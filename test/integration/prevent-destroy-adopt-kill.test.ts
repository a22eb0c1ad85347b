import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import type { State } from '../../src/state/model.js';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';

const KEY = 'protect-adopt-kill-key';

let emulator: RunningEmulator;
let dir: string;

const env = (): NodeJS.ProcessEnv => emulatorEnv(emulator.url, KEY);
const run = (args: string[]) => runBuiltCli(args, { cwd: dir, env: env() });

const PROJECT = `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
scrapingInterval: daily
scheduledAt: "2099-01-01T00:00:00Z"
lifecycle: { prevent_destroy: true }
adopt: true
`;

const PARSER = `kind: Parser
name: books
urls: [https://books.example/catalogue/page-1.html]
fields:
  heading: { description: Page heading, selector: h1 }
lifecycle: { prevent_destroy: true }
adopt: true
`;

/** A parser this state creates after the adoptions: its generation keeps the run going until the kill. */
const LATER = `kind: Parser
name: later
urls: [https://books.example/catalogue/page-1.html]
fields:
  heading: { description: Page heading, selector: h1 }
`;

async function readState(): Promise<State | undefined> {
  const text = await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as State);
}

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
});
afterAll(async () => emulator.close());
beforeEach(async () => {
  emulator.reset();
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-protect-adopt-kill-'));
  await writeFile(path.join(dir, 'nightly.yaml'), PROJECT);
  await writeFile(path.join(dir, 'books.yaml'), PARSER);
});

describe('prevent_destroy holds for objects whose adopting apply was killed', () => {
  it('killed after the adoptions were recorded, before the end of the run: both adopted objects are protected', async () => {
    // Another state made the live objects: this one finds them by name and adopts them.
    const seeded = await run(['apply', '--auto-approve', '--state', 'seed.json']);
    expect(seeded.code, seeded.stdout + seeded.stderr).toBe(0);
    await writeFile(path.join(dir, 'later.yaml'), LATER);
    emulator.setFaults({ generationDelayMs: 600_000 });
    const child = spawn(process.execPath, [BUILT_CLI, 'apply', '--auto-approve'], {
      cwd: dir,
      env: env(),
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.on('close', resolve));
    let killed: State | undefined;
    for (let i = 0; i < 1000; i++) {
      const state = await readState();
      const recorded = ['project.nightly', 'parser.books', 'parser.later'];
      if (state !== undefined && recorded.every((address) => state.resources[address] !== undefined)) {
        killed = state;
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    child.kill('SIGKILL');
    await exited;
    expect(killed, 'the kill came once the adoptions and the later create were recorded').toBeDefined();
    // The run was killed before its end: the later parser still generates.
    const later = killed?.resources['parser.later'];
    expect(later?.kind === 'Parser' ? later.version : 'not recorded').toBeNull();
    expect(killed?.resources['project.nightly']?.preventDestroy).toBe(true);
    expect(killed?.resources['parser.books']?.preventDestroy).toBe(true);
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await emulator.idle();

    // Both manifests deleted: the plan refuses to archive or delete either object, and apply sends nothing.
    await rm(path.join(dir, 'nightly.yaml'));
    await rm(path.join(dir, 'books.yaml'));
    const plan = await run(['plan']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(1);
    expect(plan.stderr).toContain(
      'project.nightly: no manifest declares it any more, but it was applied with lifecycle.prevent_destroy, so it is not archived',
    );
    expect(plan.stderr).toContain(
      'parser.books: no manifest declares it any more, but it was applied with lifecycle.prevent_destroy, so it is not deleted',
    );
    const before = emulator.requestLog.length;
    const applied = await run(['apply', '--auto-approve', '--allow-destroy']);
    expect(applied.code, applied.stdout + applied.stderr).toBe(1);
    const sent = emulator.requestLog.slice(before).filter((e) => e.method !== 'GET');
    expect(sent.map((e) => `${e.method} ${e.path}`)).toEqual([]);
  }, 60_000);
});
