import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/** A request as the emulator's handlers see it: path split into segments, query, and the JSON body if any. */
export interface EmulatorRequest {
  method: string;
  path: string;
  segments: string[];
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body; undefined when there was none. Malformed JSON is answered 400 before any handler. */
  body: unknown;
}

export interface EmulatorResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Raw text bodies (CSV results); JSON otherwise. */
  text?: string;
}

/** An answer that ends the request early: `throw new HttpError(404, 'parser not found')`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** An HttpError whose answer carries Retry-After (seconds). */
export class RetryAfterError extends HttpError {
  constructor(
    status: number,
    message: string,
    readonly retryAfter: number,
  ) {
    super(status, message);
  }
}

export function json(status: number, body?: unknown): EmulatorResponse {
  return body === undefined ? { status } : { status, body };
}

/** The request body as an object, or 400. */
export function bodyObject(req: EmulatorRequest): Record<string, unknown> {
  if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
    throw new HttpError(400, 'the request body must be a JSON object');
  }
  return req.body as Record<string, unknown>;
}

/** An answer as written: its JSON body serialized. */
export interface EncodedAnswer {
  status: number;
  headers: Record<string, string>;
  payload: string | undefined;
}

/** Serializes an answer before anything is sent; throws for a body JSON cannot write (a BigInt, a cycle). */
export function encodeAnswer(response: EmulatorResponse): EncodedAnswer {
  const headers: Record<string, string> = { ...response.headers };
  let payload: string | undefined;
  if (response.text !== undefined) payload = response.text;
  else if (response.body !== undefined && response.status !== 204) {
    payload = JSON.stringify(response.body);
    headers['content-type'] = 'application/json';
  }
  return { status: response.status, headers, payload };
}

/** The answer to an error thrown by a handler: its own status for an HttpError, 500 for anything else. */
export function answerFor(error: unknown): EmulatorResponse {
  if (error instanceof HttpError) {
    return {
      status: error.status,
      body: { error: error.message },
      ...(error instanceof RetryAfterError ? { headers: { 'retry-after': String(error.retryAfter) } } : {}),
    };
  }
  return {
    status: 500,
    body: { error: `emulator error: ${error instanceof Error ? error.message : String(error)}` },
  };
}

/** The request's URL, or undefined for a target that is none (`//[x`), which Node's parser lets through. */
export function targetOf(incoming: IncomingMessage): URL | undefined {
  try {
    return new URL(incoming.url ?? '/', 'http://emulator');
  } catch {
    return undefined;
  }
}

export function send(outgoing: ServerResponse, answer: EncodedAnswer): void {
  outgoing.writeHead(answer.status, answer.headers);
  outgoing.end(answer.payload);
}

/** After an answer failed midway: a 500 while nothing is sent yet, else the connection closed, so no client waits. */
export function answerFailure(outgoing: ServerResponse, error: unknown): void {
  try {
    if (!outgoing.headersSent) return send(outgoing, encodeAnswer(answerFor(error)));
  } catch {
    // Not even the 500 could be written.
  }
  outgoing.destroy();
}
