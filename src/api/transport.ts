import { EnvHttpProxyAgent } from 'undici';
import type { z } from 'zod';
import type { Dispatcher } from 'undici';
import { VERSION } from '../version.js';
import { ApiError, codeForStatus } from './api-error.js';
import { redact } from './redact.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Something the CLI can show: a retry about to happen, or a finished exchange. URLs are already redacted. */
export type TransportEvent =
  | { type: 'retry'; method: HttpMethod; url: string; attempt: number; delayMs: number; reason: string }
  | { type: 'response'; method: HttpMethod; url: string; status: number; durationMs: number };

export interface RetryPolicy {
  /** Retries after the first try; 0 disables retrying. */
  maxRetries: number;
  /** First backoff ceiling; doubles each retry (full jitter picks a delay below it). */
  baseDelayMs: number;
  /** Ceiling of any one delay, Retry-After included. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 30_000 };

export interface TransportOptions {
  /** The key; redacted from everything the transport reports. */
  apiKey: string;
  dispatcher?: Dispatcher;
  retry?: Partial<RetryPolicy>;
  /** Deadline of one try, in ms (exact, through AbortSignal.timeout; undici's own timeouts are coarse). */
  timeoutMs?: number;
  onEvent?: (event: TransportEvent) => void;
  /** Injected for tests: waiting, randomness and the clock. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

export interface TransportRequest {
  method: HttpMethod;
  /** Absolute URL, without the key: the key goes where `keyIn` says. */
  url: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: Record<string, unknown>;
  /** Where the service wants `api_key`: the query string or the JSON body. */
  keyIn: 'query' | 'body';
  /** Statuses that count as success; anything else is an ApiError. */
  expect: readonly number[];
  /**
   * Whether failures may be retried. Only idempotent calls (GET, DELETE) are; a POST or PATCH is never retried
   * blindly: the caller finds out whether it landed (DESIGN section 5).
   */
  idempotent: boolean;
  signal?: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** The URL called, with the key redacted. */
  url: string;
  /** Parsed JSON, text when the body was not JSON, undefined when empty. */
  body: unknown;
  headers: Headers;
}

/** Creates the one dispatcher scrapeform uses: keep-alive, timeouts, and HTTP(S)_PROXY / NO_PROXY from env. */
export function createDispatcher(env: Readonly<Record<string, string | undefined>>): Dispatcher {
  const pick = (name: string): string | undefined => env[name.toLowerCase()] ?? env[name];
  return new EnvHttpProxyAgent({
    httpProxy: pick('HTTP_PROXY') ?? '',
    httpsProxy: pick('HTTPS_PROXY') ?? pick('HTTP_PROXY') ?? '',
    noProxy: pick('NO_PROXY') ?? '',
    keepAliveTimeout: 10_000,
    connect: { timeout: 10_000 },
    headersTimeout: 60_000,
    bodyTimeout: 120_000,
  });
}

/** HTTP with our own retry loop, redaction and one error type; the only code that calls fetch. */
export class Transport {
  private readonly apiKey: string;
  private readonly dispatcher: Dispatcher | undefined;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly onEvent: (event: TransportEvent) => void;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;

  constructor(options: TransportOptions) {
    this.apiKey = options.apiKey;
    this.dispatcher = options.dispatcher;
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.onEvent = options.onEvent ?? (() => undefined);
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
  }

