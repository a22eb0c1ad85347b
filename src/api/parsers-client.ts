import { ScrapeformError } from '../errors.js';
import { existingNamed } from './api-error.js';
import { unless404 } from './unless-status.js';
import type { IdsBefore } from './api-error.js';
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
import { recordError, refuseFailureSaid } from './failure-said.js';
import { findMiscasedChildren, flattenDetailsFields, miscasedProblem } from './details-fields.js';
import { normaliseParserStatus } from './parser-status.js';
import { readList } from './read-list.js';
import { idNamedIn } from './see-other.js';
import { PARSER_SERVICE } from './transport-contract.js';
import type { Transport } from './transport.js';
import type { TransportRequest } from './transport-contract.js';
import { pathSegment } from './path-segment.js';
import {
  CreatedParserSchema,
  ParserDetailsSchema,
  ParserListItemSchema,
  ParserVersionSchema,
  ParseResultSchema,
} from './wire-schemas.js';

export const DEFAULT_PARSER_URL = 'https://aiparser.scraperapi.com';

/** A parser DELETE's answer: its status, and the error of an answer that was the parser's own record (recordError). */
export interface ParserDeleteAnswer {
  status: number;
  /** The record's `error` as JSON (a quoted text, mostly), cut short past 40 characters, the key taken out. */
  recordError?: string;
}

/** What the caller already knows of a parser from the list, for details answers that leave it out. */
export interface KnownParser {
  /** The list's version: the details' version when neither the answer nor the call names one. */
  version?: number;
  /** The list's name, when the details answer has none. */
  name?: string;
  /**
   * This version may rightly have no fields: state records it with none (a manifest that declares none, applied as
   * a PATCH removing them all), or the live parser is written out as it is (`import`). A read of the status alone
   * takes `fieldsUnread` instead.
   */
  fieldless?: boolean;
  /**
   * Nothing is read of the fields: a look at a generation, which ends on FINISHED or FAILED, or a read of the
   * example_result a diff compares (diff-results, an apply's result diffs). A FINISHED answer without fields is
   * then no bad response (the published details example shows none, API-NOTES), and `fields` is left empty: never
   * plan from such a read.
   */
  fieldsUnread?: boolean;
}

/**
 * The AI Parser service (seed 1). No `/api` prefix. The key travels in the JSON body on POST and PATCH and in the
 * query string on GET and DELETE (seed 1, Authentication).
 */
export class ParsersClient {
  private readonly transport: Transport;

  constructor(
    transport: Transport,
    private readonly baseUrl: string = DEFAULT_PARSER_URL,
  ) {
    this.transport = transport.forService(PARSER_SERVICE);
  }

  private url(...segments: (string | number)[]): string {
    const base = this.baseUrl.replace(/\/+$/, '');
    return `${base}/${segments.map(pathSegment).join('/')}`;
  }

  /** Every parser, whatever the list's wrapping and paging (see readList); statuses normalised. */
  async list(signal?: AbortSignal): Promise<LiveParserSummary[]> {
    const items = await readList(
      this.transport,
      { method: 'GET', url: this.url('parsers'), keyIn: 'query', expect: [200], idempotent: true, signal },
      ParserListItemSchema,
      'parsers',
      { idOf: (p) => p.id },
    );
    // A generation's error text is the service's: shown, recorded in state and plans, so never with the key in it.
    return items.map((item) =>
      this.transport.withoutKey<LiveParserSummary>({
        ...item,
        status: normaliseParserStatus(item.status),
        error: this.transport.redactAnswer(item.error),
      }),
    );
  }

  /**
   * Details of one version, or of the latest when `version` is left out. The answer's version wins, then the one
   * asked for, then `known.version` (the list's: whoever plans passes it); with none of them the answer is a bad
   * response. A FINISHED version without `fields` (or with an empty list, unless `known.fieldless`) is a bad
   * response too, unless `known.fieldsUnread`: read as "no fields", it would plan every declared field as an add
   * (issue 13). A version still generating, or failed, may have none. Children listed under a key of another case
   * (`Fields`: findMiscasedChildren) are a bad response too, unless `known.fieldsUnread`: dropped, they would be
   * planned as new fields.
   */
  async get(
    id: string,
    version?: number,
    signal?: AbortSignal,
    known: KnownParser = {},
  ): Promise<LiveParserDetails> {
    const request: TransportRequest = {
      method: 'GET',
      url: version === undefined ? this.url('parsers', id) : this.url('parsers', id, version),
      keyIn: 'query',
      expect: [200],
      idempotent: true,
      signal,
    };
    const response = await this.transport.request(request);
    const data = this.transport.check(request, response, response.body, ParserDetailsSchema);
    const status = normaliseParserStatus(data.status);
    const resolvedVersion = data.version ?? version ?? known.version;
    if (resolvedVersion === undefined) {
      throw this.transport.badResponse(
        request,
        response,
        'the answer has no version and none was asked for or listed; nothing is planned from it',
      );
    }
    // An empty list too: the seed fills `fields` when a generation succeeds and empties it when one fails, so a
    // FINISHED version listing none is an answer that left them out, and read as "no fields" it would send every
    // declared field again as add_fields (a paid regeneration).
    if (
      status === 'FINISHED' &&
      known.fieldsUnread !== true &&
      (data.fields === undefined ||
        data.fields === null ||
        (data.fields.length === 0 && known.fieldless !== true))
    ) {
      throw this.transport.badResponse(
        request,
        response,
        `version ${resolvedVersion} is FINISHED but the answer has no fields; nothing is planned from it`,
      );
    }
    const miscased = known.fieldsUnread === true ? undefined : findMiscasedChildren(data.fields ?? []);
    if (miscased !== undefined) {
      throw this.transport.badResponse(
        request,
        response,
        `${miscasedProblem(miscased)}; nothing is planned from this answer`,
      );
    }
    return this.transport.withoutKey({
      id,
      name: data.name ?? known.name ?? '',
      version: resolvedVersion,
      status,
      error: this.transport.redactAnswer(data.error ?? null),
      createdAt: data.created_at ?? null,
      generatedAt: data.generated_at ?? null,
      // The key only (withoutKey, below): its URLs are what import writes, so no other api_key is touched.
      exampleResult: data.example_result ?? data.example_results ?? null,
      fields: flattenDetailsFields(data.fields ?? []),
    });
  }

