import type { Accounts, Account } from './accounts.js';
import type { EmulatorClock } from './clock.js';
import { extractResult, flattenCompiled, outputType } from './extraction/fields.js';
import { Page } from './extraction/page.js';
import { applyOperations, readOperations, recompile } from './field-operations.js';
import type { PageFetcher } from './fetcher.js';
import { bodyObject, HttpError, json } from './http.js';
import type { EmulatorRequest, EmulatorResponse } from './http.js';
import { answerList, detailsVersion, foundYet, listedVersion, listedYet } from './list-answers.js';
import { describeFailure, ParserGeneration } from './parser-generation.js';
import { latestOf, reportedStatus } from './parser-records.js';
import type { StoredParser, StoredVersion } from './parser-records.js';
import {
  checkFieldList,
  checkScrapingParams,
  checkTree,
  isHttpUrl,
  scrapingParamsFromQuery,
} from './parser-validation.js';
import type { Quirks } from './quirks.js';

export type { StoredParser, StoredVersion } from './parser-records.js';

export interface ParserServiceOptions {
  accounts: Accounts;
  clock: EmulatorClock;
  fetcher: PageFetcher;
  newId: () => string;
  /** Credits for a creation and for each add/modify regeneration (public docs: 30,000). */
  generationCost: number;
  parseCost: number;
  /** How long generation takes, in emulated ms. */
  generationDelayMs: () => number;
  /** A forced generation failure (fault injection), consumed once; undefined to generate normally. */
  takeGenerationFailure: () => string | undefined;
  quirks: Quirks;
  onChange: () => void;
}

/** The AI Parser service of seed 1: every endpoint, status code, state transition and versioning rule. */
export class ParserService {
  readonly parsers = new Map<string, StoredParser>();
  private readonly generation: ParserGeneration;

  constructor(private readonly options: ParserServiceOptions) {
    this.generation = new ParserGeneration({
      ...options,
      isLive: (parser) => this.parsers.get(parser.id) === parser,
      queuedMs: () => (options.quirks.has('queued-status') ? options.quirks.settings.queuedMs : undefined),
    });
  }

  async handle(req: EmulatorRequest): Promise<EmulatorResponse | undefined> {
    const [first, id, version, extra] = req.segments;
    if (first === 'parsers') {
      if (extra !== undefined) return undefined;
      if (id === undefined) {
        if (req.method === 'GET') return this.list(req);
        if (req.method === 'POST') return this.create(req);
        return methodNotAllowed();
      }
      if (req.method === 'GET') return this.details(req, id, version);
      if (req.method === 'PATCH') return this.update(req, id, version);
      if (req.method === 'DELETE' && version === undefined) return this.remove(req, id);
      return methodNotAllowed();
    }
    if (first === 'parse' && id !== undefined && extra === undefined) {
      if (req.method !== 'GET') return methodNotAllowed();
      return this.parse(req, id, version);
    }
    return undefined;
  }

  /** Resumes generations that were under way when the emulator stopped (data-dir reload). */
  resumeGenerations(): void {
    this.generation.resume(this.parsers.values());
  }

  // GET and DELETE carry the key in the query; POST and PATCH in the JSON body (seed 1, Authentication).
  private queryAccount(req: EmulatorRequest): Account {
    return this.options.accounts.authenticate(req.query.get('api_key'));
  }

  private bodyAccount(body: Record<string, unknown>): Account {
    if (body.api_key === undefined) throw new HttpError(400, 'api_key is required in the JSON body');
    return this.options.accounts.authenticate(body.api_key);
  }

  private list(req: EmulatorRequest): EmulatorResponse {
    const account = this.queryAccount(req);
    const now = this.options.clock.now();
    const { quirks } = this.options;
    const items = [...this.parsers.values()]
      .filter((p) => p.account === account.key && listedYet(p.createdAt, now, quirks))
      .map((p) => {
        const latest = listedVersion(p.versions, now, quirks) ?? latestOf(p);
        return {
          id: p.id,
          name: p.name,
          status: reportedStatus(latest, now),
          error: latest.error,
          generated_at: latest.generatedAt,
          version: latest.version,
        };
      });
    return answerList(req, items, quirks);
  }

