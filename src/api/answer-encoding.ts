import { createRequire } from 'node:module';
import { pipeline, Readable, Transform } from 'node:stream';
import type { TransformCallback } from 'node:stream';
import type * as Zlib from 'node:zlib';
import type { Dispatcher } from 'undici';

/**
 * Compressed answers, decoded the same strict way whichever way the request went. Over Node's http module nothing
 * asks for compression, but a server may compress anyway; fetch asks for it (`accept-encoding: gzip, deflate`, and
 * `br` over https) and decodes leniently, as browsers do: a gzip body cut short came out as the text before the cut,
 * with no error. So the way through a proxy read a cut answer as a body of the wrong shape (`api.bad-response`, not
 * retried), or as a success where the body is not read (a delete, a project PATCH), when the way without one read it
 * as a broken connection. fetch is handed the bytes as sent (keepEncoded) and they are decoded here, reading what
 * fetch read whole (a raw deflate body: DeflateDecoder) and nothing cut short.
 */

const requireBuiltin = createRequire(import.meta.url);

/** node:zlib, loaded only for an answer that is compressed. */
function zlibModule(): typeof Zlib {
  return requireBuiltin('node:zlib') as typeof Zlib;
}

/** The content-encodings decoded, each named alone (any case, blanks around it): the ones fetch asks for. */
const DECODERS: Readonly<Record<string, (zlib: typeof Zlib) => Transform>> = {
  gzip: (zlib) => zlib.createGunzip(),
  'x-gzip': (zlib) => zlib.createGunzip(),
  deflate: (zlib) => new DeflateDecoder(zlib),
  br: (zlib) => zlib.createBrotliDecompress(),
};

/**
 * `deflate` as fetch and browsers read it: zlib-wrapped (RFC 9110 section 8.4.1.2) or, as some servers send it, raw
 * (RFC 1951), told apart by the first byte (a zlib header's low four bits are 8, its method). Strict either way: a
 * stream cut short still fails with zlib's Z_BUF_ERROR. Before scrapeform decoded answers itself, fetch read a raw
 * one; refused as "not the deflate it says it is", every answer of such a server was no answer.
 */
class DeflateDecoder extends Transform {
  private inflate: Transform | undefined;

  constructor(private readonly zlib: typeof Zlib) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.inflate === undefined) {
      if (chunk.length === 0) return done();
      const inflate =
        ((chunk[0] ?? 0) & 0x0f) === 0x08 ? this.zlib.createInflate() : this.zlib.createInflateRaw();
      inflate.on('data', (data: Buffer) => this.push(data));
      inflate.on('error', (error) => this.destroy(error));
      this.inflate = inflate;
    }
    this.inflate.write(chunk, () => done());
  }

  override _flush(done: TransformCallback): void {
    const inflate = this.inflate;
    if (inflate === undefined) return done();
    inflate.once('end', () => done());
    inflate.end();
  }

  override _destroy(error: Error | null, done: (error: Error | null) => void): void {
    this.inflate?.destroy();
    done(error);
  }
}

function decoderOf(encoding: string | null | undefined): ((zlib: typeof Zlib) => Transform) | undefined {
  const name = encoding?.trim().toLowerCase();
  return name !== undefined && Object.hasOwn(DECODERS, name) ? DECODERS[name] : undefined;
}

/** A decoder for a content-encoding of DECODERS, or undefined for any other (the body is read as it came). */
export function decoderFor(encoding: string | null | undefined): Transform | undefined {
  return decoderOf(encoding)?.(zlibModule());
}

/**
 * A body that does not decode as the encoding it names: cut short (its compressed stream ends before its end, the
 * connection having closed in order), or not in that encoding at all. No complete answer came, as when the
 * connection breaks during it. `cut` tells them apart: a whole body in another encoding was not cut short, and is
 * not said to be (cutAnswerError).
 */
export class AnswerUndecodable extends Error {
  readonly cut: boolean;

