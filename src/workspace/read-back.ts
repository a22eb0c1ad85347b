import { pathNestedPast } from '../nesting-path.js';
import { isDeepStrictEqual } from 'node:util';
import { Document, isScalar, visit } from 'yaml';
import { formatKeyPath } from '../manifest/diagnostic.js';
import type { Diagnostic } from '../manifest/diagnostic.js';
import type { ObjectSource } from '../manifest/object-source.js';
import { parseManifestText } from '../manifest/read-manifest-file.js';
import { checkParserRules, checkProjectRules } from '../manifest/rules.js';
import {
  documentToData,
  inspectDocument,
  MAX_NESTING_DEPTH,
  TOO_DEEP_MESSAGE,
} from '../manifest/yaml-document.js';

/**
 * A value as manifest YAML, no line wrapping. A `<<` key (a field or an `apiParams` name the service holds) is
 * written quoted: plain, the loader reads it as a YAML merge key (yaml-document.ts), so the manifest either failed
 * to load, failing every later plan, or read back as other keys than the live object has.
 */
export function manifestYaml(value: unknown): string {
  const doc = new Document(value);
  visit(doc, {
    Pair(_key, pair) {
      if (isScalar(pair.key) && pair.key.value === '<<') pair.key.type = 'QUOTE_DOUBLE';
    },
  });
  return doc.toString({ lineWidth: 0 });
}

/**
 * Why the text import would write for one object does not load back as `data` (the document as written, its
 * strings already literal), or undefined when it does: read as the next plan reads it (the YAML, its structure,
 * the rules beyond the schema), so an object whose manifest would fail every later plan, or declare something
 * other than the live object, is passed over instead of written and recorded.
 */
export function readBackProblem(
  file: string,
  text: string,
  kind: 'Parser' | 'Project',
  data: unknown,
): string | undefined {
  const parsed = parseManifestText(file, text);
  const [source] = parsed.documents;
  const first = (diagnostics: readonly Diagnostic[]): string | undefined => {
    const error = diagnostics.find((d) => d.severity === 'error');
    return error === undefined ? undefined : `${error.path !== '' ? `${error.path}: ` : ''}${error.message}`;
  };
  if (source === undefined || parsed.documents.length > 1)
    return first(parsed.diagnostics) ?? 'not one document';
  const problem = first(parsed.diagnostics) ?? first(inspectDocument(source));
  if (problem !== undefined) return problem;
  const read = documentToData(source);
  if ('diagnostic' in read) return read.diagnostic.message;
  if (!isDeepStrictEqual(read.data, data)) return 'it reads back as other values than the live ones';
  // Problems are only counted here; no place is needed, as nothing is reported where it is written.
  const nowhere: ObjectSource = { place: () => ({ file, line: 0, column: 0 }) };
  return first(
    kind === 'Parser'
      ? checkParserRules(nowhere, read.data)
      : checkProjectRules(nowhere, read.data, new Date()),
  );
}

/**
 * Where `data` (a document import would write) nests more maps and lists than a manifest may hold, as the loader
 * reports it (the path of the first collection past MAX_NESTING_DEPTH, then why), or undefined. Walked without
 * recursion, before anything else reads the value: a parser whose fields nest a few hundred levels (an answer may
 * nest 1,000) blew the call stack of the YAML writer, and the whole import ended as an internal error.
 */
export function tooDeepProblem(data: unknown): string | undefined {
  const path = pathNestedPast(data, MAX_NESTING_DEPTH);
  return path === undefined ? undefined : `${formatKeyPath(path)}: ${TOO_DEEP_MESSAGE}`;
}
