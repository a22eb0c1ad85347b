import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { redact, redactError } from '../api/redact.js';
import { MAX_ANSWER_DEPTH, nestsDeeperThan } from '../api/send-request.js';
import { ScrapeformError } from '../errors.js';
import { Accounts } from './accounts.js';
import type { Account } from './accounts.js';
import { EmulatorClock } from './clock.js';
import { handleControl } from './control-endpoints.js';
import { HeldAnswers, holdsAnswer, NO_FAULTS, pickFault } from './faults.js';
import type { Faults } from './faults.js';
import { createFetcher } from './fetcher.js';
import type { PageFetcher } from './fetcher.js';
import { answerFailure, answerFor, encodeAnswer, HttpError, json, send, targetOf } from './http.js';
import type { EmulatorRequest, EmulatorResponse, EncodedAnswer } from './http.js';
import { ParserService } from './parser-service.js';
import { createStateSaver, readState } from './persistence.js';
import type { StateSaver } from './persistence.js';
import { defaultItemCost, ProjectService } from './project-service.js';
import { describeUnknownQuirks, Quirks } from './quirks.js';
import type { QuirkName, QuirkSettings } from './quirks.js';
import { seededRandom, uuidFrom } from './random.js';
import { RequestLog } from './request-log.js';
import type { RunningEmulator } from './running-emulator.js';

export type { Faults } from './faults.js';
export { QUIRK_NAMES } from './quirks.js';
export type { QuirkName, QuirkSettings, Quirks } from './quirks.js';
export type { RequestLogEntry } from './request-log.js';
export type { RunningEmulator } from './running-emulator.js';

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
  /**
   * Hears that writes to `dataDir` fail, and that they work again, and of answers that could not be written (the
   * client then has a 500, or its connection closed); default: a warning line on stderr.
   */
  warn?: (message: string) => void;
  /** Makes ids and injected faults repeatable. */
  seed?: number;
  /** Replaces the page fetcher (demo site + real network), for tests. */
  fetcher?: PageFetcher;
  siteRoot?: string;
  /** Alternative behaviours of the real services to switch on (docs/emulator.md, Quirks); combinable. */
  quirks?: readonly string[];
  /** Lag, page size and queue time of the quirks that have one. */
  quirkSettings?: Partial<QuirkSettings>;
}

/** A request handler of one service; undefined when the path is not its own. */
export interface ServiceHandler {
  handle(req: EmulatorRequest): Promise<EmulatorResponse | undefined>;
}

const LOG_LIMIT = 10_000;

/**
 * How deep a request body may nest: what is stored is answered back inside a list (and a page with paged-lists), and
 * an answer deeper than MAX_ANSWER_DEPTH is one the CLI refuses and JSON.stringify cannot write, so one such body
 * stored would make every later list unreadable.
 */
const MAX_BODY_DEPTH = MAX_ANSWER_DEPTH - 10;

