import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { PlanInParts } from '../../../src/cli/plan-in-parts.js';
import type { CommandContext } from '../../../src/cli/io.js';
import { createColors } from '../../../src/output/colors.js';

/** What ctx.print wrote for renderPlan's text made of these parts. */
const printed = (parts: string[][]): string => `${parts.flat().join('\n').replace(/\n+$/, '')}\n`;

const cases: Record<string, string[][]> = {
  'changes and a warning': [['Plan: 2 to create.', ''], ['+ a', '    x', ''], ['+ b', ''], ['warning: w']],
  'trailing empty lines dropped': [['Plan: 1 to create.', ''], ['+ a', ''], []],
  'only the summary': [['No changes.'], []],
  'a line ending in a break': [
    ['Plan', ''],
    ['+ a\n', ''],
    ['', ''],
  ],
};

function context(out: string[]): CommandContext {
  const io = {
    stdout: { write: (text: string) => out.push(`out:${text}`) },
    stderr: { write: (text: string) => out.push(`err:${text}`) },
    env: {},
    stdoutIsTTY: false,
    stderrIsTTY: false,
    stdinIsTTY: false,
  };
  return {
    io,
    colors: createColors(false),
    stdoutColors: createColors(false),
    interactive: false,
    print: (text) => io.stdout.write(text.endsWith('\n') ? text : `${text}\n`),
    log: (text) => io.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
  };
}

const stdout = (out: string[]): string =>
  out
    .filter((w) => w.startsWith('out:'))
    .map((w) => w.slice(4))
    .join('');

describe('PlanInParts', () => {
  for (const [name, parts] of Object.entries(cases)) {
    it(`prints renderPlan's text byte for byte, a part at a time: ${name}`, async () => {
      const out: string[] = [];
      const inParts = new PlanInParts((text) => out.push(`out:${text}`));
      inParts.start(parts);
      inParts.hold(() => out.push('err:event'));
      for (let i = 0; i < 20; i++) await turn();
      expect(stdout(out)).toBe(printed(parts));
      expect(out.at(-1)).toBe('err:event');
    });

    it(`finish prints the rest at once, then what was held: ${name}`, () => {
      const out: string[] = [];
      const inParts = new PlanInParts((text) => out.push(`out:${text}`));
      inParts.start(parts);
      inParts.hold(() => out.push('err:first'));
      inParts.hold(() => out.push('err:second'));
      inParts.finish();
      expect(stdout(out)).toBe(printed(parts));
      expect(out.slice(-2)).toEqual(['err:first', 'err:second']);
      inParts.hold(() => out.push('err:after'));
      expect(out.at(-1)).toBe('err:after');
    });
  }

  it('any other output of the command waits for the whole plan', () => {
    const out: string[] = [];
    const ctx = context(out);
    const inParts = new PlanInParts((text) => ctx.io.stdout.write(text));
    const parts = cases['changes and a warning'] ?? [];
    inParts.start(parts);
    inParts.hold(() => ctx.log('progress'));
    inParts.context(ctx).log('warning: a retry');
    expect(stdout(out)).toBe(printed(parts));
    const firstErr = out.findIndex((w) => w.startsWith('err:'));
    expect(out.slice(firstErr)).toEqual(['err:progress\n', 'err:warning: a retry\n']);
  });
});

// Review: a part that failed to render once the calls ran threw from a timer, out of reach of apply.
describe('a part that fails to render', () => {
  it('after the first: said where the plan stops, what was held is shown, and nothing is thrown', async () => {
    function* parts(): Generator<string[]> {
      yield ['Plan: 2 to create.', ''];
      yield ['+ a', ''];
      throw new Error('render bug in a change');
    }
    const out: string[] = [];
    const inParts = new PlanInParts((text) => out.push(`out:${text}`));
    inParts.start(parts());
    inParts.hold(() => out.push('err:event'));
    for (let i = 0; i < 10; i++) await turn();
    expect(stdout(out)).toBe(
      'Plan: 2 to create.\n\n+ a\n\nwarning: the rest of the plan could not be printed (a bug: report it): render bug in a change\n',
    );
    expect(out.at(-1)).toBe('err:event');
  });

  it('the first: thrown by start, before any call, as a render at once would be', () => {
    const parts: Iterable<string[]> = {
      [Symbol.iterator]: () => ({
        next: () => {
          throw new Error('render bug in the summary');
        },
      }),
    };
    const inParts = new PlanInParts(() => undefined);
    expect(() => inParts.start(parts)).toThrow('render bug in the summary');
  });
});
