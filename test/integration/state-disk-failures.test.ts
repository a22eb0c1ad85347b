import { mkdtemp, readdir, writeFile } from 'node:fs/promises';
import type * as fsPromises from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { stateOf } from '../helpers/state.js';

/**
 * A full or read-only disk, simulated without root (no tmpfs to fill): `open` of the files matching `match` fails
 * as the system fails it. `open` fails before the file exists (a read-only file system); `write` creates the file,
 * then its write fails (a full disk: the inode was free, the blocks were not).
 */
const disk = vi.hoisted(() => ({
  failure: undefined as undefined | { code: string; at: 'open' | 'write'; match: RegExp },
}));

vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof fsPromises>();
  const failed = (code: string, syscall: string, file: string): NodeJS.ErrnoException =>
    Object.assign(new Error(`${code}: simulated, ${syscall} '${file}'`), { code, syscall, path: file });
  const open: typeof real.open = async (file, flags, mode) => {
    const failure = disk.failure;
    if (failure === undefined || !failure.match.test(String(file))) return real.open(file, flags, mode);
    if (failure.at === 'open') throw failed(failure.code, 'open', String(file));
    const handle = await real.open(file, flags, mode);
    handle.writeFile = () => Promise.reject(failed(failure.code, 'write', String(file)));
    return handle;
  };
  return { ...real, open, default: { ...real, open } };
});

afterEach(() => {
  disk.failure = undefined;
});

async function pushInto(): Promise<{
  cwd: string;
  file: string;
  push: () => ReturnType<typeof runScrapeform>;
}> {
  const cwd = await mkdtemp(path.join(tmpdir(), 'scrapeform-disk-'));
  const file = path.join(cwd, 'state.json');
  const pushed = path.join(cwd, 'pushed.json');
  await writeFile(pushed, JSON.stringify(stateOf({})));
  return {
    cwd,
    file,
    push: () => runScrapeform(['state', 'push', pushed, '--state', file]),
  };
}

describe('a full or read-only disk under the state', () => {
  it('a full disk while the state is written: a user error naming the file, and no temporary file left', async () => {
    const { cwd, file, push } = await pushInto();
    disk.failure = { code: 'ENOSPC', at: 'write', match: /state\.json\.\d+\.[0-9a-f]{8}\.tmp$/ };
    for (let run = 0; run < 3; run++) {
      expect(await push()).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: cannot write the state file ${file}: no space left on the device (ENOSPC); the state was not changed\n  hint: free space on that disk, then run the command again\n`,
      });
    }
    // Neither the temporary files (which kept the disk full) nor the lock are left.
    expect(await readdir(cwd)).toEqual(['pushed.json']);
  });

  it('a full disk while the lock is written: the lock is not taken, and its temporary file goes', async () => {
    const { cwd, file, push } = await pushInto();
    disk.failure = { code: 'ENOSPC', at: 'write', match: /state\.json\.lock\.\d+\.[0-9a-f]{8}\.tmp$/ };
    expect(await push()).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot write the lock file ${file}.lock: no space left on the device (ENOSPC); the lock was not taken and nothing was written\n  hint: free space on that disk, then run the command again\n`,
    });
    expect(await readdir(cwd)).toEqual(['pushed.json']);
  });

  it('a read-only file system: a user error with what to do, not a bug report', async () => {
    const { cwd, file, push } = await pushInto();
    disk.failure = { code: 'EROFS', at: 'open', match: /state\.json\.lock\.\d+\.[0-9a-f]{8}\.tmp$/ };
    expect(await push()).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot write the lock file ${file}.lock: the file system is read-only (EROFS); the lock was not taken and nothing was written\n  hint: point --state (or SCRAPEFORM_STATE) at a writable place, or mount that one writable\n`,
    });
    expect(await readdir(cwd)).toEqual(['pushed.json']);
  });

  it('a quota used up while the state is written: the same, with its own cause', async () => {
    const { cwd, file, push } = await pushInto();
    disk.failure = { code: 'EDQUOT', at: 'write', match: /state\.json\.\d+\.[0-9a-f]{8}\.tmp$/ };
    const pushed = await push();
    expect(pushed.stderr).toBe(
      `error: cannot write the state file ${file}: the disk quota is used up (EDQUOT); the state was not changed\n  hint: free space or raise the quota, then run the command again\n`,
    );
    expect(await readdir(cwd)).toEqual(['pushed.json']);
  });

  it('a file past the size this process may write (ulimit -f): a user error, not a bug report with a stack', async () => {
    const { cwd, file, push } = await pushInto();
    disk.failure = { code: 'EFBIG', at: 'write', match: /state\.json\.\d+\.[0-9a-f]{8}\.tmp$/ };
    expect(await push()).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: cannot write the state file ${file}: the file would pass the largest size allowed (EFBIG); the state was not changed\n  hint: raise the file size limit (ulimit -f) or point --state (or SCRAPEFORM_STATE) at a file system that takes larger files, then run the command again\n`,
    });
    expect(await readdir(cwd)).toEqual(['pushed.json']);
  });
});
