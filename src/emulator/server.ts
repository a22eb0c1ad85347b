import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { redact } from '../api/redact.js';
import { parseDuration } from '../duration.js';
import { Accounts } from './accounts.js';
import type { Account } from './accounts.js';
import { EmulatorClock } from './clock.js';
import { createFetcher } from './fetcher.js';
import type { PageFetcher } from './fetcher.js';
import { bodyObject, HttpError, json } from './http.js';
import type { EmulatorRequest, EmulatorResponse } from './http.js';
import { ParserService } from './parser-service.js';
import type { StoredParser } from './parser-service.js';
import { defaultItemCost, ProjectService } from './project-service.js';
import { seededRandom, uuidFrom } from './random.js';

export const DEFAULT_EMULATOR_KEY = 'emulator-key';
export const DEFAULT_EMULATOR_PORT = 8780;

export interface EmulatorOptions {
  host?: string;
  /** 0 picks a free port (tests); the CLI defaults to 8780. */
  port?: number;
  apiKeys?: string[];
  /** Credits of each account at start and after a reset. */
  credits?: number;
  /** Emulated time a generation takes. */
  generationDelayMs?: number;
  generationCost?: number;
  parseCost?: number;
  /** Where to persist state (atomically) and reload it from. */
  dataDir?: string;
  /** Makes ids and injected faults repeatable. */
  seed?: number;
  /** Replaces the page fetcher (demo site + real network), for tests. */
  fetcher?: PageFetcher;
  siteRoot?: string;
}

/** Fault injection, set with PUT /_emulator/faults; applies to the service endpoints, never to /_emulator/. */
export interface Faults {
  /** Added to every service response. */
  latencyMs: number;
  /** Share of service requests answered `errorStatus` (500 or 503) without doing anything. */
  errorRate: number;
  errorStatus: number;
  /** Share answered 429 with Retry-After. */
  rateLimitRate: number;
  retryAfterSeconds: number;
  /** Share whose connection is dropped without an answer. */
  dropRate: number;
  /** Share whose connection is dropped after the request was carried out (the answer is lost). */
  dropAfterRate: number;
  /** Held after the request was carried out, before answering (to kill a client while its call has landed). */
  responseDelayMs: number;
  /** Methods whose answers are held; all when empty. */
  responseDelayMethods: string[];
  /** Overrides the generation delay while set. */
  generationDelayMs: number | null;
  /** The next N generations fail with `generationError`. */
  failGenerations: number;
  generationError: string;
}

const NO_FAULTS: Faults = {
  latencyMs: 0,
  errorRate: 0,
  errorStatus: 503,
  rateLimitRate: 0,
  retryAfterSeconds: 1,
  dropRate: 0,
  dropAfterRate: 0,
  responseDelayMs: 0,
  responseDelayMethods: [],
  generationDelayMs: null,
  failGenerations: 0,
  generationError: 'GenerationError: the model could not build a parser for these pages (injected fault)',
};

export interface RequestLogEntry {
  at: string;
  method: string;
  /** Path and query with the key redacted. */
  path: string;
  status: number;
  durationMs: number;
  fault?: string;
}

/** A request handler of one service; undefined when the path is not its own. */
export interface ServiceHandler {
  handle(req: EmulatorRequest): Promise<EmulatorResponse | undefined>;
}

