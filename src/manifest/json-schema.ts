import * as z from 'zod';
import { MERGED_MAPS } from './merge-layers.js';
import { PARSER_TEMPLATE_KEYS, PROJECT_TEMPLATE_KEYS, WrittenManifestSchema } from './schemas.js';

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
  const definitions = (withReferences.definitions as Record<string, Schema> | undefined) ?? {};
  return {
    $schema,
    $id: SCHEMA_ID,
    title: 'scrapeform manifest',
    ...withReferences,
    oneOf: branches.map(allowExpansion),
    definitions: { ...definitions, FieldOverride: fieldOverride(definitions.Field ?? {}) },
  };
}

type Schema = Record<string, unknown>;

/** What an object or template written over a template may hold in `fields`: a partial field, or null. */
const FIELD_OVERRIDE_OR_NULL = { anyOf: [{ $ref: '#/definitions/FieldOverride' }, { type: 'null' }] };

/**
 * What zod cannot say of a document as written: top-level `x-` keys hold fragments (anchors) and are ignored; a
 * template, and a Parser or Project with `extends`, is written over what it inherits (merge-layers.ts): it needs
 * only its name, a field may give only the keys it overrides, and null drops an inherited key. A Parser or Project
 * without `extends` is held to the full schema.
 */
function allowExpansion(branch: Schema): Schema {
  const properties = branch.properties as Record<string, Schema> | undefined;
  const kind = properties?.kind?.const;
  const out: Schema = { ...branch, patternProperties: { '^x-': {} } };
  const base = kind === 'Parser' || kind === 'ParserTemplate' ? 'Parser' : 'Project';
  if (
    properties === undefined ||
    !['Parser', 'Project', 'ParserTemplate', 'ProjectTemplate'].includes(kind as string)
  )
    return out;
  const inherited: readonly string[] = base === 'Parser' ? PARSER_TEMPLATE_KEYS : PROJECT_TEMPLATE_KEYS;
  const written = Object.fromEntries(
    Object.entries(properties).map(([key, schema]) => {
      if (!inherited.includes(key)) return [key, schema];
      if (base === 'Parser' && key === 'fields')
        return [key, orNull({ ...schema, additionalProperties: FIELD_OVERRIDE_OR_NULL })];
      return [key, orNull(MERGED_MAPS[base].includes(key) ? nullableEntries(schema) : schema)];
    }),
  );
  if (kind !== 'Parser' && kind !== 'Project') return { ...out, properties: written };
  // Without extends, the object is checked whole: its required keys, its own values and their cross-key rules.
  const { required, if: when, then, ...others } = out;
  const whole = { required, properties, ...(when !== undefined ? { if: when, then } : {}) };
  return { ...others, properties: written, anyOf: [{ required: ['kind', 'name', 'extends'] }, whole] };
}

/** A field as written over an inherited one: any of its keys, each of them null to drop it. */
function fieldOverride(field: Schema): Schema {
  const { required: _required, if: _if, then: _then, ...rest } = field;
  const properties = (rest.properties as Record<string, Schema> | undefined) ?? {};
  return {
    ...rest,
    properties: Object.fromEntries(
      Object.entries(properties).map(([key, schema]) => [
        key,
        orNull(key === 'fields' ? { ...schema, additionalProperties: FIELD_OVERRIDE_OR_NULL } : schema),
      ]),
    ),
  };
}

/** A map merged key by key with the inherited one: each of its keys may be null. */
function nullableEntries(schema: Schema): Schema {
  const properties = schema.properties as Record<string, Schema> | undefined;
  const extra = schema.additionalProperties;
  return {
    ...schema,
    ...(properties !== undefined
      ? { properties: Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, orNull(v)])) }
      : {}),
    ...(typeof extra === 'object' && extra !== null ? { additionalProperties: orNull(extra as Schema) } : {}),
  };
}

/** The schema, or null; the description stays on top, where editors show it. */
function orNull(schema: Schema): Schema {
  const anyOf = schema.anyOf as Schema[] | undefined;
  if (schema.type === 'null' || anyOf?.some((s) => s.type === 'null') === true) return schema;
  const { description, ...rest } = schema;
  return { ...(description !== undefined ? { description } : {}), anyOf: [rest, { type: 'null' }] };
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
