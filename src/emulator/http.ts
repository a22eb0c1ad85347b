import type { IncomingHttpHeaders } from 'node:http';

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