  /**
   * Creates a parser; the answer is 201 with `{id, version: 0}` (API-NOTES; the seed leaves the code open and says
   * generation proceeds asynchronously, so 200 and 202 are accepted too: a create that landed is never reported
   * as failed for its code). Never retried here: after an ambiguous failure the caller lists by name. An answer
   * naming a parser of `existing` (there before the POST) is a bad response: see existingNamed.
   */
  async create(
    input: CreateParserInput,
    signal?: AbortSignal,
    existing: IdsBefore<string> = new Set(),
  ): Promise<ParserVersionRef> {
    const body = parserCreateBody(input);
    const request: TransportRequest = {
      method: 'POST',
      url: this.url('parsers'),
      body,
      keyIn: 'body',
      expect: [201, 200, 202],
      idempotent: false,
      signal,
    };
    const response = await this.transport.request(request);
    const data = this.transport.check(request, response, response.body, CreatedParserSchema);
    if (existing.has(data.id))
      throw this.transport.badResponse(request, response, existingNamed('parser', data.id));
    return { id: data.id, version: data.version };
  }

  /**
   * The parser a create's 303 See Other names (see-other.ts), read by id; undefined when its Location names no
   * parser of this service, or the read answers 404 (not visible yet).
   */
  async seeOther(location: string, signal?: AbortSignal): Promise<LiveParserDetails | undefined> {
    const id = idNamedIn(location, this.url('parsers'), true);
    return id === undefined ? undefined : unless404(() => this.get(id, undefined, signal));
  }

  /**
   * One PATCH based on `baseVersion` with only the operations given. 200 means applied at once (rename/remove
   * only); 202, or any PATCH that adds or modifies a field, means the new version is generating. A PATCH with no
   * operation is refused before sending: what the service does with one is unknown (API-NOTES).
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
    const request: TransportRequest = {
      method: 'PATCH',
      url: this.url('parsers', id, baseVersion),
      body,
      keyIn: 'body',
      expect: [200, 202],
      idempotent: false,
      signal,
    };
    const response = await this.transport.request(request);
    const data = this.transport.check(request, response, response.body, ParserVersionSchema);
    // A PATCH makes a new version past its base (seed 1). An answer that says otherwise cannot be recorded: taken as
    // it is, apply would wait on a version that finished long ago and record the change as applied to it.
    if (data.version <= baseVersion) {
      throw this.transport.badResponse(
        request,
        response,
        `the answer gives version ${data.version}, not past version ${baseVersion} the PATCH was based on; what it made is unknown, and the next plan reads the parser to find out (nothing is sent again meanwhile)`,
      );
    }
    // Any add or modify regenerates (seed 1: 202). A 200 to one is no proof the version is ready: read as ready,
    // apply would report a generation that may still fail as done, and record it as applied without waiting.
    const regenerates = body.add_fields !== undefined || body.modify_fields !== undefined;
    return {
      id: data.id ?? id,
      version: data.version,
      ready: response.status === 200 && !regenerates,
      status: response.status,
    };
  }

  /**
   * Deletes the parser and all its versions; returns the status: 204 (seed 1), 200 tolerated, or 202 Accepted (the
   * delete is taken, perhaps not done yet: the caller reads the parser by id to see whether it is gone). A success
   * whose body says the call failed is a bad response (failure-said.ts): taken as done, state would drop the parser.
   * One whose body is the parser's own record with its `error` set comes with that error (`recordError`, the key
   * taken out): the caller reads the parser by id as after a 202.
   */
  async delete(id: string, signal?: AbortSignal): Promise<ParserDeleteAnswer> {
    const request: TransportRequest = {
      method: 'DELETE',
      url: this.url('parsers', id),
      keyIn: 'query',
      expect: [204, 200, 202],
      idempotent: true,
      signal,
    };
    const response = await this.transport.request(request);
    refuseFailureSaid(this.transport, request, response, id);
    // The key taken out before the cut, so no part of it is left.
    const error = recordError(this.transport.redactAnswer(response.body), id);
    return { status: response.status, ...(error !== undefined ? { recordError: error } : {}) };
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
        // Each parse scrapes the page at the account's price: an answer lost to the timeout is not asked again.
        paid: true,
        signal,
      },
      ParseResultSchema,
    );
    // Printed by parse and test, written to JUnit files: never with the key in it.
    return {
      parser: data.parser ?? id,
      version: data.version ?? version,
      result: this.transport.redactAnswer(data.result ?? {}),
    };
  }
}
