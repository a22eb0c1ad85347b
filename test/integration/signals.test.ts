import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emulatorFront } from '../helpers/emulator-front.js';
import { BUILT_CLI, emulatorEnv } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import { heldByLiveProcess, stateOf } from '../helpers/state.js';
import { until } from '../helpers/until.js';

/**
 * README's exit codes: Ctrl-C or SIGTERM is 130 for every command, not only those that stop gracefully (Node's own
 * ending says 143 for SIGTERM). A command waiting for a lock another live process holds is stopped either way.
 */
describe('signals end every command with 130', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s while plan --lock waits for the state lock',
    async (signal) => {
      const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-signals-'));
      const state = path.join(dir, 'state.json');
      await writeFile(state, JSON.stringify(stateOf({})));
      await writeFile(`${state}.lock`, JSON.stringify(heldByLiveProcess()));
      await writeFile(
        path.join(dir, 'p.yaml'),
        'kind: Project\nname: p\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/a.html] }\n',
      );
      const child = spawn(
        process.execPath,
        [BUILT_CLI, 'plan', dir, '--state', state, '--lock', '--lock-timeout', '5m'],
        {
          cwd: dir,
          env: {
            PATH: process.env.PATH ?? '',
            CI: 'true',
            SCRAPERAPI_API_KEY: 'signals-test-key',
            // Nothing listens there: the plan never gets past the lock before the signal.
            SCRAPEFORM_PARSER_URL: 'http://127.0.0.1:9',
            SCRAPEFORM_PIPELINE_URL: 'http://127.0.0.1:9',
          },
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
      try {
        await until(
          'plan said it waits for the state lock',
          () => stderr.includes('waiting for the state lock'),
          { everyMs: 25 },
        );
        expect(stderr).toContain('waiting for the state lock held by ci@elsewhere');
        child.kill(signal);
        expect(await exited).toBe(130);
      } finally {
        child.kill('SIGKILL');
      }
    },
    30_000,
  );

  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s while apply reads the services, with nothing to change',
    async (signal) => {
      const harness = await startTestEmulator();
      const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-signals-'));
      // Requests as they arrive, before the emulator holds their answers: the signal waits for the first read.
      const arrived: string[] = [];
      const front = await emulatorFront(harness.emulator.url, (req) => {
        arrived.push(req.url ?? '');
        return false;
      });
      try {
        // One project, applied: the next plan is empty once the services are read. Each answer then takes 3 s,
        // so the signal comes while apply reads them: it stops gracefully, and exits 130 though nothing was to do.
        await writeFile(
          path.join(dir, 'p.yaml'),
          'kind: Project\nname: p\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/a.html] }\n',
        );
        const env = emulatorEnv(front.url, EMULATOR_KEY);
        const first = spawn(process.execPath, [BUILT_CLI, 'apply', dir, '--auto-approve'], { cwd: dir, env });
        expect(await new Promise((resolve) => first.on('close', resolve))).toBe(0);
        harness.emulator.setFaults({ latencyMs: 3_000 });
        const readsBefore = arrived.length;
        const child = spawn(process.execPath, [BUILT_CLI, 'apply', dir, '--auto-approve'], { cwd: dir, env });
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
        try {
          // Signalled once its first read arrived (answered 3 s after): a fixed sleep could end before a slow start.
          await until("the second apply's first read arrived", () => arrived.length > readsBefore);
          child.kill(signal);
          expect(await exited).toBe(130);
          // Stopped gracefully while reading (not by the bin's own handler before apply began).
          expect(stderr).toContain('Interrupted: no new calls');
        } finally {
          child.kill('SIGKILL');
        }
      } finally {
        front.close();
        await harness.emulator.close();
      }
    },
    30_000,
  );
});
