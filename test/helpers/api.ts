import nock from 'nock';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { ParsersClient } from '../../src/api/parsers-client.js';
import { ProjectsClient } from '../../src/api/projects-client.js';
import { Transport } from '../../src/api/transport.js';
import type { TransportEvent, TransportOptions } from '../../src/api/transport.js';

/** A key that must never show up anywhere but in the requests themselves. */
export const SENTINEL_KEY = 'sk_live_SENTINEL_5f3a9c';

export const PARSER_ORIGIN = 'https://aiparser.test';
export const PIPELINE_ORIGIN = 'https://datapipeline.test';

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

/** Everything about an error a user or a log could see, as one string to search for the key. */
export function everythingShown(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 10; depth++) {
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? '', JSON.stringify(current));
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return parts.join('\n');
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