  async request(request: TransportRequest): Promise<TransportResponse> {
    const url = new URL(request.url);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const body =
      request.body !== undefined || request.keyIn === 'body'
        ? JSON.stringify(request.keyIn === 'body' ? { ...request.body, api_key: this.apiKey } : request.body)
        : undefined;
    if (request.keyIn === 'query') url.searchParams.set('api_key', this.apiKey);
    const shownUrl = redact(url.toString(), [this.apiKey]);

    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(request, url, body, shownUrl);
      if (outcome instanceof ApiError) {
        const retryAfterMs = outcome.status === 0 ? undefined : this.retryAfter(outcome);
        if (
          !request.idempotent ||
          !outcome.retryable ||
          attempt >= this.policy.maxRetries ||
          request.signal?.aborted
        ) {
          throw outcome;
        }
        const ceiling = Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** attempt);
        const delayMs = Math.min(this.policy.maxDelayMs, retryAfterMs ?? Math.floor(this.random() * ceiling));
        this.onEvent({
          type: 'retry',
          method: request.method,
          url: shownUrl,
          attempt: attempt + 1,
          delayMs,
          reason: outcome.status > 0 ? `HTTP ${outcome.status}` : outcome.code,
        });
        await this.sleep(delayMs);
        continue;
      }
      return outcome;
    }
  }

  /**
   * A request whose success body must match a wire schema; a body that does not is an `api.bad-response` naming
   * the field and the endpoint, and nothing of it is used.
   */
  async requestJson<S extends z.ZodType>(
    request: TransportRequest,
    schema: S,
  ): Promise<{ status: number; data: z.output<S> }> {
    const response = await this.request(request);
    const result = schema.safeParse(response.body);
    if (result.success) return { status: response.status, data: result.data };
    const issue = result.error.issues[0];
    const field = issue !== undefined && issue.path.length > 0 ? issue.path.map(String).join('.') : '(body)';
    const endpoint = `${request.method} ${new URL(request.url).pathname}`;
    throw new ApiError({
      code: 'api.bad-response',
      status: response.status,
      method: request.method,
      url: response.url,
      body: response.body,
      retryable: false,
      message: `unexpected response from ${endpoint}: field ${field}: ${issue?.message ?? 'invalid'}`,
      secrets: [this.apiKey],
    });
  }

  private lastHeaders = new WeakMap<ApiError, Headers>();

  private async attempt(
    request: TransportRequest,
    url: URL,
    body: string | undefined,
    shownUrl: string,
  ): Promise<TransportResponse | ApiError> {
    const started = this.now();
    const signals = [
      AbortSignal.timeout(this.timeoutMs),
      ...(request.signal !== undefined ? [request.signal] : []),
    ];
    let response: Response;
    try {
      const init: Record<string, unknown> = {
        method: request.method,
        headers: {
          'user-agent': `scrapeform/${VERSION}`,
          accept: 'application/json',
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        body,
        signal: AbortSignal.any(signals),
      };
      if (this.dispatcher !== undefined) init.dispatcher = this.dispatcher;
      // The global fetch, looked up at call time so nock's interception applies; @types/node 20 lacks `dispatcher`.
      response = await globalThis.fetch(url, init as unknown as RequestInit);
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      return new ApiError({
        code: timedOut ? 'api.timeout' : 'api.network',
        status: 0,
        method: request.method,
        url: url.toString(),
        retryable: request.signal?.aborted !== true,
        cause: error,
        message: timedOut ? `no answer within ${this.timeoutMs} ms` : networkReason(error),
        secrets: [this.apiKey],
      });
    }
    let parsed: unknown;
    try {
      parsed = await readBody(response);
    } catch (error) {
      return new ApiError({
        code: 'api.network',
        status: 0,
        method: request.method,
        url: url.toString(),
        retryable: true,
        cause: error,
        message: `the connection broke while reading the ${response.status} response`,
        secrets: [this.apiKey],
      });
    }
    this.onEvent({
      type: 'response',
      method: request.method,
      url: shownUrl,
      status: response.status,
      durationMs: this.now() - started,
    });
    if (request.expect.includes(response.status)) {
      return { status: response.status, url: shownUrl, body: parsed, headers: response.headers };
    }
    const error = new ApiError({
      code: codeForStatus(response.status),
      status: response.status,
      method: request.method,
      url: url.toString(),
      body: parsed,
      retryable: response.status === 429 || response.status >= 500,
      secrets: [this.apiKey],
    });
    this.lastHeaders.set(error, response.headers);
    return error;
  }

  /** Retry-After in ms (seconds or an HTTP date), when the failed response carried one. */
  private retryAfter(error: ApiError): number | undefined {
    const header = this.lastHeaders.get(error)?.get('retry-after');
    if (header === null || header === undefined) return undefined;
    return parseRetryAfter(header, this.now());
  }
}

/** Retry-After as milliseconds from now: delta-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function parseRetryAfter(value: string, now: number): number | undefined {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function networkReason(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as NodeJS.ErrnoException | undefined) : undefined;
  const code = cause?.code;
  const detail = cause?.message ?? (error instanceof Error ? error.message : String(error));
  return code !== undefined ? `${code} (${detail})` : detail;
}
