import { FIELD_TYPES as SEED_FIELD_TYPES, SCRAPING_PARAMETERS } from '../model/vocabulary.js';
import type { Accounts, Account } from './accounts.js';
import type { EmulatorClock } from './clock.js';
import {
  compileFields,
  extractResult,
  fieldTree,
  flattenCompiled,
  located,
  outputType,
} from './extraction/fields.js';
import type { CompiledField, FieldSpec } from './extraction/fields.js';
import { Page } from './extraction/page.js';
import { DownloadError, needsRender } from './fetcher.js';
import type { PageFetcher, ScrapingParams } from './fetcher.js';
import { bodyObject, HttpError, json } from './http.js';
import type { EmulatorRequest, EmulatorResponse } from './http.js';

/** One version of a parser: its own fields, status and results (seed 1, Versioning). */
export interface StoredVersion {
  version: number;
  status: 'GENERATING' | 'FINISHED' | 'FAILED';
  error: string | null;
  createdAt: string;
  generatedAt: string | null;
  fields: FieldSpec[];
  compiled: CompiledField[] | null;
  exampleResult: { url: string; result: Record<string, unknown> }[] | null;
  /** The example pages as fetched at generation, so renames and removes re-key results without refetching. */
  pages: { url: string; html: string }[];
}

export interface StoredParser {
  id: string;
  name: string;
  account: string;
  createdAt: string;
  urls: string[];
  scraperParams: ScrapingParams;
  versions: StoredVersion[];
}

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
  onChange: () => void;
}

/** The seed's scraping parameters and their types, for validating `scraper_params` and the parse query. */
const SCRAPING_PARAMS: Readonly<Record<string, 'boolean' | 'string' | 'integer'>> = SCRAPING_PARAMETERS;

const FIELD_TYPES: ReadonlySet<string> = new Set(SEED_FIELD_TYPES);

/** Default fields inferred when a parser is created without any (the small set). */
const INFERRED_FIELDS: FieldSpec[] = [
  { name: 'title', description: 'Title of the page from its main heading' },
  { name: 'price', description: 'Price shown on the page', type: 'number' },
  { name: 'image', description: 'Address of the main image' },
  { name: 'description', description: 'Short description of the page' },
  { name: 'links', description: 'Addresses of the links on the page', type: 'array' },
];

/** The AI Parser service of seed 1: every endpoint, status code, state transition and versioning rule. */
export class ParserService {
  readonly parsers = new Map<string, StoredParser>();

