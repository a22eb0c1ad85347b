import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, rmdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../helpers/child-cli.js';
import { until } from '../helpers/until.js';

describe('scrapeform emulator --data-dir when a write fails', () => {
  it('keeps running, says so once naming the file, writes again once it can, and fails at exit if still unwritten', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'scrapeform-emusave-'));
    const file = path.join(dataDir, 'emulator-state.json');
    const child = spawn(
      process.execPath,
      [BUILT_CLI, 'emulator', '--port', '0', '--api-key', 'key-a', '--data-dir', dataDir],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', CI: 'true' } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let code: number | null | undefined;
    void exited.then((c) => (code = c));
    try {
      await until('the emulator said where it listens', () => /listening on (\S+)/.test(stdout), {
        everyMs: 20,
      });
      const url = /listening on (\S+)/.exec(stdout)?.[1] ?? '';
      const put = (key: string): Promise<Response> =>
        fetch(`${url}/_emulator/accounts`, {
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ key, credits: 5 }),
        });
      // A folder where the state file goes: every rename over it fails until it is taken away.
      await rm(file, { force: true });
      await mkdir(file);
      expect((await put('key-b')).status).toBe(200);
      await until('the emulator said it cannot write', () => stderr.includes('cannot write'), {
        everyMs: 20,
      });
      expect((await put('key-c')).status).toBe(200);
      await new Promise((r) => setTimeout(r, 200));
      expect(code).toBeUndefined();
      expect((await fetch(`${url}/_emulator/accounts`)).status).toBe(200);
      expect(stderr.match(/cannot write the emulator state/g)).toHaveLength(1);
      expect(stderr).toContain(`warning: cannot write the emulator state ${file}: EISDIR`);

      await rmdir(file);
      expect((await put('key-d')).status).toBe(200);
      await until(
        'the state file holds key-d',
        async () => (await readFile(file, 'utf8').catch(() => '')).includes('key-d'),
        { everyMs: 20 },
      );
      const saved = JSON.parse(await readFile(file, 'utf8')) as { accounts: { key: string }[] };
      expect(saved.accounts.map((a) => a.key)).toEqual(['key-a', 'key-b', 'key-c', 'key-d']);

      // Broken again at the end: the last change never reached the disk, and the exit says so.
      await rm(file);
      await mkdir(file);
      expect((await put('key-e')).status).toBe(200);
      child.kill('SIGINT');
      expect(await exited).toBe(1);
      expect(stderr).toContain(`error: cannot write the emulator state ${file}: EISDIR`);
      expect(stderr).not.toContain('emulator stopped');
    } finally {
      if (code === undefined) child.kill('SIGKILL');
    }
  });
});
