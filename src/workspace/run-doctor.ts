import { ApiError } from '../api/api-error.js';
import { resolveApiConfig } from '../api/config.js';
import type { ApiConfigOptions } from '../api/config.js';
import { normaliseParserStatus } from '../api/parser-status.js';
import { createDispatcher, PARSER_SERVICE, PIPELINE_SERVICE, Transport } from '../api/transport.js';
import type { TransportEvent, TransportResponse } from '../api/transport.js';
import { ParserListItemSchema, ProjectSchema } from '../api/wire-schemas.js';
import { PROJECT_FIELDS } from '../model/project-fields.js';
import { PARSER_STATUSES } from '../model/vocabulary.js';
import type { DoctorCheck, DoctorReading, DoctorReport } from '../output/render-doctor.js';

export type { DoctorCheck, DoctorReading, DoctorReport } from '../output/render-doctor.js';

export interface DoctorOptions extends ApiConfigOptions {
  /** Check one service only (a key may have access to one service only). */
  only?: 'parsers' | 'projects';
  onTransportEvent?: (event: TransportEvent) => void;
  now?: () => number;
}

/** A clock further off than this is worth a warning: schedules and "generating for" ages are read against it. */
export const CLOCK_SKEW_WARN_MS = 5 * 60_000;

/** Where a list answer may hold its items (as api/read-list.ts reads them). */
const ITEM_KEYS = ['data', 'items', 'results'];
const PAGING_KEYS = [
  'next',
  'next_page',
  'nextPage',
  'has_more',
  'hasMore',
  'total_pages',
  'totalPages',
  'page',
];

