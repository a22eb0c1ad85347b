import * as z from 'zod';
import { WrittenManifestSchema } from './schemas.js';

export const SCHEMA_ID = 'https://scrapeform.dev/schemas/scrapeform.schema.json';

/**
 * A string holding an environment reference, accepted wherever validate would interpolate one. Validate checks
 * the value after expansion; an editor cannot, so it accepts the reference as written.
 */
const ENV_REFERENCE = {
  type: 'string',
  pattern: '\\$\\{((var|each)\\.)?[A-Za-z_][A-Za-z0-9_]*(:-.*)?\\}',
  description:
    'A reference (${NAME}, ${var.NAME}, ${each.KEY}), checked by scrapeform validate once expanded.',
};

/** The manifest JSON Schema that editors use for completion and hover, generated from the zod schemas. */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(WrittenManifestSchema, { target: 'draft-7', unrepresentable: 'any' });
  const { $schema, ...rest } = schema;
  const withReferences = allowReferences(rest) as Record<string, unknown>;
  const branches = (withReferences.oneOf as Record<string, unknown>[] | undefined) ?? [];
  return {
    $schema,
    $id: SCHEMA_ID,
    title: 'scrapeform manifest',
    ...withReferences,
    oneOf: branches.map(allowExpansion),
  };
}

/**
 * What zod cannot say of a document as written: top-level `x-` keys hold fragments (anchors) and are ignored, and
 * a Parser or Project with `extends` needs only its name, since its template may give the rest.
 */
function allowExpansion(branch: Record<string, unknown>): Record<string, unknown> {
  const properties = branch.properties as Record<string, { const?: unknown }> | undefined;
  const kind = properties?.kind?.const;
  const out: Record<string, unknown> = { ...branch, patternProperties: { '^x-': {} } };
  if ((kind === 'Parser' || kind === 'Project') && Array.isArray(branch.required)) {
    const { required, ...others } = out;
    return { ...others, anyOf: [{ required: ['kind', 'name', 'extends'] }, { required }] };
  }
  return out;
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
