import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/api-error.js';
import { parseRetryAfter } from '../../src/api/retry-policy.js';
import { createTestApi, PARSER_ORIGIN, PIPELINE_ORIGIN, SENTINEL_KEY, useNock } from '../helpers/api.js';
import { until } from '../helpers/until.js';

useNock();

const NOW = Date.parse('2026-11-22T12:00:00.000Z');
/** What every 429's hint advises once the transport has waited and tried again. */
const NEXT =
  "lower --concurrency (apply), run the command again later, or check the rate limits of the account's plan in the ScraperAPI dashboard";
const list = [{ id: 'p-1', name: 'b', status: 'FINISHED', error: null, generated_at: null, version: 0 }];

describe('retries', () => {
  it('GET retries 503 and 500 with exponential backoff and full jitter, then succeeds', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(503).get('/parsers').query(true).reply(500);
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(200, list);
    const { parsers, sleeps, events } = createTestApi({ retry: { baseDelayMs: 1000 } });
    expect(await parsers.list()).toHaveLength(1);
    // random() is 0.5: half of 1000, then half of 2000.
    expect(sleeps).toEqual([500, 1000]);
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      {
        type: 'retry',
        method: 'GET',
        url: `${PARSER_ORIGIN}/parsers?api_key=***`,
        attempt: 1,
        delayMs: 500,
        reason: 'HTTP 503',
      },
      {
        type: 'retry',
        method: 'GET',
        url: `${PARSER_ORIGIN}/parsers?api_key=***`,
        attempt: 2,
        delayMs: 1000,
        reason: 'HTTP 500',
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(SENTINEL_KEY);
  });

  it("Ctrl-C (the transport's interrupt) ends a wait between tries at once and starts no other try", async () => {
    nock(PIPELINE_ORIGIN).post('/api/projects').query(true).reply(429, 'slow down', { 'Retry-After': '30' });
    const interrupt = new AbortController();
    const waits: number[] = [];
    const { projects } = createTestApi({
      interrupt: interrupt.signal,
      // The real wait: only its signal ends it.
      sleep: (ms, signal) =>
        new Promise((resolve) => {
          waits.push(ms);
          signal?.addEventListener('abort', () => resolve(), { once: true });
        }),
    });
    const creating = projects.create({ name: 'x' });
    await until('the transport waits before its next try', () => waits.length > 0, { everyMs: 5 });
    expect(waits).toEqual([30_000]);
    interrupt.abort();
    const error = (await creating.catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status]).toEqual(['api.rate-limited', 429]);
    expect(error.hint).toBe(
      `the service refused this call with 429 (rate limited), and the run was stopped after 1 try, before scrapeform tried it again: ${NEXT}`,
    );
  });

  it('Ctrl-C as a 429 comes, before any wait: the hint says the run was stopped before another try, not while waiting', async () => {
    const interrupt = new AbortController();
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .reply(() => {
        interrupt.abort();
        return [429, 'slow down', { 'Retry-After': '2' }];
      });
    const { parsers, sleeps } = createTestApi({ interrupt: interrupt.signal });
    const error = (await parsers.list().catch((e: unknown) => e)) as ApiError;
    expect([error.code, sleeps]).toEqual(['api.rate-limited', []]);
    expect(error.hint).toBe(
      `the service refused this call with 429 (rate limited), and the run was stopped after 1 try, before scrapeform tried it again: ${NEXT}`,
    );
  });

  it('5xx answers then 429: the hint counts the tries refused with 429, not "refused on each of its tries"', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(true).times(4).reply(503);
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(429, 'slow down', { 'Retry-After': '2' });
    const once = createTestApi();
    const error = (await once.parsers.list().catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status, once.sleeps.length]).toEqual(['api.rate-limited', 429, 4]);
    expect(error.hint).toBe(
      `the service refused this call with 429 (rate limited): its last try was refused with 429 after 5 tries, the ones before failing otherwise, and scrapeform waited before each new try as long as its Retry-After asked (backing off when it named no wait): ${NEXT}`,
    );
    // A 429 before a 503 is not one of the last refused in a row.
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(429).get('/parsers').query(true).reply(503);
    nock(PARSER_ORIGIN).get('/parsers').query(true).times(3).reply(429, 'slow down');
    const three = createTestApi();
    const last = (await three.parsers.list().catch((e: unknown) => e)) as ApiError;
    expect(last.hint).toBe(
      `the service refused this call with 429 (rate limited): the last 3 of its 5 tries were refused with 429, the ones before failing otherwise, and scrapeform waited before each new try as long as its Retry-After asked (backing off when it named no wait): ${NEXT}`,
    );
    // The hint is read-only: only the transport puts another in its place (withHint).
    expect(() => {
      // @ts-expect-error hint is read-only
      last.hint = 'changed';
    }).toThrow(TypeError);
    expect(last.toJSON().hint).toBe(last.hint);
  });

  it('refused with 429 on every try: the hint says how many tries were made, each after the wait its Retry-After asked, and not "wait and try again"', async () => {
    // The hint said "the service is rate limiting: wait and try again", after scrapeform had waited and tried again
    // four times already.
    nock(PARSER_ORIGIN).get('/parsers').query(true).times(5).reply(429, 'slow down', { 'Retry-After': '2' });
    const { parsers, sleeps } = createTestApi();
    const error = (await parsers.list().catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status, sleeps]).toEqual(['api.rate-limited', 429, [2000, 2000, 2000, 2000]]);
    expect(error.message).toBe(`GET ${PARSER_ORIGIN}/parsers?api_key=***: 429: slow down`);
    expect(error.hint).toBe(
      `the service refused this call with 429 (rate limited) on each of its 5 tries, and scrapeform waited before each new try as long as its Retry-After asked (backing off when it named no wait): ${NEXT}`,
    );
    expect(error.toJSON().hint).toBe(error.hint);
    // A POST refused so (a create: a 429 says nothing was made) ends the same way after its tries.
    nock(PIPELINE_ORIGIN).post('/api/projects').query(true).times(3).reply(429, { error: 'too many' });
    const limited = createTestApi({ retry: { maxRetries: 2 } });
    const refused = (await limited.projects.create({ name: 'x' }).catch((e: unknown) => e)) as ApiError;
    expect([refused.status, limited.sleeps]).toEqual([429, [250, 500]]);
    expect(refused.hint).toBe(
      `the service refused this call with 429 (rate limited) on each of its 3 tries, and scrapeform waited before each new try as long as its Retry-After asked (backing off when it named no wait): ${NEXT}`,
    );
  });

  it('interrupted before an answer that would be retried: no second try', async () => {
    const interrupt = new AbortController();
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .reply(() => {
        interrupt.abort();
        return [503, ''];
      });
    const { parsers, sleeps } = createTestApi({ interrupt: interrupt.signal });
    const error = (await parsers.list().catch((e: unknown) => e)) as ApiError;
    expect([error.status, sleeps]).toEqual([503, []]);
  });

  it('honours Retry-After in seconds on 429', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(429, 'slow down', { 'Retry-After': '7' });
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(200, list);
    const { parsers, sleeps } = createTestApi();
    await parsers.list();
    expect(sleeps).toEqual([7000]);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const date = new Date(NOW + 12_000).toUTCString();
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(503, '', { 'Retry-After': date });
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(200, list);
    const { parsers, sleeps } = createTestApi({ now: () => NOW });
    await parsers.list();
    expect(sleeps).toEqual([12_000]);
  });

  it('caps the backoff of any one delay', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(true).times(2).reply(503);
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(200, list);
    const { parsers, sleeps } = createTestApi({ retry: { baseDelayMs: 30_000, maxDelayMs: 20_000 } });
    await parsers.list();
    expect(sleeps).toEqual([10_000, 10_000]);
  });

  it('a Retry-After longer than any one wait ends the call at once, saying so: no try the service said it would refuse', async () => {
    // It was cut to the 30 s cap and tried again (and again): a plan spent 90 s of a CI job on tries the
    // service had said it would refuse for 27 hours, and said "retrying in 30.0s".
    for (const retryAfter of ['100000', new Date(NOW + 3_600_000).toUTCString(), '9'.repeat(400)]) {
      nock(PARSER_ORIGIN)
        .get('/parsers')
        .query(true)
        .reply(429, 'Too many requests', { 'Retry-After': retryAfter });
      const { parsers, sleeps, events } = createTestApi({ now: () => NOW });
      const error = (await parsers.list().catch((e: unknown) => e)) as ApiError;
      expect([error.code, error.status, sleeps, events.filter((e) => e.type === 'retry')]).toEqual([
        'api.rate-limited',
        429,
        [],
        [],
      ]);
      const wait =
        retryAfter === '100000'
          ? '27h 46m'
          : retryAfter.length === 400
            ? 'longer than scrapeform waits'
            : '1h 00m';
      expect(error.message).toBe(
        `GET ${PARSER_ORIGIN}/parsers?api_key=***: 429: Too many requests: the service asks to wait ${wait} before another try, more than the 30s scrapeform waits between tries; not tried again`,
      );
      expect(error.hint).toBe(
        `the service refused this call with 429 (rate limited) and asked to wait longer than the 30s scrapeform waits between tries (the message says how long), so the call ended after 1 try rather than send one the service said it would refuse: ${NEXT}`,
      );
    }
    // After tries it did wait for, the count says so.
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .reply(429, '', { 'Retry-After': '3' })
      .get('/parsers')
      .query(true)
      .reply(429, '', { 'Retry-After': '3600' });
    const later = createTestApi();
    const ended = (await later.parsers.list().catch((e: unknown) => e)) as ApiError;
    expect(later.sleeps).toEqual([3000]);
    expect(ended.hint).toBe(
      `the service refused this call with 429 (rate limited) and asked to wait longer than the 30s scrapeform waits between tries (the message says how long), so the call ended after 2 tries rather than send one the service said it would refuse: ${NEXT}`,
    );
    // A POST refused so is not sent again either.
    nock(PARSER_ORIGIN).post('/parsers').reply(429, '', { 'Retry-After': '31' });
    const { parsers, sleeps } = createTestApi();
    const error = (await parsers
      .create({ name: 'b', urls: ['https://b.example/'] })
      .catch((e: unknown) => e)) as ApiError;
    expect([error.status, sleeps]).toEqual([429, []]);
    expect(error.message).toBe(
      `POST ${PARSER_ORIGIN}/parsers: 429: the service asks to wait 31s before another try, more than the 30s scrapeform waits between tries; not tried again`,
    );
  });

  it('gives up after the retry cap and throws the last error', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(true).times(3).reply(502, 'bad gateway');
    const { parsers, sleeps } = createTestApi({ retry: { maxRetries: 2 } });
    const error = (await parsers.list().catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status]).toEqual(['api.server-error', 502]);
    expect(sleeps).toHaveLength(2);
  });

  it('retries a dropped connection on GET', async () => {
    nock(PARSER_ORIGIN)
      .get('/parsers')
      .query(true)
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(200, list);
    const { parsers, sleeps } = createTestApi();
    expect(await parsers.list()).toHaveLength(1);
    expect(sleeps).toHaveLength(1);
  });

  it('a parse (charged per try) is not asked again after a broken connection or a timeout, only after an answer saying it failed', async () => {
    // Review: a parse answered after the timeout was sent again, and each try was charged.
    nock(PARSER_ORIGIN)
      .get('/parse/p-1/0')
      .query(true)
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const { parsers, sleeps } = createTestApi();
    const dropped = (await parsers
      .parse('p-1', 0, 'https://b.example/')
      .catch((e: unknown) => e)) as ApiError;
    expect(dropped.code).toBe('api.network');
    nock(PARSER_ORIGIN).get('/parse/p-1/0').query(true).delay(300).reply(200, { result: {} });
    const late = createTestApi({ timeoutMs: 50 });
    const timedOut = (await late.parsers
      .parse('p-1', 0, 'https://b.example/')
      .catch((e: unknown) => e)) as ApiError;
    expect(timedOut.code).toBe('api.timeout');
    expect([...sleeps, ...late.sleeps]).toEqual([]);
    // A gateway that gave up waiting (502, 504) is our own timeout seen from the other side: not asked again.
    for (const status of [502, 504]) {
      nock(PARSER_ORIGIN).get('/parse/p-1/0').query(true).reply(status, '<html>Gateway Timeout</html>');
      const gateway = createTestApi();
      const error = (await gateway.parsers
        .parse('p-1', 0, 'https://b.example/')
        .catch((e: unknown) => e)) as ApiError;
      expect(error.status).toBe(status);
      expect(gateway.sleeps).toEqual([]);
    }
    // The seed's advice for 500 "Extraction failed" is to retry: the service said it was not done.
    nock(PARSER_ORIGIN).get('/parse/p-1/0').query(true).reply(500, { error: 'Extraction failed' });
    nock(PARSER_ORIGIN)
      .get('/parse/p-1/0')
      .query(true)
      .reply(200, { result: { title: 'x' } });
    const retried = createTestApi();
    expect((await retried.parsers.parse('p-1', 0, 'https://b.example/')).result).toEqual({ title: 'x' });
    expect(retried.sleeps).toHaveLength(1);
  });

  it('a parse is asked again only after 429, 500 or 503; any other 5xx may come after the charge and ends it, saying so', async () => {
    // Review: a parse answered 524 (a proxy in front gave up waiting for the origin, which had the request) was sent
    // again, up to five times, each try charged; the README names 429, 500 and 503 only.
    for (const status of [501, 505, 520, 522, 524, 599]) {
      const scope = nock(PARSER_ORIGIN)
        .get('/parse/p-1/0')
        .query(true)
        .reply(status, '<html>A timeout occurred</html>');
      const again = nock(PARSER_ORIGIN)
        .get('/parse/p-1/0')
        .query(true)
        .reply(200, { result: { title: 'x' } });
      const api = createTestApi();
      const error = (await api.parsers
        .parse('p-1', 0, 'https://b.example/')
        .catch((e: unknown) => e)) as ApiError;
      expect(error).toBeInstanceOf(ApiError);
      expect(error.message).toBe(
        `GET ${PARSER_ORIGIN}/parse/p-1/0?url=https%3A%2F%2Fb.example%2F&api_key=***: ${status}: <html>A timeout occurred</html>: a parse is charged per try and this one may have been: not sent again`,
      );
      // Its hint does not say "retry" (the 5xx advice's), which may pay for the page twice.
      expect(error.hint).toBe(
        'the service or a gateway before it failed after this parse may have been charged: parsing the page again may be paid twice (check the usage in the ScraperAPI dashboard); contact support if it persists',
      );
      expect(api.sleeps).toEqual([]);
      expect(scope.isDone()).toBe(true);
      expect(again.isDone()).toBe(false);
      nock.cleanAll();
    }
    // No answer at all (a timeout, a broken connection) says the same.
    nock(PARSER_ORIGIN).get('/parse/p-1/0').query(true).delay(300).reply(200, { result: {} });
    const late = createTestApi({ timeoutMs: 50 });
    const timedOut = (await late.parsers
      .parse('p-1', 0, 'https://b.example/')
      .catch((e: unknown) => e)) as ApiError;
    expect(timedOut.message).toBe(
      `GET ${PARSER_ORIGIN}/parse/p-1/0?url=https%3A%2F%2Fb.example%2F&api_key=***: timed out: no answer within the request timeout of 50 ms: a parse is charged per try and this one may have been: not sent again`,
    );
    // A connection refused never carried the request: nothing was charged, and the error does not say it was.
    nock(PARSER_ORIGIN)
      .get('/parse/p-1/0')
      .query(true)
      .replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const refused = (await createTestApi()
      .parsers.parse('p-1', 0, 'https://b.example/')
      .catch((e: unknown) => e)) as ApiError;
    expect(refused.code).toBe('api.network');
    expect(refused.message).not.toContain('charged');
    expect(refused.hint).not.toContain('charged');
    // A list (free) is still asked again after a 524.
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(524).get('/parsers').query(true).reply(200, list);
    const free = createTestApi();
    expect(await free.parsers.list()).toHaveLength(1);
    expect(free.sleeps).toHaveLength(1);
  });

  it('retries DELETE (idempotent)', async () => {
    nock(PARSER_ORIGIN).delete('/parsers/p-1').query(true).reply(503);
    nock(PARSER_ORIGIN).delete('/parsers/p-1').query(true).reply(204);
    await createTestApi().parsers.delete('p-1');
  });

  it('never retries POST: one request, the error goes to the caller', async () => {
    nock(PARSER_ORIGIN).post('/parsers').reply(503);
    const { parsers, sleeps, events } = createTestApi();
    const error = (await parsers
      .create({ name: 'b', urls: ['https://b.example/'] })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.retryable).toBe(true);
    expect(sleeps).toEqual([]);
    expect(events.filter((e) => e.type === 'retry')).toEqual([]);
  });

  it('never retries PATCH, not even after a dropped connection', async () => {
    nock(PARSER_ORIGIN)
      .patch('/parsers/p-1/0')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
    const { parsers, sleeps } = createTestApi();
    const error = (await parsers
      .update('p-1', 0, { remove_fields: ['x'] })
      .catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api.network');
    expect(sleeps).toEqual([]);
  });

  it('never retries a project create or update that failed otherwise than with 429', async () => {
    nock(PIPELINE_ORIGIN).post('/api/projects').query(true).reply(500);
    nock(PIPELINE_ORIGIN).patch('/api/projects/5').query(true).reply(503, '', { 'Retry-After': '1' });
    const { projects, sleeps } = createTestApi();
    await expect(projects.create({ name: 'x' })).rejects.toBeInstanceOf(ApiError);
    await expect(projects.update(5, { name: 'y' })).rejects.toBeInstanceOf(ApiError);
    expect(sleeps).toEqual([]);
  });

  it('retries a POST refused with 429 after Retry-After, and says nothing was applied', async () => {
    nock(PARSER_ORIGIN).post('/parsers').reply(429, 'slow down', { 'Retry-After': '3' });
    nock(PARSER_ORIGIN)
      .post('/parsers', { name: 'b', urls: ['https://b.example/'], api_key: SENTINEL_KEY })
      .reply(201, { id: 'p-1', version: 0 });
    const { parsers, sleeps, events } = createTestApi();
    expect(await parsers.create({ name: 'b', urls: ['https://b.example/'] })).toEqual({
      id: 'p-1',
      version: 0,
    });
    expect(sleeps).toEqual([3000]);
    expect(events.filter((e) => e.type === 'retry')).toEqual([
      {
        type: 'retry',
        method: 'POST',
        url: `${PARSER_ORIGIN}/parsers`,
        attempt: 1,
        delayMs: 3000,
        reason: 'HTTP 429: refused, nothing applied',
      },
    ]);
  });

  it('retries a PATCH refused with 429 (Retry-After as a date), at most the policy allows', async () => {
    const date = new Date(NOW + 4000).toUTCString();
    nock(PIPELINE_ORIGIN)
      .patch('/api/projects/5', { name: 'y' })
      .query(true)
      .times(3)
      .reply(429, { error: 'too many' }, { 'Retry-After': date });
    const { projects, sleeps } = createTestApi({ now: () => NOW, retry: { maxRetries: 2 } });
    const error = (await projects.update(5, { name: 'y' }).catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status]).toEqual(['api.rate-limited', 429]);
    expect(sleeps).toEqual([4000, 4000]);
  });

  it('stops retrying once the next try would start after the overall bound of the call', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(true).times(2).reply(503, '', { 'Retry-After': '20' });
    // The clock moves by each wait: a first 20 s wait fits in 30 s, a second would not.
    let clock = NOW;
    const sleeps: number[] = [];
    const { parsers } = createTestApi({
      retry: { maxElapsedMs: 30_000 },
      now: () => clock,
      sleep: async (ms) => {
        sleeps.push(ms);
        clock += ms;
      },
    });
    const error = (await parsers.list().catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status]).toEqual(['api.server-error', 503]);
    expect(sleeps).toEqual([20_000]);
  });

  it('a Retry-After that does not fit in what is left of the call ends it saying so, not with a bare 429', async () => {
    // Under the 30 s cap, but past the overall bound (four request timeouts, 20 s here): the call ended at once
    // with "429: slow down", no try and no word of the 25 s the service asked for.
    nock(PARSER_ORIGIN).post('/parsers').reply(429, 'slow down', { 'Retry-After': '25' });
    const { parsers, sleeps, events } = createTestApi({ now: () => NOW, timeoutMs: 5_000 });
    const error = (await parsers
      .create({ name: 'b', urls: ['https://b.example/'] })
      .catch((e: unknown) => e)) as ApiError;
    expect([error.code, error.status, sleeps, events.filter((e) => e.type === 'retry')]).toEqual([
      'api.rate-limited',
      429,
      [],
      [],
    ]);
    expect(error.message).toBe(
      `POST ${PARSER_ORIGIN}/parsers: 429: slow down: the service asks to wait 25s before another try, more than the 20s left of the 20s scrapeform gives one call; not tried again`,
    );
    expect(error.hint).toBe(
      `the service refused this call with 429 (rate limited), and the next wait would have run past the 20s scrapeform gives one call, so it ended after 1 try: ${NEXT}`,
    );

    // After a wait, what is left is less: the second 20 s wait would end past the 30 s bound.
    nock(PARSER_ORIGIN).get('/parsers').query(true).times(2).reply(503, '', { 'Retry-After': '20' });
    let clock = NOW;
    const waited: number[] = [];
    const { parsers: again } = createTestApi({
      retry: { maxElapsedMs: 30_000 },
      now: () => clock,
      sleep: async (ms) => {
        waited.push(ms);
        clock += ms;
      },
    });
    const late = (await again.list().catch((e: unknown) => e)) as ApiError;
    expect(waited).toEqual([20_000]);
    expect(late.message).toBe(
      `GET ${PARSER_ORIGIN}/parsers?api_key=***: 503: the service asks to wait 20s before another try, more than the 10s left of the 30s scrapeform gives one call; not tried again`,
    );
  });

  it('a 502 or 504 that outlasts the retries gives each kind of call the hint that fits it, not the parse advice', async () => {
    // Review: a free read (a list, a parser's details) answered 502 after every retry was told "for parsing: extraction
    // failed; retry, try additional scraping parameters": advice for a parse, and "retry" for what was already tried.
    const READ =
      'the service or a gateway before it failed; this call spends no credits, and scrapeform sent it again after each 5xx as far as its retry limits allow: run the command again later, and contact support if it persists';
    const WRITE =
      'the service or a gateway before it failed, and the change may have been made all the same: scrapeform does not send a create or change again after a 5xx; check what the service holds (scrapeform plan re-reads it) before running the command again, and contact support if it persists';
    const PAID =
      'the service or a gateway before it failed after this parse may have been charged: parsing the page again may be paid twice (check the usage in the ScraperAPI dashboard); contact support if it persists';
    for (const status of [502, 504]) {
      const calls: [string, number, string, (api: ReturnType<typeof createTestApi>) => Promise<unknown>][] = [
        ['GET list', 5, READ, (api) => api.parsers.list()],
        ['GET details', 5, READ, (api) => api.parsers.get('p-1')],
        ['DELETE', 5, READ, (api) => api.parsers.delete('p-1')],
        ['POST', 1, WRITE, (api) => api.projects.create({ name: 'x' })],
        ['PATCH', 1, WRITE, (api) => api.projects.update(7, { name: 'y' })],
        ['parse', 1, PAID, (api) => api.parsers.parse('p-1', 0, 'https://b.example/')],
      ];
      for (const [call, tries, hint, send] of calls) {
        const seen = { n: 0 };
        for (const origin of [PARSER_ORIGIN, PIPELINE_ORIGIN]) {
          for (const method of ['GET', 'DELETE', 'POST', 'PATCH']) {
            nock(origin)
              .intercept(/.*/, method)
              .times(6)
              .optionally()
              .reply(() => {
                seen.n++;
                return [status, 'Bad Gateway'];
              });
          }
        }
        const error = (await send(createTestApi()).catch((e: unknown) => e)) as ApiError;
        expect([call, status, error.code, error.status, seen.n]).toEqual([
          call,
          status,
          'api.server-error',
          status,
          tries,
        ]);
        expect([call, status, error.hint]).toEqual([call, status, hint]);
        nock.cleanAll();
      }
    }
    // A parse's 504 with a Retry-After not waited says both in its message; its hint is still the one of a parse
    // that may have been charged, not "retry".
    nock(PARSER_ORIGIN)
      .get('/parse/p-1/0')
      .query(true)
      .reply(504, 'Gateway Timeout', { 'Retry-After': '120' });
    const error = (await createTestApi()
      .parsers.parse('p-1', 0, 'https://b.example/')
      .catch((e: unknown) => e)) as ApiError;
    expect(error.message).toBe(
      `GET ${PARSER_ORIGIN}/parse/p-1/0?url=https%3A%2F%2Fb.example%2F&api_key=***: 504: Gateway Timeout: the service asks to wait 2m 00s before another try, more than the 30s scrapeform waits between tries; not tried again; a parse is charged per try and this one may have been: not sent again`,
    );
    expect(error.hint).toBe(PAID);
  });

  it('does not retry 4xx other than 429', async () => {
    nock(PARSER_ORIGIN).get('/parsers').query(true).reply(401);
    const { parsers, sleeps } = createTestApi();
    await expect(parsers.list()).rejects.toMatchObject({ code: 'api.unauthorized', retryable: false });
    expect(sleeps).toEqual([]);
  });
});

