import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { EmulatorRequest } from '../../src/emulator/http.js';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { TestWorkspace } from '../helpers/workspace.js';

/**
 * A create recorded ahead with the whole plan got its `sent` mark only in the coalesced write after its POST: apply
 * killed as its POST arrived left the intent reading as never sent, and the next apply, the list lagging behind the
 * create (docs/real-services.md, reading 1), made a second project. With state in a file the mark is in the journal
 * beside it before the POST goes out (sent-journal.ts). Here the emulator kills apply the moment the POST reaches it,
 * before any state write could carry the mark.
 */
const PROJECT = (name: string): string =>
  `kind: Project\nname: ${name}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }\nscrapingInterval: daily\nscheduledAt: "2099-01-01T00:00:00Z"\nlifecycle: { ignore_changes: [scheduledAt] }\n`;

const harnesses: EmulatorHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    await h.emulator.projects.idle();
    await h.emulator.close();
  }
});

describe('apply killed the moment its create reaches the service, the list lagging behind', () => {
  it('the next apply asks for --recreate instead of creating a second project; once listed, it is recovered', async () => {
    const h = await startTestEmulator({ quirks: ['lagging-list'], quirkSettings: { listLagMs: 600_000 } });
    harnesses.push(h);
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'nightly.yaml': PROJECT('nightly') });
    const env = emulatorEnv(h.emulator.url, EMULATOR_KEY);
    const args = ['apply', 'manifests', '--auto-approve', '--state', ws.backend.location];
    const child = spawn(process.execPath, [BUILT_CLI, ...args], { cwd: ws.dir, env, stdio: 'ignore' });
    const exited = new Promise((resolve) => child.on('close', resolve));
    const projects = h.emulator.projects;
    const handle = projects.handle.bind(projects);
    let killed = false;
    projects.handle = (req: EmulatorRequest) => {
      if (req.method === 'POST' && req.path.startsWith('/api/projects')) killed ||= child.kill('SIGKILL');
      return handle(req);
    };
    await exited;
    projects.handle = handle;
    expect(killed).toBe(true);
    expect(projects.projects.size).toBe(1);
    // No state write came after the POST: the intent as written ahead, its mark in the journal only.
    const written = JSON.parse(await readFile(ws.backend.location, 'utf8')) as {
      intents?: Record<string, { sent?: string }>;
    };
    expect(written.intents?.['project.nightly']).toBeDefined();
    expect(written.intents?.['project.nightly']?.sent).toBeUndefined();
    expect(await readFile(`${ws.backend.location}.sent`, 'utf8')).toContain('"project.nightly"');
    const again = await runBuiltCli(args, { cwd: ws.dir, env });
    expect(again.code, again.stdout + again.stderr).toBe(3);
    expect(again.stderr).toContain('--recreate project.nightly');
    expect(projects.projects.size).toBe(1);
    // Once the list shows it, it is recovered as this create: still one project, and the next plan is empty.
    h.emulator.clock.advance(600_000);
    const recovered = await runBuiltCli(args, { cwd: ws.dir, env });
    expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
    expect(projects.projects.size).toBe(1);
    const plan = await runBuiltCli(['plan', 'manifests', '--state', ws.backend.location], {
      cwd: ws.dir,
      env,
    });
    expect(plan.stdout).toContain('No changes.');
  });
});