  private create(req: EmulatorRequest): EmulatorResponse {
    const body = bodyObject(req);
    const missing = ['api_key', 'name', 'urls'].filter((k) => body[k] === undefined);
    if (missing.length > 0) throw new HttpError(400, `missing required field: ${missing.join(', ')}`);
    const account = this.bodyAccount(body);
    this.options.quirks.refuseFirstCreate('parsers', account.key);
    if (typeof body.name !== 'string' || body.name.trim() === '')
      throw new HttpError(400, 'name must be a non-empty string');
    const urls = body.urls;
    if (!Array.isArray(urls) || urls.some((u) => typeof u !== 'string' || !isHttpUrl(u))) {
      throw new HttpError(400, 'urls must be a list of absolute http(s) URLs');
    }
    if (urls.length < 1 || urls.length > 3)
      throw new HttpError(400, `urls must hold 1 to 3 URLs, got ${urls.length}`);
    const scraperParams = checkScrapingParams(body.scraper_params);
    const fields = body.fields === undefined ? [] : checkFieldList(body.fields, 'fields');
    checkTree(fields);
    this.options.accounts.charge(account, this.options.generationCost);
    const now = this.options.clock.iso();
    const parser: StoredParser = {
      id: this.options.newId(),
      name: body.name,
      account: account.key,
      createdAt: now,
      urls: urls as string[],
      scraperParams,
      versions: [],
    };
    this.parsers.set(parser.id, parser);
    this.generation.start(parser, fields.length > 0 ? fields : undefined);
    return json(201, { id: parser.id, version: 0 });
  }

  private details(req: EmulatorRequest, id: string, version: string | undefined): EmulatorResponse {
    const account = this.queryAccount(req);
    const parser = this.find(account, id);
    const now = this.options.clock.now();
    const stored =
      version === undefined
        ? (detailsVersion(parser.versions, now, this.options.quirks) ?? latestOf(parser))
        : this.versionOf(parser, version);
    // lagging-list with notFoundMs: a parser, or a version asked for by number, made a moment ago is not found yet.
    if (!foundYet(parser.createdAt, now, this.options.quirks))
      throw new HttpError(404, `parser ${id} not found`);
    if (version !== undefined && !foundYet(stored.createdAt, now, this.options.quirks))
      throw new HttpError(404, `version ${version} of parser ${parser.id} not found`);
    const answer = describeVersion(parser, stored, now);
    // details-without-version: the published details example shows no `version` (API-NOTES).
    if (this.options.quirks.has('details-without-version')) delete answer.version;
    return json(200, answer);
  }

  private update(req: EmulatorRequest, id: string, version: string | undefined): EmulatorResponse {
    const body = bodyObject(req);
    const account = this.bodyAccount(body);
    const parser = this.find(account, id);
    const base = version === undefined ? latestOf(parser) : this.versionOf(parser, version);
    const ops = readOperations(body);
    if (ops.add.length + ops.modify.length + ops.rename.length + ops.remove.length === 0) {
      throw new HttpError(
        400,
        'no operation: send at least one of add_fields, modify_fields, rename_fields, remove_fields',
      );
    }
    if (base.status !== 'FINISHED') {
      throw new HttpError(
        400,
        base.status === 'GENERATING'
          ? `version ${base.version} is still generating; wait until it is FINISHED`
          : `version ${base.version} FAILED; base the change on a FINISHED version`,
      );
    }
    const { fields, renamedFrom } = applyOperations(base.fields, ops);
    const regenerates = ops.add.length + ops.modify.length > 0;
    if (regenerates) this.options.accounts.charge(account, this.options.generationCost);
    const number = Math.max(...parser.versions.map((v) => v.version)) + 1;
    if (regenerates) {
      this.generation.start(parser, fields, number);
      return json(202, { id: parser.id, version: number });
    }
    // Rename/remove only: a new version applied at once (seed 1, states table), results re-keyed from the pages
    // kept at generation rather than fetched again.
    const compiled = recompile(base.compiled ?? [], fields, renamedFrom);
    const pages = base.pages.map((p) => new Page(p.url, p.html));
    const now = this.options.clock.iso();
    parser.versions.push({
      version: number,
      status: 'FINISHED',
      error: null,
      createdAt: now,
      generatedAt: now,
      fields,
      compiled,
      exampleResult: pages.map((page) => ({ url: page.url, result: extractResult(page, compiled) })),
      pages: base.pages,
    });
    this.options.onChange();
    return json(200, { id: parser.id, version: number });
  }

