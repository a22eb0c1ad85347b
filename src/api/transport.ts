import type { z } from 'zod';
import { VERSION } from '../version.js';
import { ApiError, callKind, codeForStatus } from './api-error.js';
import { AnswerUndecodable } from './answer-encoding.js';
import type { ApiErrorCode } from './api-error.js';
import { MIN_KEY_LENGTH_IN_DATA, redact, redactValue, secretsRemover } from './redact.js';
import type { KeyRedacted } from './live.js';
import { nextHop, REDIRECTS } from './redirects.js';
import { endedAfter, policyOf, retryAfterOf, retryDelay, waitBeforeRetry } from './retry-policy.js';
import type { RetryEnding, RetryPolicy } from './retry-policy.js';
import { DEFAULT_TIMEOUT_MS } from './transport-contract.js';
import type {
  TransportEvent,
  TransportOptions,
  TransportRequest,
  TransportResponse,
} from './transport-contract.js';
import { MAX_ANSWER_BYTES, readBody, sendOverFetch, sendOverHttp } from './send-request.js';
import { chargeNote, cutAnswerError, noAnswerError, notesOf, refusedAnswerError } from './try-errors.js';
import type { FailedTry } from './try-errors.js';
import { trySignal } from './try-signal.js';
import type { TrySignal } from './try-signal.js';
import type { Send, WireAnswer } from './send-request.js';

/** HTTP with our own retry loop, redaction and one error type; every call to the services goes through it. */
export class Transport {
  private readonly apiKey: string;
  private readonly send: Send;
  private readonly policy: RetryPolicy & { maxElapsedMs: number };
  private readonly timeoutMs: number;
  private readonly onEvent: (event: TransportEvent) => void;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly interrupt: AbortSignal | undefined;
  private readonly random: () => number;
  private readonly now: () => number;

  private readonly options: TransportOptions;
  /** The key as looked for inside what the services answer: none when too short to tell from ordinary text. */
  private readonly keyInData: readonly string[];
  private readonly removeKey: ReturnType<typeof secretsRemover>;
  /** URLs as shown (the key redacted), by URL. */
  private readonly shown = new Map<string, string>();
  /** Request URLs without a query of their own, as sent (`urlOf`). */
  private readonly urls = new Map<string, URL>();

  constructor(options: TransportOptions) {
    this.options = options;
    this.apiKey = options.apiKey;
    this.keyInData = this.apiKey.length >= MIN_KEY_LENGTH_IN_DATA ? [this.apiKey] : [];
    this.removeKey = secretsRemover(this.keyInData);
    this.send =
      options.dispatcher !== undefined ? sendOverFetch(options.dispatcher) : sendOverHttp(options.pools);
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.policy = policyOf(options.retry, this.timeoutMs);
    this.onEvent = options.onEvent ?? (() => undefined);
    this.sleep = options.sleep ?? waitBeforeRetry;
    this.interrupt = options.interrupt;
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
  }

  /** The same transport (dispatcher, key, policy, events) for one service, so its errors name that service. */
  forService(service: string): Transport {
    return new Transport({ ...this.options, service });
  }

