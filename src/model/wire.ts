/**
 * How scrapeform's objects look on the wire (seeds 1 and 2): a field, the create and PATCH bodies, and the
 * paths. The planner (which shows the exact calls) and the client (which sends them) both use these, so
 * what a plan shows is what is sent.
 */
import type { DesiredField, FieldType } from './desired.js';
import type { ScraperParams } from './vocabulary.js';

/**
 * The four PATCH operations of seed 1, endpoint 5, for one request; only the ones needed are sent. Bodies are
 * type aliases, not interfaces, so that they are JSON objects (`Record<string, unknown>`) to the transport.
 */
export type FieldOperations = {
  remove_fields?: string[];
  rename_fields?: { name: string; new_name: string }[];
  modify_fields?: DesiredField[];
  add_fields?: DesiredField[];
};

/** A field definition as the service takes it: name and description, type and selector only when set. */
export interface WireField {
  name: string;
  description: string;
  type?: FieldType;
  selector?: string;
}

export interface CreateParserInput {
  name: string;
  urls: string[];
  scraper_params?: ScraperParams;
  fields?: DesiredField[];
}

export type ParserCreateBody = {
  name: string;
  urls: string[];
  scraper_params?: ScraperParams;
  fields?: WireField[];
};

export function wireField(field: DesiredField): WireField {
  const out: WireField = { name: field.name, description: field.description };
  if (field.type !== undefined) out.type = field.type;
  if (field.selector !== undefined) out.selector = field.selector;
  return out;
}

/** What creates a parser with a definition (as state records it) under a name. */
export function createParserInput(
  name: string,
  definition: { urls: string[]; scraperParams: ScraperParams; fields: DesiredField[] },
): CreateParserInput {
  return { name, urls: definition.urls, scraper_params: definition.scraperParams, fields: definition.fields };
}

/** POST /parsers: empty scraper_params and fields are left out. */
export function parserCreateBody(input: CreateParserInput): ParserCreateBody {
  const body: ParserCreateBody = { name: input.name, urls: input.urls };
  if (input.scraper_params !== undefined && Object.keys(input.scraper_params).length > 0)
    body.scraper_params = input.scraper_params;
  if (input.fields !== undefined && input.fields.length > 0) body.fields = input.fields.map(wireField);
  return body;
}

/**
 * PATCH /parsers/{id}/{version}: only the operations that have entries, in the order the service applies them
 * (removes, renames, modifies, adds). An empty result means there is nothing to send.
 */
export function fieldOperationsBody(ops: FieldOperations): FieldOperations {
  const body: FieldOperations = {};
  if (ops.remove_fields?.length) body.remove_fields = ops.remove_fields;
  if (ops.rename_fields?.length)
    body.rename_fields = ops.rename_fields.map((r) => ({ name: r.name, new_name: r.new_name }));
  if (ops.modify_fields?.length) body.modify_fields = ops.modify_fields.map(wireField);
  if (ops.add_fields?.length) body.add_fields = ops.add_fields.map(wireField);
  return body;
}

/** POST /api/projects: the definition, and the first run's time when one is asked (never recorded). */
export function projectCreateBody(
  definition: Record<string, unknown>,
  scheduledAt?: string,
): Record<string, unknown> {
  return { ...definition, ...(scheduledAt !== undefined ? { scheduledAt } : {}) };
}

/** Paths under each service's base URL, as plans show them and apply logs them. */
export const PARSERS_PATH = '/parsers';
export const PROJECTS_PATH = '/api/projects';

export function parserPath(id: string, version?: number): string {
  const base = `${PARSERS_PATH}/${encodeURIComponent(id)}`;
  return version === undefined ? base : `${base}/${version}`;
}

export function projectPath(id: number): string {
  return `${PROJECTS_PATH}/${id}`;
}