  private remove(req: EmulatorRequest, id: string): EmulatorResponse {
    const account = this.queryAccount(req);
    const parser = this.find(account, id);
    this.parsers.delete(parser.id);
    this.options.onChange();
    return { status: 204 };
  }

  private async parse(
    req: EmulatorRequest,
    id: string,
    version: string | undefined,
  ): Promise<EmulatorResponse> {
    const account = this.queryAccount(req);
    const parser = this.find(account, id);
    const stored = version === undefined ? latestOf(parser) : this.versionOf(parser, version);
    const url = req.query.get('url');
    if (url === null || !isHttpUrl(url))
      throw new HttpError(400, 'url is required: an absolute http(s) URL to parse');
    const params = scrapingParamsFromQuery(req.query);
    // Seed 1: an empty result means the parser may still be generating. The emulator answers 200 with {} then
    // (the status the real service uses is unknown, API-NOTES).
    if (stored.status === 'GENERATING')
      return json(200, { parser: parser.id, version: stored.version, result: {} });
    if (stored.status === 'FAILED' || stored.compiled === null) {
      throw new HttpError(
        500,
        `Extraction failed: version ${stored.version} of this parser FAILED (${stored.error ?? 'no error'})`,
      );
    }
    this.options.accounts.charge(account, this.options.parseCost);
    let page: Page;
    try {
      // Only the parse's own query: seed 1 says creation scraper_params are used "when fetching the example pages",
      // and not whether the service reuses them at parse time. The stricter reading makes a client that forgets
      // to send them (render for a JavaScript page) see it here rather than only against the real service.
      page = await this.options.fetcher(url, params);
    } catch (error) {
      throw new HttpError(500, `Extraction failed: ${describeFailure(error)}`);
    }
    return json(200, {
      parser: parser.id,
      version: stored.version,
      result: extractResult(page, stored.compiled),
    });
  }

  private find(account: Account, id: string): StoredParser {
    const parser = this.parsers.get(id);
    if (parser === undefined || parser.account !== account.key)
      throw new HttpError(404, `parser ${id} not found`);
    return parser;
  }

  private versionOf(parser: StoredParser, version: string): StoredVersion {
    const stored = /^\d+$/.test(version)
      ? parser.versions.find((v) => v.version === Number(version))
      : undefined;
    if (stored === undefined) throw new HttpError(404, `version ${version} of parser ${parser.id} not found`);
    return stored;
  }
}

function describeVersion(parser: StoredParser, stored: StoredVersion, now: number): Record<string, unknown> {
  return {
    name: parser.name,
    created_at: stored.createdAt,
    generated_at: stored.generatedAt,
    status: reportedStatus(stored, now),
    error: stored.error,
    example_result: stored.exampleResult,
    fields:
      stored.status === 'FINISHED' && stored.compiled !== null
        ? flattenCompiled(stored.compiled).map((f) => ({ name: f.name, type: outputType(f) }))
        : [],
    version: stored.version,
  };
}

function methodNotAllowed(): EmulatorResponse {
  return json(405, { error: 'method not allowed' });
}
