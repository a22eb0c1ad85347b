import { resolveApiConfig } from '../api/config.js';
import type { ApiConfigOptions } from '../api/config.js';
import { createDispatcher } from '../api/dispatcher.js';
import { readList } from '../api/read-list.js';
import { Transport } from '../api/transport.js';
import { ParserListItemSchema, ProjectSchema } from '../api/wire-schemas.js';
import type { TransportEvent, TransportResponse } from '../api/transport-contract.js';
import type { DoctorCheck, DoctorReading, DoctorReport } from '../output/render-doctor.js';
import { clockCheck, proxyRoute } from './doctor-machine-checks.js';
import { ScrapeformError } from '../errors.js';
import type { ReadPages } from './doctor-list-check.js';
import { checkParsers } from './doctor-parser-checks.js';
import type { ManagedParsers } from './doctor-parser-checks.js';
import { checkProjects } from './doctor-project-checks.js';
import { openState } from './open-workspace.js';
import { fieldlessOf } from './read-live.js';
import type { StateLocation } from './open-workspace.js';

export type { DoctorCheck, DoctorReading, DoctorReport } from '../output/render-doctor.js';

export interface DoctorOptions extends ApiConfigOptions {
  /** Check one service only (a key may have access to one service only). */
  only?: 'parsers' | 'projects';
  /**
   * Where this workspace's state lives (`{}`: the default file): the details of every parser it records that the
   * list shows FINISHED are read. Left out, only one parser is read, and the report says so.
   */
  state?: StateLocation;
  onTransportEvent?: (event: TransportEvent) => void;
  now?: () => number;
}

/**
 * A read-only check of a real account that spends no credits (issue 13): one list call per service, the details of
 * one existing parser, of every FINISHED parser this workspace manages (READ_CONCURRENCY at a time) and of one
 * project by id, the readings of docs/real-services.md they show, the proxy route
 * and the clock skew. Never creates, changes or parses anything. `ok` is false when scrapeform cannot work with
 * what it saw: a key refused, a service unreachable, or an answer it cannot read.
 */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const config = await resolveApiConfig(options);
  const now = options.now ?? Date.now;
  const dispatcher = createDispatcher(options.env);
  const transport = new Transport({
    apiKey: config.apiKey,
    dispatcher,
    timeoutMs: config.timeoutMs,
    ...(options.onTransportEvent !== undefined ? { onEvent: options.onTransportEvent } : {}),
  });
  const checks: DoctorCheck[] = config.warnings.map((message) => ({ name: 'key', status: 'warn', message }));
  const readings = new Map<string, DoctorReading>();
  const skews: number[] = [];
  const get = async (service: string, url: string): Promise<TransportResponse> => {
    const sent = now();
    const response = await transport
      .forService(service)
      .request({ method: 'GET', url, keyIn: 'query', expect: [200], idempotent: true });
    const date = Date.parse(response.headers.get('date') ?? '');
    // The Date header has one-second resolution; the middle of the exchange is the best local match.
    if (!Number.isNaN(date)) skews.push(date - Math.round((sent + now()) / 2));
    // The checks quote what the account holds (a parser's name, its statuses): a key written there by hand goes.
    return { ...response, body: transport.redactAnswer(response.body) };
  };
  const readPages: ReadPages = async (service, url, resource) => {
    const schema = resource === 'parsers' ? ParserListItemSchema : ProjectSchema;
    const items: unknown[] = await readList(
      transport.forService(service),
      { method: 'GET', url, keyIn: 'query', expect: [200], idempotent: true },
      schema,
      resource,
      { idOf: (item: { id: unknown }) => item.id },
    );
    return transport.redactAnswer(items) as unknown[];
  };
  const readers = { get, readPages };
  try {
    if (options.only !== 'projects') {
      const managed = options.state !== undefined ? await readManaged(options.state) : undefined;
      await checkParsers(config.parserUrl, readers, checks, readings, managed);
    } else skipService('parsers', checks);
    if (options.only !== 'parsers') await checkProjects(config.pipelineUrl, readers, checks, readings);
    else skipService('projects', checks);
  } finally {
    // What is still in flight was given up (a try past its deadline). destroy, not close: close waits for it, and a
    // proxy that never answers held doctor 300 s past its --timeout (undici's own bound), as it did the clients.
    await dispatcher.destroy();
  }
  // Neither can be seen without a create, which would spend credits: said, not guessed.
  readings.set('lagging-list', {
    name: 'lagging-list',
    seen: null,
    message:
      'whether a new object is listed at once cannot be seen read-only; plan looks recorded objects up by id',
  });
  readings.set('create-429', {
    name: 'create-429',
    seen: null,
    message: 'cannot be seen read-only; a refused create (429) is sent again after Retry-After',
  });
  const clockSkewMs = skews.length > 0 ? Math.round(skews.reduce((a, b) => a + b, 0) / skews.length) : null;
  checks.push(clockCheck(clockSkewMs));
  const proxy = proxyRoute(options.env, config.parserUrl, config.pipelineUrl);
  checks.push({
    name: 'proxy',
    status: 'ok',
    message: `parsers ${proxy.route.parsers}, projects ${proxy.route.projects}`,
  });
  const order = [
    'details-without-version',
    'lagging-list',
    'paged-lists',
    'wrapped-lists',
    'queued-status',
    'queued-jobs',
    'sparse-projects',
    'create-429',
  ];
  return {
    ok: checks.every((c) => c.status !== 'fail'),
    // A URL given with the key in it (pasted with its `?api_key=` query) is shown as the calls to it are: redacted.
    // The report is made to be shared, and says it holds no key.
    endpoints: { parsers: transport.show(config.parserUrl), projects: transport.show(config.pipelineUrl) },
    checks,
    readings: order.map(
      (name) =>
        readings.get(name) ?? {
          name,
          seen: null,
          message: 'not checked: its service was skipped or refused',
        },
    ),
    proxy,
    clockSkewMs,
  };
}

/** The parsers state records, address by id; why not when state cannot be read (doctor still checks the account). */
async function readManaged(location: StateLocation): Promise<ManagedParsers> {
  const opened = openState(location);
  try {
    const state = await opened.backend.read();
    const fieldless = fieldlessOf(state);
    return new Map(
      Object.entries(state.resources).flatMap(([address, r]) =>
        r.kind === 'Parser' ? [[r.id, { address, fieldless: fieldless(r.id) }] as const] : [],
      ),
    );
  } catch (error) {
    if (!(error instanceof ScrapeformError)) throw error;
    return { unread: error.message };
  } finally {
    await opened.close();
  }
}

function skipService(service: 'parsers' | 'projects', checks: DoctorCheck[]): void {
  checks.push({ name: `${service}.list`, status: 'skipped', message: '--only leaves this service out' });
}
