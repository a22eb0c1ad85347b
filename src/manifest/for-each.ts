import { yaml } from './yaml-library.js';
import type { Diagnostic } from './diagnostic.js';
import { interpolateDocument } from './interpolate.js';
import type { ReferenceScope } from './interpolate.js';
import { documentSource } from './object-source.js';
import type { Place } from './object-source.js';
import { at, isRecord } from './rules.js';
import { IDENTIFIER } from './schema-parts.js';
import { describeValue } from './zod-diagnostics.js';
import { copyDocument, documentToData } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';

/** One element of a for_each: the values `${each.KEY}` reads, and how to name it in messages and plans. */
export interface ForEachElement {
  values: Record<string, unknown>;
  /** `for_each[2]`, or for a matrix `country=de, category=poetry`. */
  label: string;
  place: Place;
}

/** Whether a document has a top-level `for_each`. */
export function hasForEach(source: SourceDocument): boolean {
  const root = source.doc.contents;
  return yaml().isMap(root) && root.has('for_each');
}

/** A matrix with more combinations than this is refused: it is a mistake, not a fleet. */
export const MAX_FOR_EACH_ELEMENTS = 10_000;

/**
 * The elements of a document's `for_each`: a list of maps, `{ matrix: { KEY: [values] } }` (every combination,
 * the first axis slowest), or either of them from a variable (`for_each: ${var.NAME}`). Problems are reported at
 * their place; undefined when there are any.
 */
export function evaluateForEach(
  source: SourceDocument,
  scope: ReferenceScope,
  diagnostics: Diagnostic[],
): ForEachElement[] | undefined {
  // Read in a copy, interpolated without an element: the body's `${each.…}` is only for the instances.
  const copy = copyDocument(source);
  const problems = interpolateDocument(copy, scope).filter(
    (d) => d.path === 'for_each' || d.path.startsWith('for_each.') || d.path.startsWith('for_each['),
  );
  diagnostics.push(...problems);
  if (problems.length > 0) return undefined;
  const converted = documentToData(copy);
  if ('diagnostic' in converted) return undefined; // reported when the document itself is read
  const value = isRecord(converted.data) ? converted.data.for_each : undefined;
  const where = documentSource(copy);
  const fail = (path: PropertyKey[], message: string, hint?: string): undefined => {
    diagnostics.push(
      at(where, path, 'value', 'manifest.for-each', message, hint !== undefined ? { hint } : {}),
    );
    return undefined;
  };
  if (Array.isArray(value)) {
    const elements: ForEachElement[] = [];
    for (const [i, item] of value.entries()) {
      if (!isRecord(item)) {
        return fail(
          ['for_each', i],
          `for_each[${i}] must be a map of the values \${each.KEY} reads, got ${describeValue(item)}`,
          'for example - { country: de, category: fiction }',
        );
      }
      const bad = Object.keys(item).find((key) => !IDENTIFIER.test(key));
      if (bad !== undefined) {
        return fail(
          ['for_each', i],
          `for_each[${i}]: "${bad}" cannot be read as \${each.${bad}}`,
          'use letters, digits and _',
        );
      }
      elements.push({ values: item, label: `for_each[${i}]`, place: where.place(['for_each', i]) });
    }
    return elements;
  }
  if (isRecord(value) && Object.keys(value).length === 1 && isRecord(value.matrix)) {
    let combinations: Record<string, unknown>[] = [{}];
    for (const [axis, values] of Object.entries(value.matrix)) {
      if (!IDENTIFIER.test(axis)) {
        return fail(
          ['for_each', 'matrix'],
          `matrix: "${axis}" cannot be read as \${each.${axis}}`,
          'use letters, digits and _',
        );
      }
      if (
        !Array.isArray(values) ||
        values.length === 0 ||
        values.some((v) => v === null || typeof v === 'object')
      ) {
        return fail(
          ['for_each', 'matrix', axis],
          `matrix.${axis} must be a non-empty list of strings, numbers or booleans`,
          'for a list of maps, write for_each as that list',
        );
      }
      combinations = combinations.flatMap((combination) =>
        values.map((v: unknown) => ({ ...combination, [axis]: v })),
      );
      if (combinations.length > MAX_FOR_EACH_ELEMENTS) {
        return fail(
          ['for_each', 'matrix'],
          `the matrix makes more than ${MAX_FOR_EACH_ELEMENTS} combinations`,
        );
      }
    }
    const place = where.place(['for_each', 'matrix']);
    return combinations.map((values) => ({
      values,
      label: Object.entries(values)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(', '),
      place,
    }));
  }
  return fail(
    ['for_each'],
    `for_each takes a list of maps or { matrix: { KEY: [values] } }, got ${describeValue(value)}`,
    'for example for_each: [{ country: de }, { country: fr }], or for_each: ${var.NAME} for a list variable',
  );
}
