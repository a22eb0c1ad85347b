import type { SourcePosition } from './diagnostic.js';
import { locate } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';

/** A place in a manifest file. */
export interface Place extends SourcePosition {
  file: string;
}

/**
 * Where the values of one object are written: a single document, or an object and the templates it extends
 * (its own document first). Diagnostics ask it for the place of a key path, so a value inherited from a template
 * is reported on the template's line.
 */
export interface ObjectSource {
  place(path: readonly PropertyKey[], at?: 'key' | 'value'): Place;
}

/** One document, as read. */
export function documentSource(source: SourceDocument): ObjectSource {
  return { place: (path, at = 'value') => ({ file: source.file, ...locate(source, path, at) }) };
}

/** A document and the data it contributed, one layer of an object built from templates. */
export interface SourceLayer {
  source: SourceDocument;
  data: unknown;
}

/**
 * An object merged from layers (the top one wins): a path is placed in the top layer that writes it; a path no
 * layer writes (a missing key) at its deepest ancestor some layer writes, the top one first.
 */
export function layeredSource(layers: readonly SourceLayer[]): ObjectSource {
  return {
    place(path, at = 'value') {
      for (let length = path.length; length >= 0; length--) {
        const prefix = path.slice(0, length);
        const layer = layers.find((l) => hasPath(l.data, prefix));
        if (layer !== undefined) return { file: layer.source.file, ...locate(layer.source, path, at) };
      }
      const first = layers[0] as SourceLayer;
      return { file: first.source.file, ...locate(first.source, [], at) };
    },
  };
}

function hasPath(data: unknown, path: readonly PropertyKey[]): boolean {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return false;
    if (!Object.hasOwn(current, segment)) return false;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return true;
}
