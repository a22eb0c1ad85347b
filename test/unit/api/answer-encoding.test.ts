import { gzipSync } from 'node:zlib';
import type { Dispatcher } from 'undici';
import { describe, expect, it } from 'vitest';
import {
  AnswerUndecodable,
  fetchBodyChunks,
  keepEncoded,
  SENT_ENCODING,
} from '../../../src/api/answer-encoding.js';

/** A dispatcher that answers every request with `headers` through whichever interface the handler has. */
function answering(headers: Record<string, string>): Dispatcher {
  return {
    dispatch: (_options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler) => {
      if (handler.onResponseStart !== undefined) {
        handler.onResponseStart({} as Dispatcher.DispatchController, 200, headers, 'OK');
      } else {
        const raw = Object.entries(headers).flatMap(([name, value]) => [
          Buffer.from(name),
          Buffer.from(value),
        ]);
        handler.onHeaders?.(200, raw, () => undefined, 'OK');
      }
      return true;
    },
  } as unknown as Dispatcher;
}

/** What a handler of each of undici's interfaces is told of the answer's headers. */
function headersSeen(headers: Record<string, string>): { legacy: Record<string, string>; current: unknown } {
  const dispatcher = keepEncoded(answering(headers));
  const seen: { legacy: Record<string, string>; current: unknown } = { legacy: {}, current: undefined };
  const legacy: Dispatcher.DispatchHandler = {
    onHeaders: (_status, raw) => {
      for (let i = 0; i < raw.length; i += 2) seen.legacy[String(raw[i])] = String(raw[i + 1]);
      return true;
    },
  };
  const current: Dispatcher.DispatchHandler = {
    onResponseStart: (_controller, _status, given) => {
      seen.current = given;
    },
  };
  for (const handler of [legacy, current]) {
    dispatcher.dispatch({ origin: 'http://x', path: '/', method: 'GET' }, handler);
  }
  return seen;
}

describe('keepEncoded: fetch is handed compressed bodies as sent', () => {
  it('moves a content-encoding it decodes out of fetch sight, under either handler interface', () => {
    expect(headersSeen({ 'content-type': 'application/json', 'Content-Encoding': ' GZIP ' }).legacy).toEqual({
      'content-type': 'application/json',
      [SENT_ENCODING]: ' GZIP ',
    });
    // The newer interface gets headers by lower-case name, as undici gives them.
    expect(headersSeen({ 'content-type': 'application/json', 'content-encoding': 'br' })).toEqual({
      legacy: { 'content-type': 'application/json', [SENT_ENCODING]: 'br' },
      current: { 'content-type': 'application/json', [SENT_ENCODING]: 'br' },
    });
  });

  it('leaves any other content-encoding to fetch (a list of codings, one it does not know)', () => {
    for (const encoding of ['gzip, br', 'zstd', 'identity']) {
      expect(headersSeen({ 'content-encoding': encoding })).toEqual({
        legacy: { 'content-encoding': encoding },
        current: { 'content-encoding': encoding },
      });
    }
  });
});

/** `body` read through fetchBodyChunks as text. */
async function readAll(body: AsyncIterable<Uint8Array>, encoding: string | null): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const part of fetchBodyChunks(body, encoding)) parts.push(part);
  return Buffer.concat(parts).toString('utf8');
}

async function read(chunks: Uint8Array[], encoding: string | null): Promise<string> {
  async function* body(): AsyncGenerator<Uint8Array> {
    yield* chunks;
  }
  return readAll(body(), encoding);
}

describe('fetchBodyChunks: decodes strictly', () => {
  const text = JSON.stringify({ id: 'p-1', version: 3 });
  const gzip = gzipSync(text);

  it('a whole body, in pieces; a body of no byte is empty whatever it names; no encoding reads as it came', async () => {
    expect(await read([gzip.subarray(0, 5), gzip.subarray(5)], 'gzip')).toBe(text);
    expect(await read([], 'gzip')).toBe('');
    expect(await read([Buffer.from(text)], null)).toBe(text);
  });

  it('a body cut short, even by its trailer alone, or not in its encoding: AnswerUndecodable, saying which', async () => {
    const cut = await read([gzip.subarray(0, gzip.length - 4)], 'gzip').catch((e: unknown) => e);
    expect(cut).toBeInstanceOf(AnswerUndecodable);
    expect((cut as Error).message).toBe('its gzip body was cut short (unexpected end of file)');
    const error = await read([Buffer.from('plain')], 'gzip').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerUndecodable);
    expect((error as Error).message).toBe('its body is not valid gzip data (incorrect header check)');
  });

  it('a body that breaks off is that failure, not an undecodable one', async () => {
    const broken = new TypeError('terminated');
    async function* body(): AsyncGenerator<Uint8Array> {
      yield gzip.subarray(0, 10);
      throw broken;
    }
    await expect(readAll(body(), 'gzip')).rejects.toBe(broken);
  });
});