  constructor(private readonly options: ParserServiceOptions) {}

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
    const items = [...this.parsers.values()]
      .filter((p) => p.account === account.key)
      .map((p) => {
        const latest = latestOf(p);
        return {
          id: p.id,
          name: p.name,
          status: latest.status,
          error: latest.error,
          generated_at: latest.generatedAt,
          version: latest.version,
        };
      });
    return json(200, items);
  }

  private create(req: EmulatorRequest): EmulatorResponse {
    const body = bodyObject(req);
    const missing = ['api_key', 'name', 'urls'].filter((k) => body[k] === undefined);
    if (missing.length > 0) throw new HttpError(400, `missing required field: ${missing.join(', ')}`);
    const account = this.bodyAccount(body);
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
    this.startGeneration(parser, fields.length > 0 ? fields : undefined);
    return json(201, { id: parser.id, version: 0 });
  }

  private details(req: EmulatorRequest, id: string, version: string | undefined): EmulatorResponse {
    const account = this.queryAccount(req);
    const parser = this.find(account, id);
    const stored = version === undefined ? latestOf(parser) : this.versionOf(parser, version);
    return json(200, describeVersion(parser, stored));
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
      this.startGeneration(parser, fields, number);
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
      page = await this.options.fetcher(url, { ...parser.scraperParams, ...params });
    } catch (error) {
      throw new HttpError(500, `Extraction failed: ${describeFailure(error)}`);
    }
    return json(200, {
      parser: parser.id,
      version: stored.version,
      result: extractResult(page, stored.compiled),
    });
  }

  /** Starts generating `version` (0 at creation) with the given fields, or inferred ones when there are none. */
  private startGeneration(parser: StoredParser, fields: FieldSpec[] | undefined, version = 0): void {
    const stored: StoredVersion = {
      version,
      status: 'GENERATING',
      error: null,
      createdAt: this.options.clock.iso(),
      generatedAt: null,
      fields: fields ?? [],
      compiled: null,
      exampleResult: null,
      pages: [],
    };
    parser.versions.push(stored);
    this.options.onChange();
    const inferred = fields === undefined;
    this.options.clock.after(this.options.generationDelayMs(), () => {
      void this.generate(parser, stored, inferred);
    });
  }

  /** Resumes generations that were under way when the emulator stopped (data-dir reload). */
  resumeGenerations(): void {
    for (const parser of this.parsers.values()) {
      for (const stored of parser.versions) {
        if (stored.status !== 'GENERATING') continue;
        this.options.clock.after(
          this.options.generationDelayMs(),
          () => void this.generate(parser, stored, stored.fields.length === 0),
        );
      }
    }
  }

  private async generate(parser: StoredParser, stored: StoredVersion, inferred: boolean): Promise<void> {
    if (this.parsers.get(parser.id) !== parser) return;
    const forced = this.options.takeGenerationFailure();
    try {
      if (forced !== undefined) throw new GenerationError(forced);
      const pages: Page[] = [];
      for (const url of parser.urls) pages.push(await this.options.fetcher(url, parser.scraperParams));
      const shell = pages.find((page) => needsRender(page));
      if (shell !== undefined) {
        throw new GenerationError(
          `RenderError: ${shell.url} builds its content with JavaScript; set render to true in scraper_params`,
        );
      }
      let specs = inferred ? INFERRED_FIELDS : stored.fields;
      let compiled = compileFields(specs, pages);
      if (inferred) {
        // Only the inferred fields found on the pages become the parser's fields.
        compiled = compiled.filter((f) => f.locator !== undefined);
        specs = INFERRED_FIELDS.filter((f) => compiled.some((c) => c.name === f.name));
      }
      if (!located(compiled)) {
        throw new GenerationError(
          'ExtractionError: none of the fields could be found on the example pages; check that they are of one page type and describe the fields more specifically',
        );
      }
      stored.fields = specs;
      stored.compiled = compiled;
      stored.pages = pages.map((p) => ({ url: p.url, html: p.html }));
      stored.exampleResult = pages.map((page) => ({ url: page.url, result: extractResult(page, compiled) }));
      stored.status = 'FINISHED';
    } catch (error) {
      stored.status = 'FAILED';
      stored.error = describeFailure(error);
      stored.exampleResult = null;
      stored.compiled = null;
    }
    stored.generatedAt = this.options.clock.iso();
    this.options.onChange();
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

class GenerationError extends Error {}

function describeFailure(error: unknown): string {
  if (error instanceof DownloadError) return `DownloadError: ${error.message}`;
  if (error instanceof GenerationError) return error.message;
  return `InternalError: ${error instanceof Error ? error.message : String(error)}`;
}

function latestOf(parser: StoredParser): StoredVersion {
  return parser.versions.reduce((a, b) => (b.version > a.version ? b : a));
}

function describeVersion(parser: StoredParser, stored: StoredVersion): Record<string, unknown> {
  return {
    name: parser.name,
    created_at: stored.createdAt,
    generated_at: stored.generatedAt,
    status: stored.status,
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

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function checkScrapingParams(value: unknown): ScrapingParams {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new HttpError(400, 'scraper_params must be an object');
  for (const [key, v] of Object.entries(value)) {
    const type = SCRAPING_PARAMS[key];
    if (type === undefined) throw new HttpError(400, `unknown scraping parameter: ${key}`);
    const ok =
      type === 'boolean'
        ? typeof v === 'boolean'
        : type === 'integer'
          ? Number.isInteger(v)
          : typeof v === 'string';
    if (!ok) throw new HttpError(400, `scraper_params.${key} must be a ${type}`);
  }
  return value as ScrapingParams;
}

function scrapingParamsFromQuery(query: URLSearchParams): ScrapingParams {
  const params: ScrapingParams = {};
  for (const [key, raw] of query) {
    const type = SCRAPING_PARAMS[key];
    if (type === undefined) continue;
    if (type === 'boolean') params[key] = raw === 'true' || raw === '1';
    else if (type === 'integer') params[key] = Number(raw);
    else params[key] = raw;
  }
  return params;
}

function checkFieldList(value: unknown, key: string): FieldSpec[] {
  if (!Array.isArray(value)) throw new HttpError(400, `${key} must be a list of field definitions`);
  return value.map((entry, i) => {
    if (entry === null || typeof entry !== 'object')
      throw new HttpError(400, `${key}[${i}] must be an object`);
    const { name, description, type, selector } = entry as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') throw new HttpError(400, `${key}[${i}].name is required`);
    if (typeof description !== 'string' || description.trim() === '') {
      throw new HttpError(400, `${key}[${i}].description is required`);
    }
    if (type !== undefined && (typeof type !== 'string' || !FIELD_TYPES.has(type))) {
      throw new HttpError(400, `${key}[${i}].type must be string, number or array`);
    }
    if (selector !== undefined && typeof selector !== 'string')
      throw new HttpError(400, `${key}[${i}].selector must be a string`);
    return {
      name,
      description,
      ...(type !== undefined ? { type: type as FieldSpec['type'] } : {}),
      ...(selector !== undefined ? { selector } : {}),
    } as FieldSpec;
  });
}

function checkTree(fields: readonly FieldSpec[]): void {
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.name)) throw new HttpError(400, `field ${field.name} is listed twice`);
    seen.add(field.name);
  }
  try {
    fieldTree(fields);
  } catch (error) {
    throw new HttpError(400, (error as Error).message);
  }
}

