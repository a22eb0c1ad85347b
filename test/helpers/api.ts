import nock from 'nock';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ParsersClient } from '../../src/api/parsers-client.js';
import { ProjectsClient } from '../../src/api/projects-client.js';
import { Transport } from '../../src/api/transport.js';
import type { TransportEvent, TransportOptions } from '../../src/api/transport-contract.js';
import { SENTINEL_KEY } from './secrets.js';

// Without nock: tests against real servers on loopback import these from secrets.js (nock's interception would
// change how their connections behave).
export { everythingShown, SENTINEL_KEY } from './secrets.js';

export const PARSER_ORIGIN = 'https://aiparser.test';
export const PIPELINE_ORIGIN = 'https://datapipeline.test';

/** What a CLI run of a contract test is given: the test key, and both services at the origins nock answers for. */
export const NOCK_ENV = {
  SCRAPERAPI_API_KEY: SENTINEL_KEY,
  SCRAPEFORM_PARSER_URL: PARSER_ORIGIN,
  SCRAPEFORM_PIPELINE_URL: PIPELINE_ORIGIN,
} as const;

/** The query every GET and DELETE of a contract test carries: the test key (API-NOTES: `api_key` in the query). */
export const KEY_QUERY = { api_key: SENTINEL_KEY } as const;

export interface TestApi {
  parsers: ParsersClient;
  projects: ProjectsClient;
  transport: Transport;
  events: TransportEvent[];
  sleeps: number[];
}

/** Clients whose waits are recorded instead of slept, with jitter fixed at half the ceiling. */
export function createTestApi(options: Partial<TransportOptions> & { parserUrl?: string } = {}): TestApi {
  const events: TransportEvent[] = [];
  const sleeps: number[] = [];
  const transport = new Transport({
    apiKey: SENTINEL_KEY,
    onEvent: (event) => events.push(event),
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 0.5,
    ...options,
  });
  return {
    parsers: new ParsersClient(transport, options.parserUrl ?? PARSER_ORIGIN),
    projects: new ProjectsClient(transport, PIPELINE_ORIGIN),
    transport,
    events,
    sleeps,
  };
}

/** nock for a contract test file: no real connection, and every interceptor set up must have been called. */
export function useNock(): void {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending).toEqual([]);
  });
}

/** Runs `work` and returns what it returned with the requests no interceptor matched (method and path): sent, unplanned. */
export async function withUnmatched<T>(work: () => Promise<T>): Promise<{ result: T; unmatched: string[] }> {
  const unmatched: string[] = [];
  const noMatch = (req: { method?: string; path?: string }): void => {
    unmatched.push(`${req.method} ${req.path}`);
  };
  nock.emitter.on('no match', noMatch);
  try {
    return { result: await work(), unmatched };
  } finally {
    nock.emitter.removeListener('no match', noMatch);
  }
}

/**
 * Answers `answer` to every request `interceptor` matches, and counts them. By default each is refused as out of
 * credits, so a run that sends one (a paid call a test says must not go out) ends at once.
 */
export function counted(
  interceptor: nock.Interceptor,
  answer: [number, unknown] = [402, 'Credits exhausted'],
): { n: number } {
  const seen = { n: 0 };
  interceptor
    .reply(() => {
      seen.n++;
      return answer;
    })
    .persist();
  return seen;
}
