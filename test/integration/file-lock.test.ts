import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, mkdir, mkdtemp, readdir, readFile, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FileStateBackend } from '../../src/state/file-backend.js';
import type { State } from '../../src/state/model.js';
import { emptyState } from '../../src/state/model.js';
import { currentProcessIdentity, processEnded } from '../../src/state/process-identity.js';
import { rejection } from '../helpers/failure.js';
import { until } from '../helpers/until.js';

const BUILT_BACKEND = path.resolve(import.meta.dirname, '../../dist/state/file-backend.js');

/** The pid of a process that has ended: a lock naming it on this host is stale. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return child.pid;
}

async function staleLock(file: string, extra: Record<string, unknown> = {}): Promise<void> {
  await writeFile(
    `${file}.lock`,
    JSON.stringify({
      holder: 'ci@here',
      host: hostname(),
      pid: await deadPid(),
      started: '2026-01-01T00:00:00.000Z',
      operation: 'apply',
      ...extra,
    }),
  );
}

/**
 * One run as its own process: at a common moment it takes the lock, records an object of its own and writes, says
 * whether it got the lock and wrote, and holds the lock until FILE.release exists: the test lets it go once every
 * run has answered, so a run that starts late on a loaded machine still finds the lock held (with a fixed hold, it
 * found the lock free again, took it and wrote, as it should: the test read that as two holders).
 */
const RUN = `
import { FileStateBackend } from ${JSON.stringify(pathToFileURL(BUILT_BACKEND).href)};
const backend = new FileStateBackend(process.argv[2]);
const start = Number(process.argv[3]);
while (Date.now() < start) {}
try {
  const lock = await backend.lock('apply');
  const state = await backend.read();
  state.resources['project.p' + process.pid] = { kind: 'Project', id: process.pid, name: 'p', definition: {} };
  await backend.write(state);
  console.log('WROTE');
  const { existsSync } = await import('node:fs');
  while (!existsSync(process.argv[2] + '.release')) await new Promise((r) => setTimeout(r, 20));
  await lock.release();
} catch (error) {
  console.log('FAILED ' + error.code);
}
`;

/** A run started at `start`: what it says first (WROTE, or FAILED and its code), and its end. */
function runAt(
  script: string,
  file: string,
  start: number,
): { said: Promise<string>; exited: Promise<void> } {
  const child = spawn(process.execPath, [script, file, String(start)]);
  let out = '';
  const said = new Promise<string>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('exit', () => resolve(out.trim()));
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return { said, exited };
}