/**
 * A read-only check of a real account that spends no credits (issue 13): one list call per service, the details of
 * one existing parser and one project by id, the readings of docs/real-services.md they show, the proxy route
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
    return response;
  };
  try {
    if (options.only !== 'projects') await checkParsers(config.parserUrl, get, checks, readings);
    else skipService('parsers', checks);
    if (options.only !== 'parsers') await checkProjects(config.pipelineUrl, get, checks, readings);
    else skipService('projects', checks);
  } finally {
    await dispatcher.close();
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
    'sparse-projects',
    'create-429',
  ];
  return {
    ok: checks.every((c) => c.status !== 'fail'),
    endpoints: { parsers: config.parserUrl, projects: config.pipelineUrl },
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

type Get = (service: string, url: string) => Promise<TransportResponse>;

function skipService(service: 'parsers' | 'projects', checks: DoctorCheck[]): void {
  checks.push({ name: `${service}.list`, status: 'skipped', message: '--only leaves this service out' });
}

async function checkParsers(
  baseUrl: string,
  get: Get,
  checks: DoctorCheck[],
  readings: Map<string, DoctorReading>,
): Promise<void> {
  const base = baseUrl.replace(/\/+$/, '');
  const list = await listOnce(get, PARSER_SERVICE, `${base}/parsers`, 'parsers', checks, readings);
  if (list === undefined) return;
  const parsed = list.items.map((item) => ParserListItemSchema.safeParse(item));
  const bad = parsed.findIndex((p) => !p.success);
  if (bad >= 0) {
    checks.push({
      name: 'parsers.list',
      status: 'fail',
      message: `item ${bad} of the parser list does not have id, name, status and version as the seed describes; plan cannot read it`,
    });
    return;
  }
  const summaries = parsed.flatMap((p) => (p.success ? [p.data] : []));
  const raw = [...new Set(summaries.map((s) => s.status))];
  const unknown = raw.filter(
    (s) => !(PARSER_STATUSES as readonly string[]).includes(normaliseParserStatus(s)),
  );
  const respelled = raw.filter(
    (s) => !(PARSER_STATUSES as readonly string[]).includes(s) && !unknown.includes(s),
  );
  readings.set('queued-status', {
    name: 'queued-status',
    seen: unknown.length > 0 || respelled.length > 0 ? true : summaries.length > 0 ? false : null,
    message:
      unknown.length > 0 || respelled.length > 0
        ? `statuses beyond the seed's: ${[...unknown, ...respelled].map((s) => JSON.stringify(s)).join(', ')}; ${unknown.length > 0 ? 'unknown ones are read as still working' : ''}${respelled.length > 0 ? `${unknown.length > 0 ? '; ' : ''}other spellings are read as the seed's value` : ''}`
        : summaries.length > 0
          ? `only the seed's statuses: ${raw.join(', ')}`
          : 'no parser to read a status from',
  });
  const pick = summaries.find((s) => normaliseParserStatus(s.status) === 'FINISHED') ?? summaries[0];
  if (pick === undefined) {
    checks.push({ name: 'parsers.details', status: 'skipped', message: 'the account has no parser to read' });
    readings.set('details-without-version', {
      name: 'details-without-version',
      seen: null,
      message: 'no parser to read details of',
    });
    return;
  }
  let details: Record<string, unknown>;
  try {
    const response = await get(PARSER_SERVICE, `${base}/parsers/${encodeURIComponent(pick.id)}`);
    if (response.body === null || typeof response.body !== 'object' || Array.isArray(response.body)) {
      checks.push({
        name: 'parsers.details',
        status: 'fail',
        message: `the details of ${pick.id} are not a JSON object`,
      });
      return;
    }
    details = response.body as Record<string, unknown>;
  } catch (error) {
    checks.push(failedCall('parsers.details', error));
    return;
  }
  const hasVersion = typeof details.version === 'number';
  readings.set('details-without-version', {
    name: 'details-without-version',
    seen: !hasVersion,
    message: hasVersion
      ? 'parser details carry their version'
      : 'parser details carry no version; scrapeform uses the version asked for or listed',
  });
  const finished = typeof details.status === 'string' && normaliseParserStatus(details.status) === 'FINISHED';
  const fieldsMissing = !Array.isArray(details.fields);
  const spelling =
    details.example_result === undefined && details.example_results !== undefined
      ? ' (as example_results)'
      : '';
  checks.push(
    finished && fieldsMissing
      ? {
          name: 'parsers.details',
          status: 'fail',
          message: `parser ${pick.id} is FINISHED but its details have no fields: plan refuses such answers rather than send every field again`,
        }
      : {
          name: 'parsers.details',
          status: 'ok',
          message: `parser "${pick.name}" (${pick.id}): ${Object.keys(details).sort().join(', ')}${spelling}`,
        },
  );
}

async function checkProjects(
  baseUrl: string,
  get: Get,
  checks: DoctorCheck[],
  readings: Map<string, DoctorReading>,
): Promise<void> {
  const base = `${baseUrl.replace(/\/+$/, '')}/api/projects`;
  const list = await listOnce(get, PIPELINE_SERVICE, base, 'projects', checks, readings);
  if (list === undefined) return;
  const first = list.items[0];
  const parsedFirst = ProjectSchema.safeParse(first);
  if (first !== undefined && !parsedFirst.success) {
    checks.push({
      name: 'projects.list',
      status: 'fail',
      message:
        'the first project of the list has no numeric or string id as the seed describes; plan cannot read it',
    });
    return;
  }
  if (!parsedFirst.success) {
    checks.push({
      name: 'projects.details',
      status: 'skipped',
      message: 'the account has no project to read',
    });
    readings.set('sparse-projects', { name: 'sparse-projects', seen: null, message: 'no project to read' });
    return;
  }
  let project: Record<string, unknown>;
  try {
    const response = await get(
      PIPELINE_SERVICE,
      `${base}/${encodeURIComponent(String(parsedFirst.data.id))}`,
    );
    const body = ProjectSchema.safeParse(response.body);
    if (!body.success) {
      checks.push({
        name: 'projects.details',
        status: 'fail',
        message: `project ${parsedFirst.data.id} by id is not a project the seed describes`,
      });
      return;
    }
    project = body.data as Record<string, unknown>;
  } catch (error) {
    checks.push(failedCall('projects.details', error));
    return;
  }
  // Fields scrapeform sends that the answer leaves out: compared with the last apply instead (issue 13).
  const absent = Object.entries(PROJECT_FIELDS)
    .filter(([key, rule]) => rule.compared && key !== 'name' && rule.read(project) === undefined)
    .map(([key]) => key);
  const hookInOutput =
    project.webhookOutput === undefined &&
    (project.projectOutput as { type?: unknown } | null | undefined)?.type === 'webhook';
  const camel = project.output_format === undefined && project.outputFormat !== undefined;
  const notes = [
    absent.length > 0 ? `leaves out ${absent.join(', ')}` : '',
    hookInOutput ? 'reports the webhook under projectOutput' : '',
    camel ? 'spells the format outputFormat' : '',
  ].filter((n) => n !== '');
  readings.set('sparse-projects', {
    name: 'sparse-projects',
    seen: notes.length > 0,
    message:
      notes.length > 0
        ? `the project answer ${notes.join('; ')}; scrapeform compares what is left out with its last apply`
        : 'the project answer carries every field scrapeform sends',
  });
  checks.push({
    name: 'projects.details',
    status: 'ok',
    message: `project ${parsedFirst.data.id} by id: ${Object.keys(project).sort().join(', ')}`,
  });
}

/** Reads the first page of a list and records its shape; undefined when the call failed (the check says why). */
async function listOnce(
  get: Get,
  service: string,
  url: string,
  resource: 'parsers' | 'projects',
  checks: DoctorCheck[],
  readings: Map<string, DoctorReading>,
): Promise<{ items: unknown[] } | undefined> {
  let response: TransportResponse;
  try {
    response = await get(service, url);
  } catch (error) {
    checks.push(failedCall(`${resource}.list`, error));
    return undefined;
  }
  const body = response.body;
  let items: unknown[] | undefined;
  let shape: string;
  let paged = false;
  if (Array.isArray(body)) {
    items = body;
    shape = 'a bare array';
  } else if (body !== null && typeof body === 'object') {
    const envelope = body as Record<string, unknown>;
    const key = [...ITEM_KEYS, resource].find((k) => Array.isArray(envelope[k]));
    items = key !== undefined ? (envelope[key] as unknown[]) : undefined;
    paged = PAGING_KEYS.some((k) => envelope[k] !== undefined);
    shape =
      key !== undefined
        ? `an object holding the items under "${key}"${paged ? ', with paging fields' : ''}`
        : 'an object';
  } else {
    shape = typeof body;
  }
  if (items === undefined) {
    checks.push({
      name: `${resource}.list`,
      status: 'fail',
      message: `the list answer is ${shape} with no array of ${resource} scrapeform can find; plan cannot read it`,
    });
    return undefined;
  }
  const wrapped = !Array.isArray(body);
  mergeReading(readings, 'wrapped-lists', wrapped, `${resource}: ${shape}`);
  mergeReading(
    readings,
    'paged-lists',
    paged,
    `${resource}: ${paged ? 'paged; scrapeform follows every page' : 'one answer'}`,
  );
  checks.push({
    name: `${resource}.list`,
    status: 'ok',
    message: `the key works; ${items.length} ${resource} on the first answer, ${shape}`,
  });
  return { items };
}

