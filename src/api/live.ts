import type { z } from 'zod';
import type { JobSchema, ParserListItemSchema, ProjectSchema } from './wire-schemas.js';

/** Parser status values of seed 1; others may appear and are passed on as they are. */
export type ParserStatus = 'GENERATING' | 'FINISHED' | 'FAILED' | (string & {});

/**
 * Set on an object the service holds when one of its values held the API key, shown as `***` since (written by
 * hand into a webhook or input URL, say): import passes such an object over, and plans say so.
 */
export interface KeyRedacted {
  keyRedacted?: true;
}

/** A parser as the list endpoint reports it (latest version). */
export type LiveParserSummary = z.infer<typeof ParserListItemSchema> & KeyRedacted;

export interface LiveField {
  name: string;
  /** The generated output type (`array`, `text`, `attribute`): never compare it with the input types. */
  type?: string;
}

/**
 * One version of a parser as the details endpoint reports it, with both spellings folded into one. `id` is the id
 * asked for; `name` is the answer's, else the one the caller knew from the list, else "" (the published details
 * example has neither). `version` is the answer's, else the one asked for, else the list's. `status` is
 * normalised (see parser-status.ts).
 */
export interface LiveParserDetails extends KeyRedacted {
  id: string;
  name: string;
  version: number;
  status: ParserStatus;
  error: string | null;
  createdAt: string | null;
  generatedAt: string | null;
  exampleResult: { url: string; result: Record<string, unknown> }[] | null;
  fields: LiveField[];
}

export interface ParserVersionRef {
  id: string;
  version: number;
}

export interface ParserUpdateResult extends ParserVersionRef {
  /** Applied at once: a 200 to renames and removes only. Otherwise the new version is generating. */
  ready: boolean;
  /** The status the service answered (200 or 202), as reports show it. */
  status: number;
}

export interface ParseResult {
  parser: string;
  version: number | undefined;
  result: Record<string, unknown>;
}

type WireProject = z.infer<typeof ProjectSchema>;

/** A project as the service reports it, with `outputFormat` folded into `output_format` (API-NOTES). */
export interface LiveProject extends KeyRedacted {
  id: number;
  name?: string | undefined;
  schedulingEnabled?: boolean | undefined;
  scrapingInterval?: string | null | undefined;
  scheduledAt?: string | null | undefined;
  createdAt?: string | null | undefined;
  projectType?: string | undefined;
  projectInput?: WireProject['projectInput'];
  projectOutput?: WireProject['projectOutput'];
  webhookOutput?: WireProject['webhookOutput'];
  notificationConfig?: WireProject['notificationConfig'];
  apiParams?: WireProject['apiParams'];
  output_format?: string | null | undefined;
  /** Fields the service sent that scrapeform does not use, kept as they came. */
  [other: string]: unknown;
}

export type LiveJob = z.infer<typeof JobSchema>;