describe('the state file lock', () => {
  it('runs that find a stale lock together: one takes it over, the others find it held, nothing is lost', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
    const script = path.join(dir, 'run.mjs');
    await writeFile(script, RUN);
    for (let trial = 0; trial < 4; trial++) {
      const file = path.join(dir, `state-${trial}.json`);
      await writeFile(file, JSON.stringify({ format_version: 1, serial: 5, lineage: 'L', resources: {} }));
      await staleLock(file);
      const start = Date.now() + 800;
      const runs = [1, 2, 3, 4].map(() => runAt(script, file, start));
      const outcomes = await Promise.all(runs.map((run) => run.said));
      await writeFile(`${file}.release`, '');
      await Promise.all(runs.map((run) => run.exited));
      const wrote = outcomes.filter((outcome) => outcome === 'WROTE').length;
      const state = JSON.parse(await readFile(file, 'utf8')) as State;
      expect({ wrote, kept: Object.keys(state.resources).length }).toEqual({ wrote: 1, kept: 1 });
      expect(outcomes.filter((outcome) => outcome !== 'WROTE')).toEqual([
        'FAILED state.locked',
        'FAILED state.locked',
        'FAILED state.locked',
      ]);
    }
  }, 60_000);

  it('a state file that is a symbolic link is locked and written where it points, for every link to it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-symlink-'));
    const shared = path.join(dir, 'shared', 'state.json');
    await mkdir(path.dirname(shared));
    await writeFile(shared, JSON.stringify({ ...emptyState('L'), serial: 3 }));
    const links = ['one', 'two'].map((name) => path.join(dir, name, '.scrapeform', 'state.json'));
    for (const link of links) {
      await mkdir(path.dirname(link), { recursive: true });
      await symlink(shared, link);
    }
    const first = new FileStateBackend(links[0]);
    const second = new FileStateBackend(links[1]);
    const lock = await first.lock('apply');
    // Two checkouts linking one state take one lock.
    await expect(second.lock('apply')).rejects.toMatchObject({ code: 'state.locked' });
    const read = await first.read();
    await first.write({
      ...read,
      resources: { 'project.a': { kind: 'Project', id: 1, name: 'a', definition: {} } },
    });
    await lock.release();
    expect((await lstat(links[0] ?? '')).isSymbolicLink()).toBe(true);
    const written = JSON.parse(await readFile(shared, 'utf8')) as State;
    expect([written.serial, Object.keys(written.resources)]).toEqual([4, ['project.a']]);
    expect((await second.read()).serial).toBe(4);
    expect((await readdir(path.dirname(shared))).sort()).toEqual(['state.json']);
  });

  it('a write after the lock was broken fails with state.lock-lost and leaves the new holder’s state', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
    const file = path.join(dir, 'state.json');
    const first = new FileStateBackend(file);
    await first.lock('apply');
    const state = await first.read();
    await first.forceUnlock({ force: true });
    const second = new FileStateBackend(file);
    const secondLock = await second.lock('apply');
    const error = await rejection(() => first.write(state));
    expect(error.code).toBe('state.lock-lost');
    expect(error.message).toBe(
      `the state lock of ${file} is no longer held by this run (now held by ${secondLock.info.holder} (pid ${process.pid}, apply, since ${secondLock.info.started}, lock id ${secondLock.info.id})): the state was not written`,
    );
    await expect(readFile(file, 'utf8')).rejects.toThrow('ENOENT');
    await second.write(await second.read());
    await secondLock.release();
    // Unlocked writes (state written outside a lock, as before) are not checked.
    const unlocked = new FileStateBackend(file);
    expect((await unlocked.write(await unlocked.read())).serial).toBe(2);
  });

  it('a lock of another pid namespace of this host is not taken over, even when its pid is not seen here', async () => {
    const here = currentProcessIdentity();
    if (here.bootId === undefined || here.pidNamespace === undefined) return;
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
    const file = path.join(dir, 'state.json');
    await staleLock(file, { bootId: here.bootId, pidNamespace: 'pid:[1]', processStart: '1' });
    const error = await rejection(() => new FileStateBackend(file).lock('apply'));
    expect(error.code).toBe('state.locked');
    expect(error.hint).toBe(
      'wait for that run to finish; if it died, break the lock with scrapeform force-unlock',
    );
  });

  it('a lock of an earlier boot, or of a pid since reused by another process, is taken over', async () => {
    const here = currentProcessIdentity();
    if (here.bootId === undefined || here.pidNamespace === undefined) return;
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
    const file = path.join(dir, 'state.json');
    // This test's own pid, alive: judged by the boot id, then by the start time.
    await staleLock(file, { pid: process.pid, bootId: 'another-boot', pidNamespace: here.pidNamespace });
    const rebooted = new FileStateBackend(file);
    await (await rebooted.lock('apply')).release();
    expect(rebooted.staleLockBroken?.bootId).toBe('another-boot');
    await staleLock(file, { ...here, pid: process.pid, processStart: '1' });
    const reused = new FileStateBackend(file);
    await (await reused.lock('apply')).release();
    expect(reused.staleLockBroken?.processStart).toBe('1');
    // The same process, started when it did: alive.
    await staleLock(file, { ...here, pid: process.pid });
    expect((await rejection(() => new FileStateBackend(file).lock('apply'))).code).toBe('state.locked');
  });

  it.skipIf(!existsSync('/proc/self/stat'))(
    'a lock whose holder was killed but not reaped (a zombie) is taken over, and force-unlock breaks it without --force',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
      const file = path.join(dir, 'state.json');
      // The run takes the lock in a child of a shell that then becomes `sleep`, which never waits for its children:
      // killed, the run stays a zombie, as under a container's PID 1 that does not reap.
      const run = `
        import { FileStateBackend } from ${JSON.stringify(pathToFileURL(BUILT_BACKEND).href)};
        await new FileStateBackend(process.argv[1]).lock('apply');
        console.log('LOCKED ' + process.pid);
        setInterval(() => {}, 1000);
      `;
      const parent = spawn(
        'sh',
        ['-c', `"$NODE" --input-type=module -e "$RUN" "$1" & exec sleep 30`, 'sh', file],
        {
          env: { ...process.env, NODE: process.execPath, RUN: run },
        },
      );
      try {
        const pid = await new Promise<number>((resolve, reject) => {
          let out = '';
          parent.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString();
            const locked = /LOCKED (\d+)/.exec(out);
            if (locked?.[1] !== undefined) resolve(Number(locked[1]));
          });
          parent.on('exit', () => reject(new Error(`the run ended before locking: ${out}`)));
        });
        process.kill(pid, 'SIGKILL');
        // Within this test's own limit (20 s), so that a failure names what never came.
        await until(`the killed run (pid ${pid}) has ended, a zombie`, () => processEnded(pid), {
          withinMs: 10_000,
        });
        // It still answers kill(pid, 0), with the start time the lock recorded.
        expect(() => process.kill(pid, 0)).not.toThrow();
        const lockText = await readFile(`${file}.lock`, 'utf8');

        const backend = new FileStateBackend(file);
        const lock = await backend.lock('apply');
        expect(backend.staleLockBroken?.pid).toBe(pid);
        await lock.release();

        await writeFile(`${file}.lock`, lockText);
        const broken = await new FileStateBackend(file).forceUnlock();
        expect(broken).toMatchObject({ pid });
        await expect(readFile(`${file}.lock`, 'utf8')).rejects.toThrow(/ENOENT/);
      } finally {
        parent.kill('SIGKILL');
      }
    },
    20_000,
  );

  it('a lock left empty (a run killed between creating and writing it) is taken over once older than any write', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
    const file = path.join(dir, 'state.json');
    await writeFile(`${file}.lock`, '');
    // Young: it may be a lock being written right now.
    expect((await rejection(() => new FileStateBackend(file).lock('apply'))).code).toBe('state.locked');
    const old = new Date(Date.now() - 60_000);
    await utimes(`${file}.lock`, old, old);
    const backend = new FileStateBackend(file);
    const lock = await backend.lock('apply');
    expect(JSON.parse(await readFile(`${file}.lock`, 'utf8'))).toMatchObject({ id: lock.info.id });
    await lock.release();
  });

  it('a lock file of JSON that is no lock (null, a list) is read as unreadable: locked while young, then taken over', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
    const file = path.join(dir, 'state.json');
    for (const text of ['null', '[]', '"x"']) {
      await writeFile(`${file}.lock`, text);
      const young = await rejection(() => new FileStateBackend(file).lock('apply'));
      expect([young.code, young.message]).toEqual([
        'state.locked',
        `the state ${file} is locked by another run`,
      ]);
      const old = new Date(Date.now() - 60_000);
      await utimes(`${file}.lock`, old, old);
      const lock = await new FileStateBackend(file).lock('apply');
      await lock.release();
      // And force-unlock removes one.
      await writeFile(`${file}.lock`, text);
      expect(await new FileStateBackend(file).forceUnlock()).toBe('unreadable');
      expect(existsSync(`${file}.lock`)).toBe(false);
    }
  });

  it('a takeover guard left by a run killed during its takeover does not refuse the next run', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
    const file = path.join(dir, 'state.json');
    await staleLock(file);
    await writeFile(`${file}.lock.takeover`, await readFile(`${file}.lock`, 'utf8'));
    const backend = new FileStateBackend(file);
    const lock = await backend.lock('apply');
    expect(backend.staleLockBroken?.holder).toBe('ci@here');
    await lock.release();
    await expect(readFile(`${file}.lock.takeover`, 'utf8')).rejects.toThrow(/ENOENT/);
  });

  it('a lock is never seen empty: it is written whole before it is linked into place', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-'));
    const file = path.join(dir, 'state.json');
    const backend = new FileStateBackend(file);
    const lock = await backend.lock('apply');
    expect(JSON.parse(await readFile(`${file}.lock`, 'utf8'))).toMatchObject({ id: lock.info.id });
    // No temporary file is left beside it.
    expect((await readdir(dir)).sort()).toEqual(['state.json.lock']);
    await lock.release();
  });
});