  async request(request: TransportRequest): Promise<TransportResponse> {
    const url = this.urlOf(request);
    const body =
      request.body !== undefined || request.keyIn === 'body'
        ? JSON.stringify(request.keyIn === 'body' ? { ...request.body, api_key: this.apiKey } : request.body)
        : undefined;
    const started = this.now();

    // The 429s in a row at the end so far: a 429's hint says how many of the tries were refused (endedAfter).
    let lastRefused = 0;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt(request, url, body, started);
      if (!(outcome instanceof ApiError)) return outcome;
      lastRefused = outcome.status === 429 ? lastRefused + 1 : 0;
      const [retryAfter, elapsed] = [this.retryAfters.get(outcome), this.now() - started];
      const delayMs = retryDelay(this.policy, request, outcome, attempt, elapsed, retryAfter, this.random);
      // The error says how the call ended after its tries (endedAfter: a 429's hint).
      const ended = (why: RetryEnding): ApiError =>
        endedAfter(outcome, this.policy, { tries: attempt + 1, lastRefused }, why);
      if (typeof delayMs !== 'number' || this.interrupted())
        throw ended(typeof delayMs === 'number' ? 'interrupted' : delayMs);
      this.onEvent({
        type: 'retry',
        method: request.method,
        url: this.show(url),
        attempt: attempt + 1,
        delayMs,
        reason:
          outcome.status === 429
            ? 'HTTP 429: refused, nothing applied'
            : outcome.status > 0
              ? `HTTP ${outcome.status}`
              : outcome.code,
      });
      const stops = [request.signal, this.interrupt].filter((x): x is AbortSignal => x !== undefined);
      await this.sleep(delayMs, stops.length > 1 ? AbortSignal.any(stops) : stops[0]);
      if (request.signal?.aborted === true || this.interrupted()) throw ended('interrupted');
    }
  }

  /** Read afresh each time: the command's Ctrl-C may come while a call waits. */
  private interrupted(): boolean {
    return this.interrupt?.aborted === true;
  }

  /**
   * The URL a request is sent to: its query, and the key when it travels there. Never changed once made, so one
   * without a query of its own is made once per address and reused (every create of a kind goes to one address).
   */
  private urlOf(request: TransportRequest): URL {
    const query = request.query !== undefined ? Object.entries(request.query) : [];
    const make = (): URL => {
      const url = new URL(request.url);
      for (const [name, value] of query) {
        if (value !== undefined) url.searchParams.set(name, String(value));
      }
      if (request.keyIn === 'query') url.searchParams.set('api_key', this.apiKey);
      return url;
    };
    return query.length === 0 ? remember(this.urls, `${request.keyIn} ${request.url}`, make) : make();
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
    return { status: response.status, data: this.check(request, response, response.body, schema) };
  }

  /** `value` (the body, or a part of it found at `path`) checked against a wire schema, or an `api.bad-response`. */
  check<S extends z.ZodType>(
    request: TransportRequest,
    response: TransportResponse,
    value: unknown,
    schema: S,
    path: readonly (string | number)[] = [],
  ): z.output<S> {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    const full = [...path, ...(issue?.path ?? [])];
    const field = full.length > 0 ? full.map(String).join('.') : '(body)';
    throw this.badResponse(request, response, `field ${field}: ${this.issueText(schema, value, issue)}`);
  }

  /**
   * What `issue` says, read again from the answer with the key out of it: a message may quote a value cut short
   * (wire-schemas.ts), and a key across the cut would leave too little of it to be known and redacted after. Only
   * the issue at the same place is taken, and only for a key long enough to be looked for in answers
   * (MIN_KEY_LENGTH_IN_DATA), as redactAnswer does: taking a short key's text out of every string made valid values
   * invalid ("3" for a key "3"), and the error named one of them instead of the field that is wrong.
   */
  private issueText(schema: z.ZodType, value: unknown, issue: z.core.$ZodIssue | undefined): string {
    if (issue === undefined) return 'invalid';
    if (this.keyInData.length === 0) return issue.message;
    const quoted = schema.safeParse(redactValue(value, this.keyInData));
    const same = quoted.success
      ? undefined
      : quoted.error.issues.find(
          (other) =>
            other.path.length === issue.path.length && other.path.every((k, i) => k === issue.path[i]),
        );
    // None there once the key is out: the value was wrong by the key in it, so it is not quoted at all.
    return same?.message ?? 'invalid value';
  }

  /** An `api.bad-response` for an answer that cannot be used; the message says why and names the endpoint. */
  badResponse(
    request: TransportRequest,
    response: TransportResponse,
    reason: string,
    code: ApiErrorCode = 'api.bad-response',
  ): ApiError {
    const endpoint = `${request.method} ${new URL(request.url).pathname}`;
    return new ApiError({
      code,
      status: response.status,
      method: request.method,
      url: response.url,
      body: response.body,
      retryable: false,
      message: `unexpected response from ${endpoint}: ${reason}`,
      secrets: [this.apiKey],
      ...this.serviceOf(request),
    });
  }

  /**
   * An answer scrapeform passes on as it came (job records, a cancel's answer: undocumented, printed whole), with
   * the key taken out of every string in it: a link the service builds with `api_key` in it is no leak of ours.
   * The names of its keys too: doctor lists the fields an answer holds, and `jobs --json` prints them.
   */
  redactAnswer<T>(value: T): T {
    return redactValue(value, this.keyInData, true);
  }

  /**
   * An object the service holds (a project, a parser) with the key taken out of its values, marked `keyRedacted`
   * when it was there: someone may have written it into a webhook or input URL by hand, and what the services hold
   * is printed in plans and written to state. An `api_key` that is not the key stays (see secretsRemover).
   */
  withoutKey<T extends object>(value: T): T & KeyRedacted {
    const clean = this.removeKey(value);
    return clean.held ? { ...clean.value, keyRedacted: true } : value;
  }

  /** Redacts the key from a URL (or any text) the way every report of the transport does. */
  show(url: URL | string): string {
    // Most calls of a large apply go to a few URLs (every project create to the same one): each is redacted once.
    const text = url.toString();
    return remember(this.shown, text, () => redact(text, [this.apiKey]));
  }

  private serviceOf(request: TransportRequest): { service?: string } {
    const service = request.service ?? this.options.service;
    return service !== undefined ? { service } : {};
  }

  /** The Retry-After of an error's answer, in ms, when it carried a readable one. */
  private readonly retryAfters = new WeakMap<ApiError, number>();

  /** One try under one deadline (and the caller's signal), released as soon as the try is over. */
  private async attempt(
    request: TransportRequest,
    url: URL,
    body: string | undefined,
    callStarted: number,
  ): Promise<TransportResponse | ApiError> {
    const deadline = trySignal(this.timeoutMs, request.signal);
    try {
      return await this.tryOnce(request, url, body, deadline, callStarted);
    } finally {
      deadline.done();
    }
  }

  /** The try itself: the request, and any same-origin redirects it answers with; `callStarted`: the call's first. */
  private async tryOnce(
    request: TransportRequest,
    url: URL,
    body: string | undefined,
    deadline: TrySignal,
    callStarted: number,
  ): Promise<TransportResponse | ApiError> {
    // Made at the first redirect: most answers are not one.
    let visited: Set<string> | undefined;
    let current = url;
    for (let hop = 0; ; hop++) {
      const started = this.now();
      let response: WireAnswer;
      try {
        response = await this.send(current, {
          method: request.method,
          headers: body !== undefined ? JSON_HEADERS : PLAIN_HEADERS,
          body,
          deadline,
        });
      } catch (error) {
        return noAnswerError(this.failedTry(request, current), error, this.timeout(deadline), undefined);
      }
      const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null;
      if (location !== null) {
        await response.discard();
        this.emitResponse(request, this.show(current), response.status, started);
        visited ??= new Set<string>([url.toString()]);
        const next = this.followRedirect(request, current, response.status, location, visited, hop);
        if (next instanceof ApiError) return next;
        current = next;
        continue;
      }
      let parsed: unknown;
      // A body cut short (or not in its encoding) where the status is an error: the status still says what happened.
      let cut: AnswerUndecodable | undefined;
      try {
        parsed = await readBody(response, this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES);
      } catch (error) {
        const at = this.failedTry(request, current);
        const refused = refusedAnswerError(at, response.status, error);
        if (refused !== undefined) return refused;
        if (!(error instanceof AnswerUndecodable))
          return noAnswerError(at, error, this.timeout(deadline), response.status);
        if (request.expect.includes(response.status)) return cutAnswerError(at, response.status, error);
        cut = error;
      }
      // Redacted once: the event and the response show the same URL.
      const shown = this.show(current);
      this.emitResponse(request, shown, response.status, started);
      if (request.expect.includes(response.status)) {
        return { status: response.status, url: shown, body: parsed, headers: response.headers };
      }
      const retryable = response.status === 429 || response.status >= 500;
      const now = this.now();
      const retryAfter = retryable ? retryAfterOf(this.policy, response.headers, now, now - callStarted) : {};
      const error = new ApiError({
        code: codeForStatus(response.status),
        status: response.status,
        method: request.method,
        url: current.toString(),
        body: parsed,
        retryable,
        secrets: [this.apiKey],
        note: notesOf(cut?.message, retryAfter.note, chargeNote(request, response.status)),
        call: callKind(request),
        ...this.serviceOf(request),
      });
      if (retryAfter.ms !== undefined) this.retryAfters.set(error, retryAfter.ms);
      return error;
    }
  }

  /** The next URL of a redirect (redirects.ts), or the `api.redirect` error of one not followed. */
  private followRedirect(
    request: TransportRequest,
    current: URL,
    status: number,
    location: string,
    visited: Set<string>,
    hop: number,
  ): URL | ApiError {
    const next = nextHop(request, current, status, location, { visited, hop, apiKey: this.apiKey }, (url) =>
      this.show(url),
    );
    if (next instanceof URL) return next;
    return new ApiError({
      code: 'api.redirect',
      status,
      method: request.method,
      url: current.toString(),
      retryable: false,
      message: next.refused,
      ...(next.target !== undefined ? { location: next.target.toString() } : {}),
      secrets: [this.apiKey],
      ...this.serviceOf(request),
    });
  }

  /** What the error of a failed try of `request` to `url` says of it (try-errors.ts). */
  private failedTry(request: TransportRequest, url: URL): FailedTry {
    return {
      method: request.method,
      url,
      aborted: request.signal?.aborted === true,
      call: callKind(request),
      secrets: [this.apiKey],
      ...this.serviceOf(request),
    };
  }

  private timeout(deadline: TrySignal): { timedOut: boolean; ms: number } {
    return { timedOut: deadline.timedOut(), ms: this.timeoutMs };
  }

  private emitResponse(request: TransportRequest, shownUrl: string, status: number, started: number): void {
    this.onEvent({
      type: 'response',
      method: request.method,
      url: shownUrl,
      status,
      durationMs: this.now() - started,
    });
  }
}

/** The headers of every request, and of one with a JSON body (the senders copy them before adding any). */
const PLAIN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'user-agent': `scrapeform/${VERSION}`,
  accept: 'application/json',
});
const JSON_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...PLAIN_HEADERS,
  'content-type': 'application/json',
});

/** How many entries each cache of a transport keeps (cleared whole when full: a cache, not a record). */
const CACHE_SIZE = 256;

/** The value cached under `key`, made and kept on first use. */
function remember<V>(cache: Map<string, V>, key: string, make: () => V): V {
  let value = cache.get(key);
  if (value === undefined) {
    if (cache.size >= CACHE_SIZE) cache.clear();
    value = make();
    cache.set(key, value);
  }
  return value;
}