/** Starts both services on one local origin (DESIGN section 6). */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const quirkProblem = describeUnknownQuirks(options.quirks ?? []);
  if (quirkProblem !== undefined) throw new ScrapeformError('emulator.unknown-quirk', quirkProblem);
  const quirks = new Quirks((options.quirks ?? []) as QuirkName[], options.quirkSettings);
  const apiKeys = options.apiKeys?.length ? options.apiKeys : [DEFAULT_EMULATOR_KEY];
  const credits = options.credits ?? 10_000_000;
  const random = options.seed !== undefined ? seededRandom(options.seed) : Math.random;
  const clock = new EmulatorClock();
  const initialAccounts = (): Account[] => apiKeys.map((key) => ({ key, credits }));
  let accounts = new Accounts(initialAccounts());
  let faults: Faults = { ...NO_FAULTS };
  const requestLog = new RequestLog(LOG_LIMIT);
  const warn =
    options.warn ?? ((message: string): void => void process.stderr.write(`warning: ${message}\n`));
  const saver: StateSaver | undefined =
    options.dataDir === undefined
      ? undefined
      : createStateSaver(
          options.dataDir,
          () => ({
            accounts: accounts.list(),
            parsers: [...parsers.parsers.values()],
            projects: projects.snapshot(),
            clockOffsetMs: clock.offset,
          }),
          warn,
        );
  const save = (): void => saver?.save();

  const fetcher = options.fetcher ?? createFetcher({ siteRoot: options.siteRoot, stopped: clock.stopped });
  const parsers: ParserService = new ParserService({
    get accounts() {
      return accounts;
    },
    clock,
    fetcher,
    newId: (): string => {
      // A seeded generator restarts its sequence when the emulator restarts on a data dir: skip ids in use.
      let id: string;
      do id = options.seed !== undefined ? uuidFrom(random) : randomUUID();
      while (parsers.parsers.has(id));
      return id;
    },
    generationCost: options.generationCost ?? 30_000,
    parseCost: options.parseCost ?? 1,
    generationDelayMs: () => faults.generationDelayMs ?? options.generationDelayMs ?? 2000,
    takeGenerationFailure: () => {
      if (faults.failGenerations <= 0) return undefined;
      faults.failGenerations--;
      return faults.generationError;
    },
    quirks,
    onChange: save,
  });

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
    quirks,
  });

  const restored = options.dataDir !== undefined ? await readState(options.dataDir) : undefined;

  const services: ServiceHandler[] = [parsers, projects];

  const server = http.createServer((incoming, outgoing) => {
    serve(incoming, outgoing).catch((error: unknown) => {
      // A rejection nobody handles would end the process, and the client would wait for an answer forever.
      answerFailure(outgoing, warnUnanswered(incoming.method ?? 'GET', incoming.url ?? '/', error));
    });
  });

  /** Warns of a fault of the emulator's own (not an HttpError); returns the error, keys redacted, to answer. */
  const warnUnanswered = (method: string, shownPath: string, error: unknown): unknown => {
    const keys = accounts.list().map((a) => a.key);
    const redacted = redactError(error, keys);
    const message = redacted instanceof Error ? redacted.message : String(redacted);
    // Each part alone: redacting the joined text would take the colon after a key in the query as part of it.
    warn(`cannot answer ${method} ${redact(shownPath, keys)}: ${message}`);
    return redacted;
  };

  const heldAnswers = new HeldAnswers();
  const serve = async (incoming: http.IncomingMessage, outgoing: http.ServerResponse): Promise<void> => {
    const started = Date.now();
    const method = incoming.method ?? 'GET';
    const url = targetOf(incoming);
    const shownPath = redact(
      url !== undefined ? `${url.pathname}${url.search}` : (incoming.url ?? '/'),
      accounts.list().map((a) => a.key),
    );
    const isControl =
      url !== undefined && (url.pathname.startsWith('/_emulator/') || url.pathname === '/_emulator');
    let fault: string | undefined;
    let response: EmulatorResponse;
    const drop = (kind: string): void => {
      log(shownPath, method, 0, started, kind);
      incoming.socket.destroy();
    };
    try {
      const rawBody = await readBody(incoming);
      if (url === undefined) throw new HttpError(400, 'malformed request target');
      const req = toRequest(incoming, url, rawBody);
      if (!isControl) {
        if (faults.latencyMs > 0 && !(await heldAnswers.hold(faults.latencyMs, false))) return;
        const injected = pickFault(faults, random());
        if (injected === 'dropped') return drop('dropped');
        if (injected !== undefined) {
          fault = String(injected.status);
          throw injected;
        }
      }
      if (rawBody !== '' && req.body === undefined) throw new HttpError(400, 'malformed JSON body');
      if (rawBody.length > 2 * MAX_BODY_DEPTH && nestsDeeperThan(req.body, MAX_BODY_DEPTH)) {
        throw new HttpError(
          400,
          `the request body nests arrays or objects more than ${MAX_BODY_DEPTH} levels deep`,
        );
      }
      if (isControl) response = handleControl(req, { emulator, save });
      else {
        let handled: EmulatorResponse | undefined;
        for (const service of services) {
          handled = await service.handle(req);
          if (handled !== undefined) break;
        }
        response = handled ?? json(404, { error: `no such endpoint: ${req.method} ${url.pathname}` });
        if (response.status < 300 && random() < faults.dropAfterRate) return drop('dropped-after');
      }
    } catch (error) {
      // Not a 500 without a trace: a handler that throws anything else is a bug, which would look like an outage. A
      // body cut short (the client hung up: `aborted`) is no fault of the emulator's, and nobody reads the answer.
      const quiet = error instanceof HttpError || !incoming.complete;
      response = answerFor(quiet ? error : warnUnanswered(method, shownPath, error));
    }
    if (!isControl && holdsAnswer(faults, method) && !(await heldAnswers.hold(faults.responseDelayMs)))
      return;
    let answer: EncodedAnswer;
    try {
      answer = encodeAnswer(response);
    } catch (error) {
      answer = encodeAnswer(answerFor(warnUnanswered(method, shownPath, error)));
    }
    // Logged with the status the client got: a header Node refuses makes send throw, and the 500 written instead
    // (answerFailure, below) is what the log says, not the handler's status.
    try {
      send(outgoing, answer);
    } catch (error) {
      log(shownPath, method, 500, started, fault);
      throw error;
    }
    log(shownPath, method, answer.status, started, fault);
  };

  const log = (shownPath: string, method: string, status: number, started: number, fault?: string): void => {
    if (shownPath.startsWith('/_emulator')) return;
    requestLog.add({
      at: clock.iso(),
      method,
      path: shownPath,
      status,
      durationMs: Date.now() - started,
      ...(fault !== undefined ? { fault } : {}),
    });
  };

  await listen(server, options.host ?? '127.0.0.1', options.port ?? 0);
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  origin = `http://${host}:${address.port}`;
  // Restored once the origin is known (jobs resumed now link their results under it), in the same tick as the
  // listen completed, so no request is served before.
  if (restored !== undefined) {
    accounts = new Accounts(restored.accounts);
    clock.offset = restored.clockOffsetMs;
    for (const parser of restored.parsers) parsers.parsers.set(parser.id, parser);
    parsers.resumeGenerations();
    if (restored.projects !== undefined) projects.restore(restored.projects);
  }

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
    requestLog: requestLog.view,
    quirks,
    setFaults(next) {
      faults = { ...faults, ...next };
      if (!(faults.responseDelayMs > 0)) heldAnswers.releaseAll();
    },
    reset() {
      clock.clear();
      clock.offset = 0;
      parsers.parsers.clear();
      projects.reset();
      accounts = new Accounts(initialAccounts());
      faults = { ...NO_FAULTS };
      heldAnswers.releaseAll();
      requestLog.clear();
      quirks.reset();
      save();
    },
    async idle() {
      // Answers let go by a cleared delay are sent (and logged) in the turn they were let go.
      await new Promise((r) => setImmediate(r));
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
      heldAnswers.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await saver?.flush();
    },
  };
  return emulator;
}

/** Listens, turning failures a user causes and can fix (a port taken, a port or address refused) into user errors. */
async function listen(server: http.Server, host: string, port: number): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
  } catch (error) {
    const where = `${host.includes(':') ? `[${host}]` : host}:${port}`;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new ScrapeformError(
        'emulator.port-in-use',
        `cannot start the emulator: ${where} is already in use`,
        {
          hint: `stop what listens there, or choose another port: --port ${port < 65_535 ? port + 1 : port - 1}, or --port 0 for a free one`,
          details: { host, port },
          cause: error,
        },
      );
    }
    if (code === 'EACCES' || code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new ScrapeformError(
        'emulator.cannot-listen',
        `cannot start the emulator: listening on ${where} was refused (${code})`,
        {
          hint: 'ports below 1024 need privileges; --host must be an address of this machine',
          details: { host, port },
          cause: error,
        },
      );
    }
    throw error;
  }
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
      .map(decodeSegment),
    query: url.searchParams,
    headers: incoming.headers,
    rawBody,
    body,
  };
}

/** A path segment as routes read it; a bad percent escape (`/%zz`) is the client's error, not the emulator's. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, `malformed path segment: ${segment}`);
  }
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
