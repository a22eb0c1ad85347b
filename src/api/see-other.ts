/**
 * A create answered 303 See Other: the service processed the POST and points at where to GET its outcome (RFC 9110
 * section 15.4.4), which the transport does not follow for a POST (redirects.ts). What the Location names is read
 * by id and taken for the created object only when it is one of the create's name that was not there before
 * (create-once.ts): a 303 may as well name an existing object the POST was found equivalent to (RFC 9110 section
 * 9.3.3), a list, or a page of a gateway in front of the service.
 */

/**
 * The id a Location names directly in `collection` (`<collection>/<id>`, or `<collection>/<id>/<version>` when
 * `versioned`: a parser's version), on its origin; undefined for anything else.
 */
export function idNamedIn(location: string, collection: string, versioned = false): string | undefined {
  let target: URL;
  let base: URL;
  try {
    target = new URL(location);
    base = new URL(collection);
  } catch {
    return undefined;
  }
  if (target.origin !== base.origin) return undefined;
  const prefix = `${base.pathname.replace(/\/+$/, '')}/`;
  if (!target.pathname.startsWith(prefix)) return undefined;
  const [id, version, ...rest] = target.pathname.slice(prefix.length).split('/');
  if (id === undefined || id === '' || rest.length > 0) return undefined;
  if (version !== undefined && !(versioned && /^\d+$/.test(version))) return undefined;
  try {
    return decodeURIComponent(id);
  } catch {
    return undefined;
  }
}
