import http from 'node:http';
import type * as Https from 'node:https';
import type { Agent as HttpsAgent } from 'node:https';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import { urlToHttpOptions } from 'node:url';
import type { Dispatcher } from 'undici';
import {
  AnswerUndecodable,
  decoderFor,
  fetchBodyChunks,
  keepEncoded,
  SENT_ENCODING,
} from './answer-encoding.js';
import type { TrySignal } from './try-signal.js';

const requireBuiltin = createRequire(import.meta.url);

/** The headers of an answer, as the transport reads them (names are case-insensitive). */
export interface AnswerHeaders {
  get(name: string): string | null;
}

/** What the transport reads of an answer, whichever way the request went. */
export interface WireAnswer {
  status: number;
  headers: AnswerHeaders;
  /**
   * The whole body as text; rejects when the connection breaks or the signal aborts before its end, and with
   * AnswerTooLarge once more than `maxBytes` came (decompressed), before holding more.
   */
  text(maxBytes: number): Promise<string>;
  /** The body is not wanted (a redirect): drop it so the connection can be used again. */
  discard(): Promise<void>;
}

export interface WireRequest {
  method: string;
  /** Shared by many requests: copied, never changed. */
  headers: Readonly<Record<string, string>>;
  body: string | undefined;
  /** The deadline of the try (and Ctrl-C): calls off the request, or the reading of its answer. */
  deadline: TrySignal;
}

/**
 * An answer longer than the transport reads (TransportOptions.maxAnswerBytes): not read further, so neither memory
 * nor Node's longest string (about 512 million characters, past which making the text threw outside any handler)
 * is reached.
 */
