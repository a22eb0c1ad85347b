import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * What tells a process apart beyond its host name and pid, read from /proc where the system has it (Linux): a
 * container sharing the host name has its own pid namespace, so the pid of a run in another container (or on the
 * host) is not visible there and `kill(pid, 0)` would call it dead. Each field is undefined where /proc lacks it.
 */
export interface ProcessIdentity {
  /** /proc/sys/kernel/random/boot_id: changes at every boot, the same in every container of one kernel. */
  bootId?: string;
  /** The link of /proc/self/ns/pid, such as `pid:[4026531836]`: one per pid namespace. */
  pidNamespace?: string;
  /** Field 22 of /proc/PID/stat (clock ticks after boot): a pid reused by another process starts later. */
  processStart?: string;
}

export function currentProcessIdentity(): ProcessIdentity {
  const bootId = readText('/proc/sys/kernel/random/boot_id');
  const pidNamespace = readLink('/proc/self/ns/pid');
  const processStart = processStartOf(process.pid);
  return {
    ...(bootId !== undefined ? { bootId } : {}),
    ...(pidNamespace !== undefined ? { pidNamespace } : {}),
    ...(processStart !== undefined ? { processStart } : {}),
  };
}

/** When a process of this pid namespace started, or undefined when it does not run or /proc cannot say. */
export function processStartOf(pid: number): string | undefined {
  // Fields from 3 on: starttime, field 22, is the 20th of them.
  return statFieldsOf(pid)?.[19];
}

/**
 * Whether a process has ended but not been reaped yet: a zombie (`Z`) or dead (`X`) in field 3 of /proc/PID/stat.
 * Such a process answers `kill(pid, 0)` and keeps its start time until its parent waits for it, which a container
 * whose PID 1 never reaps does never: its lock is stale all the same. False where /proc cannot say.
 */
export function processEnded(pid: number): boolean {
  const state = statFieldsOf(pid)?.[0];
  return state === 'Z' || state === 'X';
}

/** The fields of /proc/PID/stat from field 3 (the process state) on, or undefined when it cannot be read. */
function statFieldsOf(pid: number): string[] | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces or parentheses itself: count after the last.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** Who held a lock, as this process can judge them. */
export type HolderStatus =
  /** Runs on this machine, in this pid namespace: its lock is in use. */
  | 'alive'
  /** Ran on this machine and is gone (or the machine booted since): its lock can be taken over. */
  | 'dead'
  /** Another host, or another pid namespace (container) of this one: this process cannot tell. */
  | 'unknown';

export interface HeldBy extends ProcessIdentity {
  host: string;
  pid: number;
}

/**
 * Whether the holder of a lock still runs. With boot id and pid namespace on both sides (Linux), the pid is
 * looked at only in the same namespace of the same boot, and a pid now used by a process started at another time
 * is gone; a lock of an earlier boot is dead. A lock without them (an earlier scrapeform, or another system) is
 * judged as it always was: the same host name and a pid that does not answer `kill(pid, 0)`.
 */
export function judgeHolder(held: HeldBy, here: ProcessIdentity = currentProcessIdentity()): HolderStatus {
  if (held.host !== hostname()) return 'unknown';
  if (held.bootId !== undefined || here.bootId !== undefined) {
    if (held.bootId !== undefined && here.bootId !== undefined) {
      if (held.bootId !== here.bootId) return 'dead';
      if (held.pidNamespace === undefined || held.pidNamespace !== here.pidNamespace) return 'unknown';
      if (!processAlive(held.pid)) return 'dead';
      const started = processStartOf(held.pid);
      if (held.processStart !== undefined && started !== undefined && started !== held.processStart)
        return 'dead';
      return 'alive';
    }
    // Only one side knows its boot: a lock of an earlier scrapeform is judged as before; one from a system with
    // /proc read on a system without it cannot be.
    if (held.bootId !== undefined) return 'unknown';
  }
  return processAlive(held.pid) ? 'alive' : 'dead';
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !processEnded(pid);
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}

function readLink(file: string): string | undefined {
  try {
    return readlinkSync(file);
  } catch {
    return undefined;
  }
}