/** Both lists speak to one reading: seen when either shows it. */
function mergeReading(
  readings: Map<string, DoctorReading>,
  name: string,
  seen: boolean,
  message: string,
): void {
  const before = readings.get(name);
  readings.set(name, {
    name,
    seen: (before?.seen ?? false) || seen,
    message: before === undefined ? message : `${before.message}; ${message}`,
  });
}

function failedCall(name: string, error: unknown): DoctorCheck {
  if (error instanceof ApiError) {
    // The message names the service and, for 401 and 403, says what a refusal means (credits, plan, key).
    return {
      name,
      status: 'fail',
      message: `${error.message}${error.hint !== undefined ? ` (${error.hint})` : ''}`,
    };
  }
  throw error;
}

function clockCheck(skewMs: number | null): DoctorCheck {
  if (skewMs === null)
    return { name: 'clock', status: 'skipped', message: 'no answer carried a Date header' };
  const seconds = Math.round(skewMs / 1000);
  const text =
    seconds === 0
      ? 'in step with the services (within a second)'
      : `${Math.abs(seconds)}s ${seconds > 0 ? 'behind' : 'ahead of'} the services`;
  return Math.abs(skewMs) > CLOCK_SKEW_WARN_MS
    ? {
        name: 'clock',
        status: 'warn',
        message: `this machine is ${text}: set its clock (scheduledAt times and generation ages are read against it)`,
      }
    : { name: 'clock', status: 'ok', message: `this machine is ${text}` };
}

/** Which proxy each service's calls go through, as the dispatcher decides it (HTTP(S)_PROXY, NO_PROXY). */
function proxyRoute(
  env: Readonly<Record<string, string | undefined>>,
  parserUrl: string,
  pipelineUrl: string,
): DoctorReport['proxy'] {
  const pick = (name: string): string | null => env[name.toLowerCase()] ?? env[name] ?? null;
  const httpProxy = pick('HTTP_PROXY');
  const httpsProxy = pick('HTTPS_PROXY');
  const noProxy = pick('NO_PROXY');
  const route = (url: string): string => {
    const target = new URL(url);
    const proxy = target.protocol === 'https:' ? (httpsProxy ?? httpProxy) : httpProxy;
    if (proxy === null || proxy === '') return 'direct';
    if (bypassed(target, noProxy)) return 'direct (NO_PROXY)';
    return `via ${hideCredentials(proxy)}`;
  };
  return {
    httpProxy: httpProxy !== null ? hideCredentials(httpProxy) : null,
    httpsProxy: httpsProxy !== null ? hideCredentials(httpsProxy) : null,
    noProxy,
    route: { parsers: route(parserUrl), projects: route(pipelineUrl) },
  };
}

function bypassed(target: URL, noProxy: string | null): boolean {
  if (noProxy === null) return false;
  return noProxy
    .split(/[,\s]+/)
    .filter((entry) => entry !== '')
    .some((entry) => {
      if (entry === '*') return true;
      const [host, port] = entry.replace(/^\*?\./, '.').split(':');
      if (port !== undefined && port !== target.port) return false;
      const name = target.hostname;
      return (
        host !== undefined &&
        (host.startsWith('.') ? name.endsWith(host) || name === host.slice(1) : name === host)
      );
    });
}

function hideCredentials(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.username !== '' || url.password !== '') {
      url.username = '***';
      url.password = '';
    }
    return url.toString();
  } catch {
    return '(unreadable proxy URL)';
  }
}