export interface RunningEmulator {
  /** The origin, such as http://127.0.0.1:8780: both services live under it. */
  url: string;
  apiKeys: string[];
  clock: EmulatorClock;
  parsers: ParserService;
  projects: ProjectService;
  accounts: Accounts;
  faults: Faults;
  requestLog: RequestLogEntry[];
  setFaults(faults: Partial<Faults>): void;
  reset(): void;
  /** Waits until no generation is pending (tests). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const LOG_LIMIT = 10_000;
const STATE_FILE = 'emulator-state.json';

/** Starts both services on one local origin (DESIGN section 6). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const apiKeys = options.apiKeys?.length ? options.apiKeys : [DEFAULT_EMULATOR_KEY];
  const credits = options.credits ?? 10_000_000;
  const random = options.seed !== undefined ? seededRandom(options.seed) : Math.random;
  const clock = new EmulatorClock();
  const initialAccounts = (): Account[] => apiKeys.map((key) => ({ key, credits }));
  let accounts = new Accounts(initialAccounts());
  let faults: Faults = { ...NO_FAULTS };
  const requestLog: RequestLogEntry[] = [];
  let saving: Promise<void> = Promise.resolve();
  let dirty = false;

  const save = (): void => {
    if (options.dataDir === undefined || dirty) return;
    dirty = true;
    saving = saving.then(async () => {
      dirty = false;
      await persist(options.dataDir as string, {
        accounts: accounts.list(),
        parsers: [...parsers.parsers.values()],
        clockOffsetMs: clock.offset,
      });
    });
  };

  const parsers = new ParserService({
    get accounts() {
      return accounts;
    },
    clock,
    fetcher:
      options.fetcher ??
      createFetcher({ ...(options.siteRoot !== undefined ? { siteRoot: options.siteRoot } : {}) }),
    newId: options.seed !== undefined ? () => uuidFrom(random) : () => randomUUID(),
    generationCost: options.generationCost ?? 30_000,
    parseCost: options.parseCost ?? 1,
    generationDelayMs: () => faults.generationDelayMs ?? options.generationDelayMs ?? 2000,
    takeGenerationFailure: () => {
      if (faults.failGenerations <= 0) return undefined;
      faults.failGenerations--;
      return faults.generationError;
    },
    onChange: save,
  });

  const fetcher =
    options.fetcher ?? createFetcher(options.siteRoot !== undefined ? { siteRoot: options.siteRoot } : {});
  let origin = '';
  const projects = new ProjectService({
    get accounts() {
      return accounts;
    },
    clock,
    fetcher,
    origin: () => origin,
    onChange: save,
    itemCost: defaultItemCost,
  });

  if (options.dataDir !== undefined) {
    const restored = await restore(options.dataDir);
    if (restored !== undefined) {
      accounts = new Accounts(restored.accounts);
      clock.offset = restored.clockOffsetMs;
      for (const parser of restored.parsers) parsers.parsers.set(parser.id, parser);
      parsers.resumeGenerations();
      if (restored.projects !== undefined) projects.restore(restored.projects);
    }
  }

  const services: ServiceHandler[] = [parsers, projects];

  const control = async (req: EmulatorRequest): Promise<EmulatorResponse> => {
    const [, what] = req.segments;
    if (what === 'reset' && req.method === 'POST') {
      emulator.reset();
      return json(200, { reset: true });
    }
    if (what === 'advance' && req.method === 'POST') {
      const body = req.body === undefined ? {} : bodyObject(req);
      const by = body.ms ?? body.by ?? req.query.get('ms') ?? req.query.get('by');
      const ms = typeof by === 'number' ? by : typeof by === 'string' ? parseDuration(by) : undefined;
      if (ms === undefined || ms < 0)
        throw new HttpError(400, 'give how far to advance: {"ms": 3600000} or {"by": "1h"}');
      clock.advance(ms);
      save();
      return json(200, { now: clock.iso() });
    }
    if (what === 'clock' && req.method === 'GET')
      return json(200, { now: clock.iso(), offsetMs: clock.offset });
    if (what === 'faults') {
      if (req.method === 'PUT' || req.method === 'POST') emulator.setFaults(checkFaults(bodyObject(req)));
      else if (req.method === 'DELETE') emulator.setFaults({ ...NO_FAULTS });
      return json(200, faults);
    }
    if (what === 'outbox' && req.method === 'GET') return json(200, projects.outbox);
    if (what === 'webhooks' && req.method === 'GET') return json(200, projects.deliveries);
    if (what === 'requests') {
      if (req.method === 'DELETE') requestLog.length = 0;
      return json(200, requestLog);
    }
    if (what === 'accounts') {
      if (req.method === 'PUT' || req.method === 'POST') {
        const body = bodyObject(req);
        if (typeof body.key !== 'string' || body.key === '' || typeof body.credits !== 'number') {
          throw new HttpError(400, 'give {"key": "...", "credits": 1000}');
        }
        accounts.set(body.key, body.credits);
        save();
      }
      return json(
        200,
        accounts.list().map((a) => ({ key: a.key, credits: a.credits })),
      );
    }
    throw new HttpError(404, `unknown control endpoint ${req.path}`);
  };

  const server = http.createServer((incoming, outgoing) => {
    void serve(incoming, outgoing);
  });

  const serve = async (incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> => {
    const started = Date.now();
    const url = new URL(incoming.url ?? '/', 'http://emulator');
    const shownPath = redact(
      `${url.pathname}${url.search}`,
      accounts.list().map((a) => a.key),
    );
    const isControl = url.pathname.startsWith('/_emulator/') || url.pathname === '/_emulator';
    let fault: string | undefined;
    let response: EmulatorResponse;
    try {
      const rawBody = await readBody(incoming);
      const req = toRequest(incoming, url, rawBody);
      if (!isControl) {
        if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
        const roll = random();
        if (roll < faults.dropRate) {
          fault = 'dropped';
          log(shownPath, incoming.method, 0, started, fault);
          incoming.socket.destroy();
          return;
        }
        if (roll < faults.dropRate + faults.rateLimitRate) {
          fault = '429';
          throw Object.assign(new HttpError(429, 'Too many requests (injected fault)'), {
            retryAfter: faults.retryAfterSeconds,
          });
        }
        if (roll < faults.dropRate + faults.rateLimitRate + faults.errorRate) {
          fault = String(faults.errorStatus);
          throw new HttpError(faults.errorStatus, 'Service unavailable (injected fault)');
        }
      }
      if (rawBody !== '' && req.body === undefined) throw new HttpError(400, 'malformed JSON body');
      if (isControl) response = await control(req);
      else {
        let handled: EmulatorResponse | undefined;
        for (const service of services) {
          handled = await service.handle(req);
          if (handled !== undefined) break;
        }
        response = handled ?? json(404, { error: `no such endpoint: ${req.method} ${url.pathname}` });
        if (!isControl && response.status < 300 && random() < faults.dropAfterRate) {
          fault = 'dropped-after';
          log(shownPath, incoming.method, 0, started, fault);
          incoming.socket.destroy();
          return;
        }
      }
    } catch (error) {
      if (error instanceof HttpError) {
        const retryAfter = (error as HttpError & { retryAfter?: number }).retryAfter;
        response = {
          status: error.status,
          body: { error: error.message },
          ...(retryAfter !== undefined ? { headers: { 'retry-after': String(retryAfter) } } : {}),
        };
      } else {
        response = { status: 500, body: { error: `emulator error: ${(error as Error).message}` } };
      }
    }
    if (
      !isControl &&
      faults.responseDelayMs > 0 &&
      (faults.responseDelayMethods.length === 0 ||
        faults.responseDelayMethods.includes(incoming.method ?? ''))
    ) {
      await new Promise((r) => setTimeout(r, faults.responseDelayMs));
    }
    log(shownPath, incoming.method, response.status, started, fault);
    send(outgoing, response);
  };

  const log = (
    shownPath: string,
    method: string | undefined,
    status: number,
    started: number,
    fault?: string,
  ): void => {
    if (shownPath.startsWith('/_emulator')) return;
    requestLog.push({
      at: clock.iso(),
      method: method ?? 'GET',
      path: shownPath,
      status,
      durationMs: Date.now() - started,
      ...(fault !== undefined ? { fault } : {}),
    });
    if (requestLog.length > LOG_LIMIT) requestLog.splice(0, requestLog.length - LOG_LIMIT);
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${host}:${address.port}`;

  const emulator: RunningEmulator = {
    url: origin,
    apiKeys,
    clock,
    parsers,
    projects,
    get accounts() {
      return accounts;
    },
    get faults() {
      return faults;
    },
    requestLog,
    setFaults(next) {
      faults = { ...faults, ...next };
    },
    reset() {
      clock.clear();
      clock.offset = 0;
      parsers.parsers.clear();
      projects.reset();
      accounts = new Accounts(initialAccounts());
      faults = { ...NO_FAULTS };
      requestLog.length = 0;
      save();
    },
    async idle() {
      for (;;) {
        const pending = [...parsers.parsers.values()].some((p) =>
          p.versions.some((v) => v.status === 'GENERATING'),
        );
        if (!pending) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async close() {
      clock.stop();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await saving;
    },
  };
  return emulator;
}

function toRequest(incoming: http.IncomingMessage, url: URL, rawBody: string): EmulatorRequest {
  let body: unknown;
  if (rawBody !== '') {
    try {
      body = JSON.parse(rawBody) as unknown;
    } catch {
      body = undefined;
    }
  }
  return {
    method: incoming.method ?? 'GET',
    path: url.pathname,
    segments: url.pathname
      .split('/')
      .filter((s) => s !== '')
      .map(decodeURIComponent),
    query: url.searchParams,
    headers: incoming.headers,
    rawBody,
    body,
  };
}

async function readBody(incoming: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of incoming) {
    size += (chunk as Buffer).length;
    if (size > 10 * 1024 * 1024) throw new HttpError(413, 'request body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(outgoing: http.ServerResponse, response: EmulatorResponse): void {
  const headers: Record<string, string> = { ...response.headers };
  let payload: string | undefined;
  if (response.text !== undefined) payload = response.text;
  else if (response.body !== undefined && response.status !== 204) {
    payload = JSON.stringify(response.body);
    headers['content-type'] = 'application/json';
  }
  outgoing.writeHead(response.status, headers);
  outgoing.end(payload);
}

function checkFaults(body: Record<string, unknown>): Partial<Faults> {
  const out: Partial<Faults> = {};
  const rates = ['errorRate', 'rateLimitRate', 'dropRate', 'dropAfterRate'] as const;
  for (const [key, value] of Object.entries(body)) {
    if (!(key in NO_FAULTS))
      throw new HttpError(400, `unknown fault setting ${key}; known: ${Object.keys(NO_FAULTS).join(', ')}`);
    if (key === 'generationError') {
      if (typeof value !== 'string') throw new HttpError(400, 'generationError must be a string');
      out.generationError = value;
      continue;
    }
    if (key === 'responseDelayMethods') {
      if (!Array.isArray(value) || value.some((m) => typeof m !== 'string'))
        throw new HttpError(400, 'responseDelayMethods must be a list of methods');
      out.responseDelayMethods = value as string[];
      continue;
    }
    if (key === 'generationDelayMs' && value === null) {
      out.generationDelayMs = null;
      continue;
    }
    if (typeof value !== 'number' || value < 0) throw new HttpError(400, `${key} must be a number >= 0`);
    if ((rates as readonly string[]).includes(key) && value > 1)
      throw new HttpError(400, `${key} is a share from 0 to 1`);
    if (key === 'errorStatus' && value !== 500 && value !== 503)
      throw new HttpError(400, 'errorStatus must be 500 or 503');
    (out as Record<string, unknown>)[key] = value;
  }
  return out;
}

interface PersistedState {
  accounts: Account[];
  parsers: StoredParser[];
  projects?: ReturnType<ProjectService['snapshot']>;
  clockOffsetMs: number;
}

/** Writes the state atomically: a temporary file, then a rename over the old one. */
async function persist(dataDir: string, state: PersistedState): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, STATE_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(state));
  await rename(temporary, file);
}

async function restore(dataDir: string): Promise<PersistedState | undefined> {
  try {
    return JSON.parse(await readFile(path.join(dataDir, STATE_FILE), 'utf8')) as PersistedState;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read the emulator state in ${dataDir}: ${(error as Error).message}`);
  }
}
