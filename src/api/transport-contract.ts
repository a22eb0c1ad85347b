import type { Dispatcher } from 'undici';
import type { RetryPolicy } from './retry-policy.js';
import type { AnswerHeaders, ConnectionPools } from './send-request.js';

/*
 * What the clients and the CLI hand the transport and get back from it: a request, its answer, the options of a
 * transport and the events it reports. The transport that carries them is transport.ts.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Something the CLI can show: a retry about to happen, or a finished exchange. URLs are already redacted. */
export type TransportEvent =
  | { type: 'retry'; method: HttpMethod; url: string; attempt: number; delayMs: number; reason: string }
  | { type: 'response'; method: HttpMethod; url: string; status: number; durationMs: number };

/** Deadline of one try when none is configured (SCRAPEFORM_TIMEOUT, `--timeout`). */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The services as a message names them: a key may be valid for one and refused by the other. */
export const PARSER_SERVICE = 'the AI Parser service';
export const PIPELINE_SERVICE = 'the DataPipeline service';

export interface TransportOptions {
  /** The key; redacted from everything the transport reports. */
  apiKey: string;
  /** With a proxy configured: requests go through fetch with this undici dispatcher (createDispatcher). */
  dispatcher?: Dispatcher;
  /** Without a proxy: the keep-alive pools requests use (Node's global agents when absent). */
  pools?: ConnectionPools;
  retry?: Partial<RetryPolicy>;
  /**
   * Deadline of one try, in ms (exact, through a timer of its own, try-signal.ts; undici's own timeouts are coarse).
   */
  timeoutMs?: number;
  /** The longest answer read, in bytes once decompressed (default MAX_ANSWER_BYTES); a longer one is a bad response. */
  maxAnswerBytes?: number;
  onEvent?: (event: TransportEvent) => void;
  /** The service this transport calls, for messages, when a request does not name one (see `forService`). */
  service?: string;
  /** Injected for tests: waiting, randomness and the clock. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The command's Ctrl-C (apply, watch): once aborted, no call starts another try and a wait between tries ends
   * at once; a try under way is not called off (its outcome decides what state records), unless the request's own
   * signal says so. Without it a 429 with a long Retry-After kept a stopping run going for minutes. The clients
   * of createApiClients add their own closing to it: a call under way when they close is not tried again.
   */
  interrupt?: AbortSignal;
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
   * blindly: the caller finds out whether it landed (DESIGN section 5). The one exception is a 429, which says
   * the request was refused and nothing was applied (API-NOTES).
   */
  idempotent: boolean;
  /**
   * Each try is charged (a parse scrapes a page): retried only after an answer saying it was not done (429, 500,
   * 503), never after a timeout, a broken connection or any other 5xx (a gateway's 502 or 504, Cloudflare's 524),
   * whose try the service may have run and charged; the error then says so (api-error.ts, MAY_BE_CHARGED).
   */
  paid?: boolean;
  /** The service called, for messages (`PARSER_SERVICE`, `PIPELINE_SERVICE`). */
  service?: string;
  signal?: AbortSignal;
}

export interface TransportResponse {
  status: number;
  /** The URL called, with the key redacted. */
  url: string;
  /** Parsed JSON, text when the body was not JSON, undefined when empty. */
  body: unknown;
  headers: AnswerHeaders;
}