interface Operations {
  add: FieldSpec[];
  modify: FieldSpec[];
  rename: { name: string; new_name: string }[];
  remove: string[];
}

function readOperations(body: Record<string, unknown>): Operations {
  const rename = body.rename_fields ?? [];
  if (
    !Array.isArray(rename) ||
    rename.some((r) => typeof r?.name !== 'string' || typeof r?.new_name !== 'string' || r.new_name === '')
  ) {
    throw new HttpError(400, 'rename_fields must be a list of {name, new_name}');
  }
  const remove = body.remove_fields ?? [];
  if (!Array.isArray(remove) || remove.some((r) => typeof r !== 'string')) {
    throw new HttpError(400, 'remove_fields must be a list of field names');
  }
  return {
    add: body.add_fields === undefined ? [] : checkFieldList(body.add_fields, 'add_fields'),
    modify: body.modify_fields === undefined ? [] : checkFieldList(body.modify_fields, 'modify_fields'),
    rename: rename as Operations['rename'],
    remove: remove as string[],
  };
}

/**
 * The emulator's reading of one PATCH (the seed leaves the order open, README says so): removes first (a parent
 * takes its children), then renames one after another (a parent's children follow it; the new name must be free
 * at that moment, so a swap goes through a temporary name), then modifies (by current names), then adds.
 * A field removed, modified or added twice, an unknown name or a taken name is a 400.
 */
function applyOperations(
  base: readonly FieldSpec[],
  ops: Operations,
): { fields: FieldSpec[]; renamedFrom: Map<string, string> } {
  let fields = base.map((f) => ({ ...f }));
  const has = (name: string): boolean => fields.some((f) => f.name === name);
  const under = (name: string, field: FieldSpec): boolean =>
    field.name === name || field.name.startsWith(`${name}.`);
  const touched = new Set<string>();
  const touch = (name: string, op: string): void => {
    if (touched.has(name))
      throw new HttpError(
        400,
        `contradictory request: field ${name} is named by more than one operation (${op})`,
      );
    touched.add(name);
  };
  for (const name of ops.remove) {
    touch(name, 'remove_fields');
    if (!has(name)) throw new HttpError(400, `remove_fields: unknown field ${name}`);
    fields = fields.filter((f) => !under(name, f));
  }
  // current name -> name in the base version, to carry locators across renames.
  const origin = new Map<string, string>(fields.map((f) => [f.name, f.name]));
  for (const { name, new_name: newName } of ops.rename) {
    if (!has(name)) throw new HttpError(400, `rename_fields: unknown field ${name}`);
    if (has(newName)) throw new HttpError(400, `rename_fields: ${newName} already exists`);
    if (parentOf(name) !== parentOf(newName))
      throw new HttpError(400, `rename_fields: ${name} -> ${newName} moves the field to another parent`);
    fields = fields.map((f) => {
      if (!under(name, f)) return f;
      const renamed = newName + f.name.slice(name.length);
      origin.set(renamed, origin.get(f.name) ?? f.name);
      origin.delete(f.name);
      return { ...f, name: renamed };
    });
  }
  for (const spec of ops.modify) {
    touch(spec.name, 'modify_fields');
    const index = fields.findIndex((f) => f.name === spec.name);
    if (index < 0) throw new HttpError(400, `modify_fields: unknown field ${spec.name}`);
    fields[index] = spec;
  }
  for (const spec of ops.add) {
    touch(spec.name, 'add_fields');
    if (has(spec.name)) throw new HttpError(400, `add_fields: ${spec.name} already exists`);
    const parent = parentOf(spec.name);
    if (parent !== '' && !has(parent))
      throw new HttpError(400, `add_fields: ${spec.name} has no parent field ${parent}`);
    fields.push(spec);
  }
  const renamedFrom = new Map([...origin].filter(([now, before]) => now !== before));
  return { fields, renamedFrom };
}

function parentOf(name: string): string {
  const cut = name.lastIndexOf('.');
  return cut < 0 ? '' : name.slice(0, cut);
}

/** The compiled tree for renamed/removed fields, keeping each surviving field's locator. */
function recompile(
  base: readonly CompiledField[],
  fields: readonly FieldSpec[],
  renamedFrom: Map<string, string>,
): CompiledField[] {
  const byName = new Map(flattenCompiled(base).map((f) => [f.name, f]));
  const { roots, children } = fieldTree(fields);
  const build = (spec: FieldSpec): CompiledField => {
    const old = byName.get(renamedFrom.get(spec.name) ?? spec.name);
    const kids = children.get(spec.name);
    return {
      key: spec.name.slice(spec.name.lastIndexOf('.') + 1),
      name: spec.name,
      ...(old?.type !== undefined ? { type: old.type } : {}),
      ...(old?.locator !== undefined ? { locator: old.locator } : {}),
      ...(kids !== undefined ? { children: kids.map(build) } : {}),
    };
  };
  return roots.map(build);
}
