import { redact, redactError } from './redact.js';

export type ApiErrorCode =
  | 'api.bad-request'
  | 'api.unauthorized'
  | 'api.forbidden'
  | 'api.credits-exhausted'
  | 'api.not-found'
  | 'api.rate-limited'
  | 'api.server-error'
  | 'api.unexpected-status'
  | 'api.network'
  | 'api.timeout'
  | 'api.redirect'
  | 'api.pagination'
  | 'api.bad-response';

export interface ApiErrorInit {
  code: ApiErrorCode;
  /** HTTP status, 0 when no response arrived. */
  status: number;
  method: string;
  url: string;
  /** What the service answered: parsed JSON when it was JSON, else text; cut to a readable excerpt. */
  body?: unknown;
  retryable: boolean;
  cause?: unknown;
  /** Overrides the message derived from the code. */
  message?: string;
  /** Said after the message: what scrapeform did about the answer (a Retry-After it would not wait). */
  note?: string;
  /** Where a redirect not followed pointed (its Location, resolved against the request's URL). */
  location?: string;
  /**
   * The status an answer had said when its body did not decode (status is 0 then: no complete answer came), so a
   * create found afterwards reports the status the service sent (unreadableStatus).
   */
  answered?: number;
  /** Values that must never be shown: the API key. */
  secrets: readonly string[];
  /**
   * Which service answered, as a phrase (`the AI Parser service`): a key may work for one service and not the
   * other, so a refusal names the one that refused.
   */
  service?: string;
  /**
   * What kind of call failed, for the hint of a 5xx or a timeout: a parse (`paid`), one sent again after a failure
   * (a GET or DELETE: `repeatable`), or a create or change sent once (`once`). Without it the hint is the generic
   * one.
   */
  call?: CallKind;
}

export type CallKind = 'paid' | 'repeatable' | 'once';

/** The kind of a call (ApiErrorInit.call): a parse is paid; a call the transport sends again is repeatable. */
export function callKind(call: { paid?: boolean | undefined; idempotent: boolean }): CallKind {
  return call.paid === true ? 'paid' : call.idempotent ? 'repeatable' : 'once';
}

/** What to do, per code, following the seeds' error tables. */
const ADVICE: Record<ApiErrorCode, string> = {
  'api.bad-request': 'the service rejected the request as malformed or missing a required field',
  'api.unauthorized': 'the API key was refused: check SCRAPERAPI_API_KEY (or --api-key-env / --api-key-file)',
  'api.forbidden':
    'the key was recognised but refused here: the account may be out of credits, or its plan may not include the service named in the message; check credits and plan in the ScraperAPI dashboard, then the key',
  'api.credits-exhausted': 'the account has no credits left: upgrade the plan or contact ScraperAPI support',
  'api.not-found':
    'the id does not exist: verify it with the list endpoint (scrapeform plan re-reads the lists)',
  'api.rate-limited':
    "the service is rate limiting, and scrapeform already waited and tried again as far as its retry limits allow: lower --concurrency (apply), run the command again later, or check the rate limits of the account's plan in the ScraperAPI dashboard",
  'api.server-error': 'the service or a gateway before it failed; contact support if it persists',
  'api.unexpected-status': 'the service answered with a status scrapeform does not expect here',
  'api.network':
    'no complete answer from the service (none, or one cut short: the connection broke during it, or its compressed body ended early), or one whose body was not in the encoding it named: check the network, proxy settings and the endpoint URL',
  'api.timeout':
    'the service did not answer in time: retry, check the network, or raise the request timeout (--timeout or SCRAPEFORM_TIMEOUT)',
  'api.redirect':
    'the endpoint redirects elsewhere: check SCRAPEFORM_PARSER_URL / SCRAPEFORM_PIPELINE_URL and any proxy; scrapeform never sends the key to another origin',
  'api.pagination':
    'the list answer pages in a way scrapeform cannot follow safely, so the list is incomplete and nothing is planned from it: report it with the message',
  'api.bad-response': 'the service answered in a shape scrapeform does not understand',
};

/**
 * What the error of a paid try that may have been charged says after its message (retry-policy.ts,
 * paidTryMayBeCharged; a connection refused, never sent, does not say it).
 */
export const MAY_BE_CHARGED = 'a parse is charged per try and this one may have been: not sent again';