  constructor(encoding: string, cause: unknown) {
    // zlib's "unexpected end of file", whichever the encoding: the stream ended before its end.
    const cut = (cause as NodeJS.ErrnoException | undefined)?.code === 'Z_BUF_ERROR';
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      cut
        ? `its ${encoding} body was cut short (${reason})`
        : `its body is not valid ${encoding} data (${reason})`,
      { cause },
    );
    this.name = 'AnswerUndecodable';
    this.cut = cut;
  }
}

/**
 * The header an answer's content-encoding is moved to on the way to fetch, so that fetch leaves the body as sent:
 * fetchBodyChunks decodes it when it is there.
 */
export const SENT_ENCODING = 'x-scrapeform-content-encoding';

/**
 * `dispatcher` as fetch is given it: the content-encoding of each answer, when decoderFor knows it, moved to
 * SENT_ENCODING before fetch reads the headers (fetch decodes only what `content-encoding` names). Anything else
 * (a list of codings) is left to fetch. Under nock, fetch is not sent through a dispatcher and decodes as it does.
 */
export function keepEncoded(dispatcher: Dispatcher): Pick<Dispatcher, 'dispatch'> {
  return { dispatch: (options, handler) => dispatcher.dispatch(options, movingEncoding(handler)) };
}

/** `handler` with the content-encoding of the answer moved, for either of undici's handler interfaces. */
function movingEncoding(handler: Dispatcher.DispatchHandler): Dispatcher.DispatchHandler {
  const moving = Object.create(handler) as Dispatcher.DispatchHandler;
  const { onResponseStart, onHeaders } = handler;
  if (onResponseStart !== undefined) {
    moving.onResponseStart = function (this: unknown, controller, status, headers, message) {
      const encoding = headers['content-encoding'];
      if (typeof encoding !== 'string' || decoderOf(encoding) === undefined) {
        return onResponseStart.call(this, controller, status, headers, message);
      }
      const { ['content-encoding']: _moved, ...rest } = headers;
      return onResponseStart.call(this, controller, status, { ...rest, [SENT_ENCODING]: encoding }, message);
    };
  } else if (onHeaders !== undefined) {
    moving.onHeaders = function (this: unknown, status, rawHeaders, resume, message) {
      return onHeaders.call(this, status, movedRaw(rawHeaders), resume, message);
    };
  }
  return moving;
}

/** Raw headers (name, value, name, value…) with a known content-encoding's name changed to SENT_ENCODING. */
function movedRaw(rawHeaders: Buffer[]): Buffer[] {
  const moved = rawHeaders.slice();
  for (let i = 0; i + 1 < moved.length; i += 2) {
    const name = String(moved[i]).toLowerCase();
    const value = moved[i + 1];
    if (name === 'content-encoding' && !Array.isArray(value) && decoderOf(String(value)) !== undefined) {
      moved[i] = Buffer.from(SENT_ENCODING);
    }
  }
  return moved;
}

/**
 * fetch's body in chunks, decoded when `encoding` (its SENT_ENCODING header) names a known encoding: as strictly as
 * readText decodes over node:http (AnswerUndecodable), while a body that breaks off fails as it did. A complete
 * body of no byte is empty whatever encoding it names, as readText reads it.
 */
export async function* fetchBodyChunks(
  body: AsyncIterable<Uint8Array>,
  encoding: string | null,
): AsyncGenerator<Uint8Array> {
  const decoder = decoderFor(encoding);
  if (decoder === undefined || encoding === null) {
    yield* body;
    return;
  }
  let sent = 0;
  let broken: unknown;
  const counted = (async function* () {
    try {
      for await (const chunk of body) {
        sent += chunk.byteLength;
        yield chunk;
      }
    } catch (error) {
      broken = error;
      throw error;
    }
  })();
  // The decoder's errors come out of its iterator; so do the body's (the connection broke), forwarded by pipeline.
  const decoded = pipeline(Readable.from(counted), decoder, () => undefined);
  try {
    for await (const chunk of decoded as AsyncIterable<Buffer>) yield chunk;
  } catch (error) {
    if (broken !== undefined) throw broken;
    if (sent === 0) return;
    throw new AnswerUndecodable(encoding.trim().toLowerCase(), error);
  }
}
