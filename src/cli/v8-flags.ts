import { setFlagsFromString } from 'node:v8';

/**
 * V8 tuned for apply's calls. A command runs for a second or a few, so V8's optimising compiler (TurboFan) earns
 * back little of what it spends: in a run of 1,000 project creates its four background threads took about 0.3 s of
 * CPU compiling hot functions, next to the main thread's 0.6 s, on a machine of two cores shared with the service
 * it calls (BENCHMARKS.md, scale: the create row, where the emulator runs on the other core). With a larger
 * interrupt budget a function runs longer before it is considered, which leaves out those that would not pay: four
 * times Node 20's took the CLI's CPU for 1,200 creates from 1.5 s to 1.3 s, in the same bench rounds.
 *
 * Set only once apply's plan is shown, for its calls, and put back before the process exits: a flag set at run
 * time also turns away Node's own compiled code for every built-in module loaded after it (about 1.14x the time to
 * load http, https, crypto and readline), and V8 keys the bin's code cache (code-cache.ts) by its flags, so entries
 * written under the tuned flag would be refused by the next run's start. Set at start instead, it made
 * `scrapeform --version` 1.1x slower. Only on Node 20's V8, whose default is known here; `node --interrupt-budget=N`
 * keeps a budget of one's own.
 */

/** Node 20's V8 (11.3) default interrupt budget: 66 KB of bytecode executed before a function is considered. */
export const DEFAULT_INTERRUPT_BUDGET = 67_584;
export const CALLS_INTERRUPT_BUDGET = 4 * DEFAULT_INTERRUPT_BUDGET;

/** What tuning touches of the process; tests pass their own. */
export interface V8Host {
  v8Version: string;
  execArgv: readonly string[];
  setFlags(flag: string): void;
  /** Runs `listener` as the process exits, before every other exit listener (the code cache writes in one). */
  beforeExit(listener: () => void): void;
}

const processHost = (): V8Host => ({
  v8Version: process.versions.v8,
  execArgv: process.execArgv,
  setFlags: setFlagsFromString,
  beforeExit: (listener) => process.prependListener('exit', listener),
});

let tuned = false;

/** Raises the interrupt budget for apply's calls, once per process; false when left alone (see above). */
export function tuneForCalls(host: V8Host = processHost()): boolean {
  if (tuned || !host.v8Version.startsWith('11.3.')) return false;
  if (host.execArgv.some((arg) => /^--interrupt[-_]budget(?:=|$)/.test(arg))) return false;
  tuned = true;
  host.setFlags(`--interrupt-budget=${CALLS_INTERRUPT_BUDGET}`);
  host.beforeExit(() => host.setFlags(`--interrupt-budget=${DEFAULT_INTERRUPT_BUDGET}`));
  return true;
}

/** For tests: as if no run had tuned this process. */
export function resetTuningForTests(): void {
  tuned = false;
}