/**
 * What to do after a parse that may have been charged and was not sent again (its note is MAY_BE_CHARGED): ADVICE
 * says "retry" for these codes, which after a paid try is to pay twice unknowingly (README, the reliability rule).
 */
const PAID_ADVICE: Partial<Record<ApiErrorCode, string>> = {
  'api.timeout':
    'the service did not answer in time, and this parse may have been charged: parsing the page again may be paid twice (check the usage in the ScraperAPI dashboard); check the network, or raise the request timeout (--timeout or SCRAPEFORM_TIMEOUT)',
  'api.server-error':
    'the service or a gateway before it failed after this parse may have been charged: parsing the page again may be paid twice (check the usage in the ScraperAPI dashboard); contact support if it persists',
};

/**
 * What to do after a 5xx, by the kind of call: the parse advice (extraction failed: retry with other scraping
 * parameters) fits a parse only, and "retry" fits neither a free read, already sent again after each 5xx, nor a
 * create or change, never sent again as it may have landed.
 */
const SERVER_ADVICE: Record<CallKind, string> = {
  paid: 'the service failed (for parsing: extraction failed); retry, try additional scraping parameters, and contact support if it persists',
  repeatable:
    'the service or a gateway before it failed; this call spends no credits, and scrapeform sent it again after each 5xx as far as its retry limits allow: run the command again later, and contact support if it persists',
  once: 'the service or a gateway before it failed, and the change may have been made all the same: scrapeform does not send a create or change again after a 5xx; check what the service holds (scrapeform plan re-reads it) before running the command again, and contact support if it persists',
};

/**
 * What to do after a timeout, by the kind of call, as SERVER_ADVICE after a 5xx: "retry" fits neither a free read,
 * already sent again after each timeout, nor a create or change, never sent again as it may have landed.
 */
const TIMEOUT_ADVICE: Record<CallKind, string> = {
  paid: PAID_ADVICE['api.timeout'] ?? ADVICE['api.timeout'],
  repeatable:
    'the service did not answer in time; this call spends no credits, and scrapeform sent it again after each timeout as far as its retry limits allow: check the network, raise the request timeout (--timeout or SCRAPEFORM_TIMEOUT), or run the command again later',
  once: 'the service did not answer in time, and the change may have been made all the same: scrapeform does not send a create or change again after a timeout; check what the service holds (scrapeform plan re-reads it) before running the command again, and check the network or raise the request timeout (--timeout or SCRAPEFORM_TIMEOUT)',
};

const EXCERPT_LENGTH = 500;

/**
 * The one error for every failed HTTP exchange. Redaction happens here, in the constructor, so no code path can
 * build an ApiError that shows the key: in the message, URL, body excerpt or cause chain.
 */
export class ApiError extends Error {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
  readonly retryable: boolean;
  /** What to do: the code's advice, or what withHint put in its place. */
  get hint(): string {
    return this.#hint;
  }
  #hint: string;
  /** Where a redirect not followed pointed, the key redacted (see-other.ts reads a create's 303 by it). */
  readonly location: string | undefined;
  /** The status of an answer whose body did not decode (see ApiErrorInit). */
  readonly answered: number | undefined;

  constructor(init: ApiErrorInit) {
    const url = redact(init.url, init.secrets);
    const body = excerpt(init.body, init.secrets);
    const where = `${init.method} ${url}`;
    const what =
      init.status > 0 ? `${init.status}` : init.code === 'api.timeout' ? 'timed out' : 'network error';
    const detail = joinDetail(
      init.message !== undefined
        ? redact(init.message, init.secrets)
        : joinDetail(refusal(init.code, init.service), serverMessage(body)),
      init.note,
    );
    super(`${where}: ${what}${detail !== undefined ? `: ${detail}` : ''}`, {
      cause: init.cause !== undefined ? redactError(init.cause, init.secrets) : undefined,
    });
    this.name = 'ApiError';
    this.code = init.code;
    this.status = init.status;
    this.method = init.method;
    this.url = url;
    this.body = body;
    this.retryable = init.retryable;
    this.#hint = adviceFor(init);
    this.location = init.location !== undefined ? redact(init.location, init.secrets) : undefined;
    this.answered = init.answered;
  }

  /**
   * Puts `text` in place of the hint: only the transport does, when a call ends on a 429 (retry-policy.ts,
   * endedAfter), to say what it already did where the code's advice would have the user do it again.
   */
  withHint(text: string): this {
    this.#hint = text;
    return this;
  }

  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      hint: this.hint,
      status: this.status,
      method: this.method,
      url: this.url,
      body: this.body,
      retryable: this.retryable,
      ...(this.location !== undefined ? { location: this.location } : {}),
    };
  }
}

