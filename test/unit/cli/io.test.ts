import { describe, expect, it } from 'vitest';
import { flushPendingOutput, gathered } from '../../../src/cli/io.js';

function recorder(name: string, log: string[]): { write(text: string): unknown } {
  return { write: (text: string) => log.push(`${name}:${text}`) };
}

describe('gathered: writes of one turn of the event loop go out together', () => {
  it('writes nothing at once, then one write per run of one stream, in the order written', async () => {
    const log: string[] = [];
    const out = gathered(recorder('out', log));
    const err = gathered(recorder('err', log));
    out.write('a\n');
    out.write('b\n');
    err.write('warning\n');
    out.write('c\n');
    expect(log).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['out:a\nb\n', 'err:warning\n', 'out:c\n']);
  });

  it('flushPendingOutput writes at once what is held (before a prompt or the exit), and only once', async () => {
    const log: string[] = [];
    const err = gathered(recorder('err', log));
    err.write('plan\n');
    flushPendingOutput();
    expect(log).toEqual(['err:plan\n']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(['err:plan\n']);
  });
});