export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${limit} bytes`);
    this.name = 'AnswerTooLarge';
  }
}

/** Sends one request, without following redirects (the transport judges them). */
export type Send = (url: URL, request: WireRequest) => Promise<WireAnswer>;

/**
 * The keep-alive connection pools of one set of clients; closed with them so the process can exit at once. The
 * https pool (and Node's TLS stack with it) is made on the first https request: the emulator is plain http.
 */
export interface ConnectionPools {
  http: http.Agent;
  https: () => HttpsAgent;
  close: () => void;
}

export function createConnectionPools(): ConnectionPools {
  const plain = new http.Agent({ keepAlive: true });
  let secure: HttpsAgent | undefined;
  return {
    http: plain,
    https: () => (secure ??= new (httpsModule().Agent)({ keepAlive: true })),
    close: () => {
      plain.destroy();
      secure?.destroy();
    },
  };
}

/** node:https, loaded on first use (about 8 ms of a start with TLS and its certificates). */
function httpsModule(): typeof Https {
  return requireBuiltin('node:https') as typeof Https;
}

/**
 * Over Node's http and https modules, with keep-alive pools: the way without a proxy. Measured against the
 * emulator (BENCHMARKS.md, scale), a call costs about a quarter of the CPU it costs through fetch, whose WHATWG
 * streams, request clones and signals were most of what a large apply spent per call. nock intercepts these
 * modules as it does fetch, so the contract tests cover this path.
 */
export function sendOverHttp(pools: ConnectionPools | undefined): Send {
  return (url, request) =>
    new Promise<WireAnswer>((resolve, reject) => {
      const { secure, ...address } = addressOf(url);
      const headers: Record<string, string> = { ...request.headers };
      if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
      const options: http.RequestOptions = { ...address, method: request.method, headers };
      // Without pools of its own (a Transport made directly, as tests do) Node's global keep-alive agents serve.
      if (pools !== undefined) options.agent = secure ? pools.https() : pools.http;
      const outgoing = (secure ? httpsModule() : http).request(options, (incoming) => {
        resolve(answerOf(incoming, request.deadline));
      });
      outgoing.on('error', reject);
      // As http.request's own `signal` option would, without an AbortSignal per try; the listener goes with the try.
      request.deadline.onAbort((reason) => outgoing.destroy(abortError(reason)));
      outgoing.end(request.body);
    });
}

/** Where a request goes, as http.request's options take it (its scheme apart). */
interface Address {
  secure: boolean;
  hostname: string | undefined;
  port: number | string | undefined;
  path: string | undefined;
  auth?: string;
}

/**
 * A URL as http.request reads it (urlToHttpOptions: brackets off an IPv6 host, the path with its query, user info
 * as `auth`), once per URL object: the transport reuses them, and the URL's getters cost more than the rest.
 */
const addresses = new WeakMap<URL, Address>();

function addressOf(url: URL): Address {
  let address = addresses.get(url);
  if (address === undefined) {
    const { hostname, port, path, auth } = urlToHttpOptions(url);
    address = {
      secure: url.protocol === 'https:',
      hostname: hostname ?? undefined,
      port: port ?? undefined,
      path: path ?? undefined,
      ...(auth !== undefined && auth !== null ? { auth } : {}),
    };
    addresses.set(url, address);
  }
  return address;
}

/** The error http.request's `signal` option fails a request with: an AbortError whose cause is the reason. */
function abortError(reason: unknown): Error {
  const error = new Error('The operation was aborted', { cause: reason });
  error.name = 'AbortError';
  (error as NodeJS.ErrnoException).code = 'ABORT_ERR';
  return error;
}

function answerOf(incoming: http.IncomingMessage, deadline: TrySignal): WireAnswer {
  return {
    status: incoming.statusCode ?? 0,
    headers: {
      get: (name) => {
        const value = incoming.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    text: (maxBytes) => readText(incoming, deadline, maxBytes),
    discard: async () => discardBody(incoming),
  };
}

/** How much of a body nobody reads (a redirect's) is let through so its connection can be used again. */
const DISCARD_MAX_BYTES = 64 * 1024;
/** How long such a body may take to end before its connection is closed instead. */
const DISCARD_MAX_MS = 5_000;

/**
 * Lets a body nobody reads (a redirect's) through, so that its connection can serve the next call; one larger than
 * DISCARD_MAX_BYTES, or not ended within DISCARD_MAX_MS, ends its connection instead. The try's own limits are gone
 * once it has its answer: an endless body was read on for as long as the process lived (`watch`, round after round).
 */
function discardBody(incoming: http.IncomingMessage): void {
  if (incoming.complete) return;
  let size = 0;
  const timer = setTimeout(() => incoming.destroy(), DISCARD_MAX_MS);
  timer.unref();
  incoming.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > DISCARD_MAX_BYTES) incoming.destroy();
  });
  incoming.once('close', () => clearTimeout(timer));
  incoming.on('error', () => undefined);
  incoming.resume();
}

/** The body as UTF-8 text, decompressed when the server compressed it anyway (nothing asks it to). */
function readText(incoming: http.IncomingMessage, deadline: TrySignal, maxBytes: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const encoding = (incoming.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    const decoder = decoderFor(encoding);
    const source: Readable = decoder !== undefined ? incoming.pipe(decoder) : incoming;
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      incoming.destroy();
      reject(error instanceof Error ? error : new Error(String(error)));
    };
    if (deadline.aborted) return fail(deadline.reason);
    const off = deadline.onAbort(fail);
    const finish = (): void => {
      off();
      if (settled) return;
      settled = true;
      try {
        resolve(withoutMark(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    };
    // Bytes of the body as sent: a complete body of none is empty whatever encoding it names (a 204 that says
    // gzip), as fetch reads it; a decoder given no byte fails ("unexpected end of file"), which read as a broken
    // connection made a start that landed "may have started", and a delete that did was sent again.
    let sent = 0;
    if (decoder !== undefined) incoming.on('data', (chunk: Buffer) => (sent += chunk.length));
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        decoder?.destroy();
        return fail(new AnswerTooLarge(maxBytes));
      }
      chunks.push(chunk);
    });
    // The body as sent is not what it says it is, or its compressed stream was cut short with the connection
    // closed in order: no complete answer, as fetch's path reads it (answer-encoding.ts).
    decoder?.on('error', (error) =>
      sent === 0 && incoming.complete ? finish() : fail(new AnswerUndecodable(encoding, error)),
    );
    incoming.on('error', fail);
    // A connection that closes before the whole body came is a broken answer, not a short one.
    incoming.on('close', () => {
      if (!incoming.complete) fail(new Error('the connection closed before the whole answer was read'));
    });
    source.on('end', finish);
  });
}

/**
 * Over fetch with an undici dispatcher: the way through a proxy (EnvHttpProxyAgent honours HTTP(S)_PROXY and
 * NO_PROXY). Redirects are left to the transport: fetch would follow them to any origin, key included. Compressed
 * answers are decoded by readFetchText, as strictly as readText decodes them (answer-encoding.ts).
 */
export function sendOverFetch(given: Dispatcher): Send {
  const dispatcher = keepEncoded(given);
  return async (url, request) => {
    const init: Record<string, unknown> = {
      method: request.method,
      headers: request.headers,
      body: request.body,
      signal: request.deadline.signal,
      redirect: 'manual',
      dispatcher,
    };
    // The global fetch, looked up at call time so nock's interception applies; @types/node 20 lacks `dispatcher`.
    const response = await globalThis.fetch(url, init as unknown as RequestInit);
    return {
      status: response.status,
      headers: response.headers,
      text: (maxBytes) => readFetchText(response, maxBytes),
      discard: async () => {
        await response.body?.cancel().catch(() => undefined);
      },
    };
  };
}

/** As fetch's text(): a byte-order mark is not part of the text. */
function withoutMark(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * fetch's body as text, as readText reads Node's: decoded strictly (AnswerUndecodable), at most `maxBytes` of it,
 * then AnswerTooLarge.
 */
async function readFetchText(response: Response, maxBytes: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (response.body === null) return '';
  const body = response.body as unknown as AsyncIterable<Uint8Array>;
  // Leaving the loop (the throw) cancels the body: the stream's iterator does on return.
  for await (const chunk of fetchBodyChunks(body, response.headers.get(SENT_ENCODING))) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new AnswerTooLarge(maxBytes);
    chunks.push(chunk);
  }
  return withoutMark(Buffer.concat(chunks).toString('utf8'));
}

/**
 * What the transport reads of an answer at most: far beyond any list or parse seen, well below Node's longest string.
 */
export const MAX_ANSWER_BYTES = 256 * 1024 * 1024;

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
    ? `${bytes / 1024 / 1024} MiB`
    : `${bytes} bytes`;
}

/**
 * How deep the arrays and objects of an answer may nest: far beyond any answer seen (a parser's example result nests
 * a few levels), well within what every walk over an answer can take (redaction, schema checks, comparisons, state
 * and plan files, manifests written by import), which recurse and threw "Maximum call stack size exceeded" at some
 * thousands of levels that JSON.parse had read without complaint.
 */
export const MAX_ANSWER_DEPTH = 1000;

/** An answer that nests deeper than MAX_ANSWER_DEPTH: a bad response, never walked. */
export class AnswerTooDeep extends Error {
  constructor(readonly limit: number) {
    super(`the answer nests arrays or objects more than ${limit} levels deep`);
    this.name = 'AnswerTooDeep';
  }
}

/**
 * An answer's body: parsed JSON, the text when it is not JSON, undefined when empty; at most `maxBytes`, and
 * AnswerTooDeep when its values nest deeper than MAX_ANSWER_DEPTH.
 */
export async function readBody(response: WireAnswer, maxBytes: number): Promise<unknown> {
  const text = await response.text(maxBytes);
  if (text === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    return text;
  }
  // Each level takes at least two characters (`[]`): a shorter text cannot nest too deep, so most are not walked.
  if (text.length > 2 * MAX_ANSWER_DEPTH && nestsDeeperThan(parsed, MAX_ANSWER_DEPTH))
    throw new AnswerTooDeep(MAX_ANSWER_DEPTH);
  return parsed;
}

/** Whether a parsed JSON value nests arrays and objects more than `limit` levels deep, walked without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) {
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
    }
  }
  return false;
}