/**
 * The hint of an error: after a parse that may have been charged, one that does not say "retry" (its note says
 * MAY_BE_CHARGED, alone or among others: a Retry-After not waited, an answer cut short); after a 5xx or a
 * timeout, the advice for its kind of call; else the code's.
 */
function adviceFor(init: ApiErrorInit): string {
  const charged = init.note?.split('; ').includes(MAY_BE_CHARGED) === true;
  const paid = charged ? PAID_ADVICE[init.code] : undefined;
  if (paid !== undefined) return paid;
  if (init.code === 'api.server-error' && init.call !== undefined) return SERVER_ADVICE[init.call];
  if (init.code === 'api.timeout' && init.call !== undefined) return TIMEOUT_ADVICE[init.call];
  return ADVICE[init.code];
}

/** The code for an HTTP status that is not a success. */
export function codeForStatus(status: number): ApiErrorCode {
  if (status === 400 || status === 422) return 'api.bad-request';
  if (status === 401) return 'api.unauthorized';
  // 403 is what ScraperAPI answers for exhausted credits as well as for a key without access (API-NOTES).
  if (status === 403) return 'api.forbidden';
  if (status === 402) return 'api.credits-exhausted';
  if (status === 404) return 'api.not-found';
  if (status === 429) return 'api.rate-limited';
  if (status >= 500) return 'api.server-error';
  return 'api.unexpected-status';
}

/** For a refused key: which service refused it, since a key may be valid for one service and not the other. */
function refusal(code: ApiErrorCode, service: string | undefined): string | undefined {
  const who = service ?? 'the service';
  if (code === 'api.unauthorized') return `${who} refused the API key`;
  if (code === 'api.forbidden') return `forbidden or out of credits at ${who}`;
  return undefined;
}

function joinDetail(...parts: (string | undefined)[]): string | undefined {
  const present = parts.filter((p): p is string => p !== undefined && p !== '');
  return present.length > 0 ? present.join(': ') : undefined;
}

function excerpt(body: unknown, secrets: readonly string[]): unknown {
  if (body === undefined || body === null) return body;
  if (typeof body === 'string') {
    const text = redact(body, secrets);
    return text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text;
  }
  const json = redact(JSON.stringify(body), secrets);
  if (json.length > EXCERPT_LENGTH) return `${json.slice(0, EXCERPT_LENGTH)}…`;
  return JSON.parse(json) as unknown;
}

/**
 * A short message from the error body when it has one (`error`, `message` or `detail`, or the `message` of an
 * `error` object, as some services nest it), else the text. Never an object printed as `[object Object]`.
 */
export function serverMessage(body: unknown): string | undefined {
  if (typeof body === 'string')
    return body.trim() === '' ? undefined : body.trim().split('\n')[0]?.slice(0, 200);
  if (body !== null && typeof body === 'object') {
    const fields = body as Record<string, unknown>;
    const nested = fields.error !== null && typeof fields.error === 'object' ? fields.error : {};
    for (const value of [
      fields.error,
      fields.message,
      fields.detail,
      (nested as { message?: unknown }).message,
    ])
      if (typeof value === 'string' && value !== '') return value;
    return JSON.stringify(body).slice(0, 200);
  }
  return undefined;
}

/** System error codes of a request that never left: the connection was refused, or the host name did not resolve. */
const NEVER_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether a failed call certainly never reached the service (a refused connection, a host that does not resolve,
 * a proxy that refused the tunnel: the request goes only through an open one), unlike one whose answer was lost
 * (a timeout, a connection reset, a 5xx): a create that failed so did not land.
 */
export function neverSent(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 0 || error.code === 'api.timeout') return false;
  if (proxyRefusal(error.cause) !== undefined) return true;
  let cause: unknown = error.cause;
  for (let depth = 0; cause instanceof Error && depth < 5; depth++) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code !== undefined && NEVER_SENT.has(code)) return true;
    cause = cause.cause;
  }
  return false;
}

