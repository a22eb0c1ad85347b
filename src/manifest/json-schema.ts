import { z } from 'zod';
import { ManifestSchema } from './schemas.js';

export const SCHEMA_ID = 'https://scrapeform.dev/schemas/scrapeform.schema.json';

/** The manifest JSON Schema that editors use for completion and hover, generated from the zod schemas. */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ManifestSchema, { target: 'draft-7', unrepresentable: 'any' });
  const { $schema, ...rest } = schema;
  return { $schema, $id: SCHEMA_ID, title: 'scrapeform manifest', ...rest };
}
