import { spawn } from 'node:child_process';
import type { EmulatorRequest } from '../../src/emulator/http.js';
import { expect } from 'vitest';
import { BUILT_CLI, runBuiltCli } from './child-cli.js';
import type { EmulatorHarness } from './emulator.js';

/** A scheduled project that never runs in a test (its first run is in 2099), whose schedule is not diffed. */
export const NIGHTLY_PROJECT = `kind: Project\nname: nightly\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }\nscrapingInterval: daily\nscheduledAt: "2099-01-01T00:00:00Z"\nlifecycle: { ignore_changes: [scheduledAt] }\n`;

/**
 * Runs the built CLI with `args` in `cwd` and kills it (SIGKILL) the moment its first POST of a project reaches the
 * emulator, before the emulator handles it: the create lands, and the CLI never sees the answer, nor writes state
 * after it. Resolves once the process exited: true when it was killed there.
 */
export async function killAtFirstProjectPost(
  h: EmulatorHarness,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<boolean> {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], { ...options, stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('close', resolve));
  const projects = h.emulator.projects;
  const handle = projects.handle.bind(projects);
  let killed = false;
  projects.handle = (req: EmulatorRequest) => {
    if (req.method === 'POST' && req.path.startsWith('/api/projects')) killed ||= child.kill('SIGKILL');
    return handle(req);
  };
  try {
    await exited;
  } finally {
    projects.handle = handle;
  }
  return killed;
}

/**
 * A create killed at its POST while the list lags behind it (the emulator's `lagging-list`, 600 s): apply is killed
 * as the POST arrives (killAtFirstProjectPost), the next apply creates nothing and asks for --recreate, and once the
 * list shows the project (the clock moved past the lag) the next recovers it and the plan after it is empty: one
 * project all along. `afterKill` and `afterRecovery` check what the state backend holds at those two points.
 */
export async function expectKilledCreateRecovered(
  h: EmulatorHarness,
  run: { cwd: string; env: NodeJS.ProcessEnv; apply: readonly string[]; plan: readonly string[] },
  checks: { afterKill: () => Promise<void>; afterRecovery?: () => Promise<void> },
): Promise<void> {
  const options = { cwd: run.cwd, env: run.env };
  const projects = h.emulator.projects;
  expect(await killAtFirstProjectPost(h, run.apply, options)).toBe(true);
  expect(projects.projects.size).toBe(1);
  await checks.afterKill();
  const again = await runBuiltCli([...run.apply], options);
  expect(again.code, again.stdout + again.stderr).toBe(3);
  expect(again.stderr).toContain('--recreate project.nightly');
  expect(projects.projects.size).toBe(1);
  h.emulator.clock.advance(600_000);
  const recovered = await runBuiltCli([...run.apply], options);
  expect(recovered.code, recovered.stdout + recovered.stderr).toBe(0);
  expect(projects.projects.size).toBe(1);
  await checks.afterRecovery?.();
  expect((await runBuiltCli([...run.plan], options)).stdout).toContain('No changes.');
}
