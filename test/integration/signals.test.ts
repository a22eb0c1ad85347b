import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../helpers/child-cli.js';
import { heldByLiveProcess, stateOf } from '../helpers/state.js';

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
        for (let i = 0; i < 200 && !stderr.includes('waiting for the state lock'); i++)
          await new Promise((r) => setTimeout(r, 25));
        expect(stderr).toContain('waiting for the state lock held by ci@elsewhere');
        child.kill(signal);
        expect(await exited).toBe(130);
      } finally {
        child.kill('SIGKILL');
      }
    },
    30_000,
  );
});
