import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  flushPendingOutput,
  gathered,
  outputFailure,
  quietOnClosedPipe,
  writtenOut,
} from '../../../src/cli/io.js';

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

describe('writtenOut: the exit waits for what a slow reader has not taken yet', () => {
  /** A stream that takes each chunk 20 ms after it is written, with room for far more than is written. */
  function slowStream(taken: string[]): Writable {
    return new Writable({
      highWaterMark: 1024 * 1024,
      write(chunk: Buffer, _encoding, done) {
        setTimeout(() => {
          taken.push(chunk.toString());
          done();
        }, 20);
      },
    });
  }

  it('resolves once every earlier write is out, though no write filled the buffer (no drain comes)', async () => {
    const taken: string[] = [];
    const stream = slowStream(taken);
    for (const text of ['a', 'b', 'c']) expect(stream.write(text)).toBe(true);
    expect(stream.writableNeedDrain).toBe(false);
    await writtenOut(stream);
    expect(taken.join('')).toBe('abc');
  });

  it('resolves at once when nothing waits, and when the stream is already destroyed', async () => {
    const idle = slowStream([]);
    await writtenOut(idle);
    const broken = slowStream([]);
    broken.write('x');
    broken.destroy();
    await writtenOut(broken);
  });
});

describe('outputFailure: output that did not get out is an error, a reader that left is not', () => {
  function failing(code: string): Writable {
    return new Writable({
      write: (_chunk, _encoding, done) =>
        done(Object.assign(new Error(`${code}: it failed, write`), { code })),
    });
  }

  it('a full disk is a failure, and later writes are dropped without throwing', async () => {
    const stream = failing('ENOSPC');
    const out = quietOnClosedPipe(stream);
    out.write('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.write('b')).toBe(false);
    expect(outputFailure(stream)?.message).toBe('ENOSPC: it failed, write');
  });

  it('EPIPE (plan | head -1) is none, and neither is a stream that never failed', async () => {
    const stream = failing('EPIPE');
    quietOnClosedPipe(stream).write('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(outputFailure(stream)).toBeUndefined();
    expect(outputFailure(new Writable({ write: (_c, _e, done) => done() }))).toBeUndefined();
  });
});
