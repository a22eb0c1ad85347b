import { afterEach, describe, expect, it } from 'vitest';
import {
  CALLS_INTERRUPT_BUDGET,
  DEFAULT_INTERRUPT_BUDGET,
  resetTuningForTests,
  tuneForCalls,
} from '../../../src/cli/v8-flags.js';
import type { V8Host } from '../../../src/cli/v8-flags.js';

/** A process as tuning sees it: the flags it was given, and the exit listeners it was handed. */
function host(v8Version = '11.3.244.8-node.38', execArgv: string[] = []) {
  const flags: string[] = [];
  const atExit: (() => void)[] = [];
  const fake: V8Host = {
    v8Version,
    execArgv,
    setFlags: (flag) => flags.push(flag),
    beforeExit: (listener) => atExit.push(listener),
  };
  return { fake, flags, exit: () => atExit.forEach((listener) => listener()) };
}

afterEach(resetTuningForTests);

describe("V8 tuned for apply's calls", () => {
  it("raises Node 20's interrupt budget fourfold, and puts the default back as the process exits", () => {
    expect([DEFAULT_INTERRUPT_BUDGET, CALLS_INTERRUPT_BUDGET]).toEqual([67_584, 270_336]);
    const p = host();
    expect(tuneForCalls(p.fake)).toBe(true);
    expect(p.flags).toEqual(['--interrupt-budget=270336']);
    p.exit();
    expect(p.flags).toEqual(['--interrupt-budget=270336', '--interrupt-budget=67584']);
  });

  it('tunes once per process', () => {
    const p = host();
    expect(tuneForCalls(p.fake)).toBe(true);
    expect(tuneForCalls(p.fake)).toBe(false);
    expect(p.flags).toHaveLength(1);
  });

  it('leaves another V8 alone: its default budget is not known here, and putting it back must restore it', () => {
    const p = host('12.4.254.21-node.33');
    expect(tuneForCalls(p.fake)).toBe(false);
    p.exit();
    expect(p.flags).toEqual([]);
  });

  it('leaves a budget given on the command line of node alone, in either spelling', () => {
    for (const given of [
      ['--interrupt-budget=1000'],
      ['--interrupt_budget=1000'],
      ['--interrupt-budget', '1000'],
    ]) {
      const p = host(undefined, given);
      expect(tuneForCalls(p.fake), given.join(' ')).toBe(false);
      expect(p.flags).toEqual([]);
    }
    // A flag that only starts the same is another flag.
    const p = host(undefined, ['--interrupt-budget-for-feedback-allocation=10']);
    expect(tuneForCalls(p.fake)).toBe(true);
  });
});
