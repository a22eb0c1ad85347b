import type { CompiledField, FieldSpec } from './extraction/fields.js';
import type { ScrapingParams } from './fetcher.js';

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
  /** queued-status quirk: emulated ms until which the version reports QUEUED before GENERATING. */
  queuedUntil?: number;
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

/** The version with the highest number: what an omitted version means (seed 1). */
export function latestOf(parser: StoredParser): StoredVersion {
  return parser.versions.reduce((a, b) => (b.version > a.version ? b : a));
}

/** The status an answer reports: QUEUED while a version waits its turn (queued-status quirk), else the stored one. */
export function reportedStatus(stored: StoredVersion, now: number): string {
  return stored.status === 'GENERATING' && stored.queuedUntil !== undefined && now < stored.queuedUntil
    ? 'QUEUED'
    : stored.status;
}
