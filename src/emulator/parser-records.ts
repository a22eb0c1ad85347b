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