/** `time` as asctime writes it (`Sun Nov  6 08:49:37 1994`), in GMT. */
function asctime(time: number): string {
  const [day, , month, year, clock] = new Date(time).toUTCString().replace(',', '').split(' ');
  const date = new Date(time).getUTCDate();
  return `${day} ${month} ${String(date).padStart(2, ' ')} ${clock} ${year}`;
}

describe('parseRetryAfter', () => {
  it.each([
    ['0', 0],
    ['120', 120_000],
    [new Date(NOW + 3000).toUTCString(), 3000],
    [new Date(NOW - 3000).toUTCString(), 0],
    ['soon', undefined],
    // Review: these were read by Date.parse as dates long past, so the 429 was retried at once, four times.
    ['1.5', 1500],
    ['-5', undefined],
    ['2001-01-05', undefined],
    ['Sun, 06 Nov 1994 08:49:37 GMT', 0],
    // The two obsolete forms RFC 9110 still has recipients read.
    ['Sunday, 06-Nov-94 08:49:37 GMT', 0],
    ['Sun Nov  6 08:49:37 1994', 0],
    // asctime names no zone and means GMT, whatever the machine's own.
    [asctime(NOW + 3000), 3000],
    // Text that only holds a date somewhere (Date.parse finds one) is no HTTP date: the backoff decides.
    ['soon 2099', undefined],
    ['try again in 5 minutes, Jan 2099', undefined],
    [`${new Date(NOW + 3000).toUTCString()} please`, undefined],
  ])('%s -> %s ms', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});
