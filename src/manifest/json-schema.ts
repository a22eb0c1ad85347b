import { z } from 'zod';
import { ManifestSchema } from './schemas.js';

export const SCHEMA_ID = 'https://scrapeform.dev/schemas/scrapeform.schema.json';

/**
 * A string holding an environment reference, accepted wherever validate would interpolate one. Validate checks
 * the value after expansion; an editor cannot, so it accepts the reference as written.
 */
const ENV_REFERENCE = {
  type: 'string',
  pattern: '\\$\\{[A-Za-z_][A-Za-z0-9_]*(:-.*)?\\}',
  description: 'An environment reference, checked by scrapeform validate once expanded.',
};

/** The manifest JSON Schema that editors use for completion and hover, generated from the zod schemas. */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ManifestSchema, { target: 'draft-7', unrepresentable: 'any' });
  const { $schema, ...rest } = schema;
  return { $schema, $id: SCHEMA_ID, title: 'scrapeform manifest', ...(allowReferences(rest) as object) };
}

/**
 * zod describes values as they are after interpolation; the file holds them before. Every constrained scalar
 * (a boolean, a number, an enum, a URL, a pattern, a cron) also accepts a string with a `${…}` reference, as
 * `validate` does. Bare `const`s are left alone: they are the discriminators (`kind`, `projectInput.type`) that
 * editors use to pick the branch, and are written out in practice.
 */
function allowReferences(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(allowReferences);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).map(([key, value]) => [key, allowReferences(value)] as const);
  const schema = Object.fromEntries(entries) as Record<string, unknown>;
  if (!isConstrainedScalar(schema)) return schema;
  const { description, ...constraint } = schema;
  return {
    ...(description !== undefined ? { description } : {}),
    anyOf: [constraint, ENV_REFERENCE],
  };
}

function isConstrainedScalar(schema: Record<string, unknown>): boolean {
  const type = schema.type;
  if (type === 'boolean' || type === 'integer' || type === 'number') return true;
  if (type !== 'string') return false;
  return ['format', 'pattern', 'enum', 'anyOf'].some((key) => key in schema);
}
