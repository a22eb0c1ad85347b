import { isRecord } from './rules.js';

/** Maps merged key by key when an object overrides its template; other values are replaced whole. */
export const MERGED_MAPS: Record<'Parser' | 'Project', readonly string[]> = {
  Parser: ['scraper_params', 'lifecycle'],
  Project: ['lifecycle', 'notificationConfig', 'apiParams'],
};

/** Keys whose null is a value (webhookOutput: null removes the callback), not "drop what is inherited". */
const NULL_IS_A_VALUE: Record<'Parser' | 'Project', readonly string[]> = {
  Parser: [],
  Project: ['webhookOutput'],
};

/** A null that drops nothing: the path in the layer that writes it, and the layer's index (0 = the object). */
export interface DroppedNothing {
  layer: number;
  path: PropertyKey[];
}

/**
 * Merges layers, the top (index 0, the object itself) winning: its own keys override the templates'; `fields`
 * merge by name, each field key by key and children by name again; the maps of MERGED_MAPS merge key by key;
 * lists and everything else are replaced whole. A key set to null drops what would be inherited; a null that
 * has nothing below it to drop is reported, since it is most likely a misspelt name.
 */
export function mergeLayers(
  kind: 'Parser' | 'Project',
  layers: readonly Record<string, unknown>[],
  droppedNothing: DroppedNothing[],
): Record<string, unknown> {
  let merged: Record<string, unknown> = {};
  for (let index = layers.length - 1; index >= 0; index--) {
    const over = layers[index] as Record<string, unknown>;
    merged = mergeTop(kind, merged, over, index, droppedNothing);
  }
  return merged;
}

function mergeTop(
  kind: 'Parser' | 'Project',
  base: Record<string, unknown>,
  over: Record<string, unknown>,
  layer: number,
  droppedNothing: DroppedNothing[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === null && !NULL_IS_A_VALUE[kind].includes(key)) {
      if (!Object.hasOwn(out, key)) droppedNothing.push({ layer, path: [key] });
      delete out[key];
    } else if (kind === 'Parser' && key === 'fields' && isRecord(value) && isRecord(out[key])) {
      out[key] = mergeFields(out[key], value, [key], layer, droppedNothing);
    } else if (MERGED_MAPS[kind].includes(key) && isRecord(value) && isRecord(out[key])) {
      out[key] = mergeMap(out[key], value, [key], layer, droppedNothing);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function mergeMap(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
  path: PropertyKey[],
  layer: number,
  droppedNothing: DroppedNothing[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === null) {
      if (!Object.hasOwn(out, key)) droppedNothing.push({ layer, path: [...path, key] });
      delete out[key];
    } else {
      out[key] = value;
    }
  }
  return out;
}

/** Fields by name: a field both sides declare merges key by key, its children by name again. */
function mergeFields(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
  path: PropertyKey[],
  layer: number,
  droppedNothing: DroppedNothing[],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [name, field] of Object.entries(over)) {
    const inherited = out[name];
    if (field === null) {
      if (!Object.hasOwn(out, name)) droppedNothing.push({ layer, path: [...path, name] });
      delete out[name];
    } else if (isRecord(field) && isRecord(inherited)) {
      const merged: Record<string, unknown> = { ...inherited };
      for (const [key, value] of Object.entries(field)) {
        if (value === null) {
          if (!Object.hasOwn(merged, key)) droppedNothing.push({ layer, path: [...path, name, key] });
          delete merged[key];
        } else if (key === 'fields' && isRecord(value) && isRecord(merged.fields)) {
          merged.fields = mergeFields(merged.fields, value, [...path, name, 'fields'], layer, droppedNothing);
        } else {
          merged[key] = value;
        }
      }
      out[name] = merged;
    } else {
      out[name] = field;
    }
  }
  return out;
}