/**
 * A failure that may have landed all the same: no answer (the request may have gone out), a 5xx, a success (2xx)
 * whose answer could not be read (no id, HTML, the wrong shape): the service said it was done, or a redirect (3xx)
 * not followed. A 303 See Other answers a request the server processed, pointing at where to GET its outcome (RFC
 * 9110 section 15.4.4; only a GET follows it, redirects.ts); a 301 or 302 is how many a proxy or gateway answers a
 * POST it forwarded (the older Post/Redirect/Get), and one that redirects to another origin, a 307 or 308 (which a
 * POST or PATCH does not follow, redirects.ts), or one naming no Location may come after forwarding too: none is a
 * refusal. A create is then looked for (see-other.ts, by name) and a
 * PATCH counted as a generation started, as after a lost answer.
 */
export function mayHaveLanded(error: unknown): error is ApiError {
  return (
    error instanceof ApiError &&
    ((error.status === 0 && !neverSent(error)) ||
      error.status >= 500 ||
      (error.status >= 200 && error.status < 400))
  );
}

/** Ids of objects that were there before a create's POST: an answer naming one is no new object (existingNamed). */
export interface IdsBefore<Id> {
  has(id: Id): boolean;
}

/**
 * Why a create's success (2xx) naming an object that was there before its POST is no answer: a service may answer
 * a POST of a name it holds with that object (an upsert, or "already exists" as a success), where the seed says a
 * create makes a new one. Taken for the new object, a replace would wait on the old parser and then delete it, and
 * a create would record an object another address manages; so what the POST made is unknown, and the caller looks
 * for it by name (createOnce), as after a lost answer, and never sends it again blindly.
 */
export function existingNamed(kind: 'parser' | 'project', id: string | number): string {
  return `the answer names ${kind} ${id}, which was there before the POST, not a new one`;
}

/**
 * The status of a success (2xx) whose answer could not be read: a body that is not JSON or not the object
 * (`api.bad-response` with its status), or one that did not decode (status 0, the 2xx it had said kept as
 * `answered`). Undefined for any other failure. A create found afterwards says so: its status alone would read as
 * a clean success.
 */
export function unreadableStatus(error: ApiError): number | undefined {
  const status =
    error.status === 0 ? error.answered : error.code === 'api.bad-response' ? error.status : undefined;
  return status !== undefined && status >= 200 && status < 300 ? status : undefined;
}

/**
 * A refusal to pay: a 402, or the 403 ScraperAPI answers for exhausted credits (its docs; a 403 may also be a plan
 * without access). After one, a paid call (a generation, a project create, a parse) is not sent again in the run:
 * it would be refused the same way or, on a service that counts otherwise, spend what the account was running
 * out of.
 */
export function refusesPayment(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 402 || error.status === 403);
}

/** A request timeout as messages say it: `30 s`, or `1500 ms`. */
export function formatTimeout(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** Why a request got no answer, from the system's error (its code, then its message). */
export function networkReason(error: unknown): string {
  const refused = proxyRefusal(error);
  if (refused !== undefined)
    return `the proxy refused to open a tunnel to the service: HTTP ${refused}${refused === 407 ? ' (Proxy Authentication Required: give its user and password in HTTP_PROXY / HTTPS_PROXY, http://user:password@host:port)' : ''}`;
  // fetch wraps the system's error in its cause (undici a level deeper still); Node's http module throws it as it is.
  const chain = causes(error);
  const system = chain.find(
    (e) =>
      typeof (e as NodeJS.ErrnoException).code === 'string' &&
      !/^UND_ERR/.test(String((e as NodeJS.ErrnoException).code)),
  );
  const cause = (system ?? chain[1] ?? chain[0]) as NodeJS.ErrnoException | undefined;
  const code = cause?.code;
  const detail = cause?.message ?? String(error);
  return code !== undefined ? `${code} (${detail})` : detail;
}

/**
 * The status a proxy answered a tunnel (CONNECT) with, when that is why the request failed: undici says it in a
 * cause two levels down ("Proxy response (407) !== 200 when HTTP Tunneling"), under a generic "fetch failed".
 */
export function proxyRefusal(error: unknown): number | undefined {
  for (const e of causes(error)) {
    const status = /Proxy response \((\d{3})\)/.exec(e.message)?.[1];
    if (status !== undefined) return Number(status);
  }
  return undefined;
}

/** An error and its causes, outermost first (at most 6, in case of a cycle). */
function causes(error: unknown): Error[] {
  const chain: Error[] = [];
  for (let e = error; e instanceof Error && chain.length < 6; e = e.cause) chain.push(e);
  return chain;
}
