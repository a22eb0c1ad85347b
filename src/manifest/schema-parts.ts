import * as z from 'zod';

/*
 * What the manifest schemas share (schemas.ts, parser-schema.ts, project-schema.ts): the format's version, names,
 * http(s) URLs without credentials, addresses and `moved:` hints.
 */

export const API_VERSION = 'scrapeform/v1';

/** A URL with a user name or password in it; such URLs are refused so no secret reaches a plan, log or state. */
export function hasCredentials(value: string): boolean {
  // User info ends with '@': without one there is nothing to find, and no URL to parse (most entries of a list).
  if (!value.includes('@') || !URL.canParse(value)) return false;
  const url = new URL(value);
  return url.username !== '' || url.password !== '';
}

export const URL_CREDENTIALS_MESSAGE =
  'must not hold a user name or password (user:secret@): they would be shown in plans and stored in state';

export const HttpUrlSchema = z
  .url({
    protocol: /^https?$/,
    hostname: z.regexes.hostname,
    error: 'must be an absolute http:// or https:// URL',
  })
  .refine((value) => !hasCredentials(value), {
    error: URL_CREDENTIALS_MESSAGE,
    params: { code: 'manifest.url-credentials' },
  })
  // No `format: uri` in the JSON Schema: it is RFC 3986 to the letter and refused what validate takes (WHATWG
  // URL parsing, as browsers and the services read it): `https://de.wikipedia.org/wiki/Zürich`, a `|` or `{` in a
  // query. The pattern says what an editor can: http(s), a host, no credentials.
  .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@]+([/?#].*)?$', format: undefined });

/* eslint-disable no-control-regex -- these patterns exist to refuse control characters */
/** Names hold no control characters at all. */
export const NO_CONTROL_CHARACTERS = /^[^\u0000-\u001f\u007f-\u009f]*$/;
/** Descriptions may span lines and hold tabs, but no other control character (NUL included). */
export const TEXT_CONTROL_CHARACTERS = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]*$/;
/* eslint-enable no-control-regex */

/** The name of an object in its service: not empty, at most 200 characters, no control characters. */
export const ResourceNameSchema = z
  .string()
  .min(1, { error: 'must not be empty' })
  .max(200, { error: 'must be at most 200 characters' })
  .regex(NO_CONTROL_CHARACTERS, { error: 'must not hold control characters (NUL, escape, …)' });

/** An object's address as state knows it: `parser.NAME` or `project.NAME`. */
export const AddressSchema = z
  .string()
  .regex(/^(parser|project)\.\S/, { error: 'must be an address: parser.NAME or project.NAME' });

/** `moved:` hints (Terraform's moved blocks): the state entry at `from` is moved to `to` instead of delete + create. */
export const MovedSchema = z
  .array(
    z
      .strictObject({
        from: AddressSchema.describe('The address state knows the object by (its former name).'),
        to: AddressSchema.describe('Its address now: an object a manifest declares.'),
      })
      .describe('One move: state at `from` becomes state at `to`; ignored once applied.'),
  )
  .describe(
    'Renames of objects, as Terraform moved blocks: the object state knows at `from` is the one declared at `to`, so it is kept (its state moves) instead of deleted and created again. ${each.KEY} may be used in a for_each manifest.',
  );

/** A name of a template, a variable or an environment: what `${var.NAME}` and `extends:` can spell. */
export const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
