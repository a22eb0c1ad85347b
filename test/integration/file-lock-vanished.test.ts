import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import type * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileLock } from '../../src/state/file-lock.js';
import { rejection } from '../helpers/failure.js';

/**
 * The moment between a run's failed create of the lock file (it exists) and its read of that file to name the
 * holder, made to happen on purpose rather than by timing: `beforeRead` runs just before the lock file is read,
 * `beforeLink` just before a lock is linked into place (the create that fails when one exists). Each is taken by
 * its first call, so what it does (another run taking the lock) goes through the real file system.
 */
const hooks = vi.hoisted(() => ({
  beforeRead: undefined as undefined | ((file: string) => Promise<void>),
  beforeLink: undefined as undefined | ((file: string) => Promise<void>),
  links: 0,
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  const readFile = (async (file: Parameters<typeof real.readFile>[0], options?: unknown) => {
    const hook = hooks.beforeRead;
    if (hook !== undefined && String(file).endsWith('.lock')) await hook(String(file));
    return real.readFile(file, options as Parameters<typeof real.readFile>[1]);
  }) as typeof real.readFile;
  const link: typeof real.link = async (existing, file) => {
    if (String(file).endsWith('.lock')) {
      hooks.links++;
      const hook = hooks.beforeLink;
      if (hook !== undefined) await hook(String(file));
    }
    return real.link(existing, file);
  };
  return { ...real, readFile, link, default: { ...real, readFile, link } };
});

afterEach(() => {
  hooks.beforeRead = undefined;
  hooks.beforeLink = undefined;
  hooks.links = 0;
});

async function stateFile(): Promise<string> {
  return path.join(await mkdtemp(path.join(tmpdir(), 'scrapeform-lock-vanished-')), 'state.json');
}

/** Runs `hook` once, at the first call, and never again (what it does itself is not caught). */
function once(hook: (file: string) => Promise<void>): (file: string) => Promise<void> {
  let done = false;
  return async (file) => {
    if (done) return;
    done = true;
    await hook(file);
  };
}

describe('a lock file removed between the failed create and the read of its holder', () => {
  it('released by its holder in between: the run takes the lock instead of failing as locked by no one', async () => {
    const file = await stateFile();
    const holder = new FileLock(file);
    const held = await holder.take('apply');
    // The holder finishes as the second run finds its lock: it is gone when that run reads it.
    hooks.beforeRead = once(() => held.release());
    const lock = await new FileLock(file).take('plan');
    expect(JSON.parse(await readFile(`${file}.lock`, 'utf8'))).toMatchObject({ id: lock.info.id });
    await lock.release();
  });

  it('taken by a third run before the retry: the retry fails naming that run, and only it holds the lock', async () => {
    const file = await stateFile();
    const holder = new FileLock(file);
    const held = await holder.take('apply');
    const third = new FileLock(file);
    let thirdLock: Awaited<ReturnType<FileLock['take']>> | undefined;
    hooks.beforeRead = once(async () => {
      await held.release();
      // Before the retried create: another run takes the lock that was freed.
      hooks.beforeLink = once(async () => {
        thirdLock = await third.take('import');
      });
    });
    const error = await rejection(() => new FileLock(file).take('plan'));
    expect(thirdLock).toBeDefined();
    expect([error.code, error.message]).toEqual([
      'state.locked',
      `the state ${file} is locked by ${thirdLock?.info.holder} (pid ${process.pid}, import, since ${thirdLock?.info.started}, lock id ${thirdLock?.info.id})`,
    ]);
    expect(JSON.parse(await readFile(`${file}.lock`, 'utf8'))).toMatchObject({ id: thirdLock?.info.id });
    await thirdLock?.release();
  });

  it('a lock that vanishes every time is tried a few times, then fails as locked', async () => {
    const file = await stateFile();
    const churn = JSON.stringify({
      holder: 'ci@elsewhere',
      host: 'elsewhere',
      pid: 1,
      started: 'now',
      operation: 'apply',
    });
    // Another run takes the lock before each create of this one, and releases it before each read.
    hooks.beforeLink = async (lockFile) => writeFile(lockFile, churn);
    hooks.beforeRead = async (lockFile) => {
      const { rm } = await vi.importActual<typeof fsPromises>('node:fs/promises');
      await rm(lockFile, { force: true });
    };
    const error = await rejection(() => new FileLock(file).take('plan'));
    expect([error.code, error.message]).toEqual([
      'state.locked',
      `the state ${file} is locked by another run`,
    ]);
    expect(hooks.links).toBe(5);
  });
});
