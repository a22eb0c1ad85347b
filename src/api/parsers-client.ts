import { ScrapeformError } from '../errors.js';
import type { ScraperParams } from '../model/vocabulary.js';
import { fieldOperationsBody, parserCreateBody } from '../model/wire.js';
import type { CreateParserInput, FieldOperations } from '../model/wire.js';
import type {
  LiveParserDetails,
  LiveParserSummary,
  ParseResult,
  ParserUpdateResult,
  ParserVersionRef,
} from './live.js';
import type { Transport } from './transport.js';
import {
  CreatedParserSchema,
  ParserDetailsSchema,
  ParserListSchema,
  ParserVersionSchema,
  ParseResultSchema,
} from './wire-schemas.js';

export const DEFAULT_PARSER_URL = 'https://aiparser.scraperapi.com';

/**
 * The AI Parser service (seed 1). No `/api` prefix. The key travels in the JSON body on POST and PATCH and in the
 * query string on GET and DELETE (seed 1, Authentication).
 */
export class ParsersClient {
  constructor(
    private readonly transport: Transport,
    private readonly baseUrl: string = DEFAULT_PARSER_URL,
  ) {}

  private url(...segments: (string | number)[]): string {
    const base = this.baseUrl.replace(/\/+$/, '');
    return `${base}/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
  }

  async list(signal?: AbortSignal): Promise<LiveParserSummary[]> {
    const { data } = await this.transport.requestJson(
      { method: 'GET', url: this.url('parsers'), keyIn: 'query', expect: [200], idempotent: true, signal },
      ParserListSchema,
    );
    return data;
  }

  /** Details of one version, or of the latest when `version` is left out. */
  async get(id: string, version?: number, signal?: AbortSignal): Promise<LiveParserDetails> {
    const path = version === undefined ? this.url('parsers', id) : this.url('parsers', id, version);
    const { data } = await this.transport.requestJson(
      { method: 'GET', url: path, keyIn: 'query', expect: [200], idempotent: true, signal },
      ParserDetailsSchema,
    );
    return {
      id,
      name: data.name,
      version: data.version,
      status: data.status,
      error: data.error ?? null,
      createdAt: data.created_at ?? null,
      generatedAt: data.generated_at ?? null,
      exampleResult: data.example_result ?? data.example_results ?? null,
      fields: (data.fields ?? []).map((f) => ({
        name: f.name,
        ...(f.type !== undefined ? { type: f.type } : {}),
      })),
    };
  }

  /**
   * Creates a parser; the answer is 201 with `{id, version: 0}` (API-NOTES; the seed leaves the code open, so 200
   * is accepted too). Never retried here: after an ambiguous failure the caller lists by name.
   */
  async create(input: CreateParserInput, signal?: AbortSignal): Promise<ParserVersionRef> {
    const body = parserCreateBody(input);
    const { data } = await this.transport.requestJson(
      {
        method: 'POST',
        url: this.url('parsers'),
        body,
        keyIn: 'body',
        expect: [201, 200],
        idempotent: false,
        signal,
      },
      CreatedParserSchema,
    );
    return { id: data.id, version: data.version };
  }

  /**
   * One PATCH based on `baseVersion` with only the operations given. 200 means applied at once (rename/remove
   * only); 202 means the new version is generating. A PATCH with no operation is refused before sending: what the
   * service does with one is unknown (API-NOTES).
   */
  async update(
    id: string,
    baseVersion: number,
    operations: FieldOperations,
    signal?: AbortSignal,
  ): Promise<ParserUpdateResult> {
    const body = fieldOperationsBody(operations);
    if (Object.keys(body).length === 0) {
      throw new ScrapeformError(
        'api.empty-patch',
        `refusing to send a PATCH with no operation to parser ${id}`,
        {
          hint: 'this is a bug in the caller: a parser with no field change needs no request',
        },
      );
    }
    const { status, data } = await this.transport.requestJson(
      {
        method: 'PATCH',
        url: this.url('parsers', id, baseVersion),
        body,
        keyIn: 'body',
        expect: [200, 202],
        idempotent: false,
        signal,
      },
      ParserVersionSchema,
    );
    return { id: data.id ?? id, version: data.version, ready: status === 200 };
  }

  /** Deletes the parser and all its versions; 204 (200 tolerated). */
  async delete(id: string, signal?: AbortSignal): Promise<void> {
    await this.transport.request({
      method: 'DELETE',
      url: this.url('parsers', id),
      keyIn: 'query',
      expect: [204, 200],
      idempotent: true,
      signal,
    });
  }

  /** Runs a parser on a page; scraping parameters are flattened into the query (seed 1, endpoint 4). */
  async parse(
    id: string,
    version: number | undefined,
    url: string,
    scraperParams: ScraperParams = {},
    signal?: AbortSignal,
  ): Promise<ParseResult> {
    const path = version === undefined ? this.url('parse', id) : this.url('parse', id, version);
    const { data } = await this.transport.requestJson(
      {
        method: 'GET',
        url: path,
        query: { url, ...scraperParams },
        keyIn: 'query',
        expect: [200],
        idempotent: true,
        signal,
      },
      ParseResultSchema,
    );
    return { parser: data.parser ?? id, version: data.version ?? version, result: data.result ?? {} };
  }
}
