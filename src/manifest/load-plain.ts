import type { DesiredParser, DesiredProject } from '../model/desired.js';
import type { Diagnostic } from './diagnostic.js';
import type { LoadContext, LoadedObject } from './load-file.js';
import { normaliseParser, normaliseProject } from './normalise.js';
import type { ObjectSource } from './object-source.js';
import { readInputFile } from './read-input-file.js';
import { plainNamePosition } from './read-plain-yaml.js';
import type { PlainDocument } from './read-plain-yaml.js';
import { checkParserRules, checkProjectRules } from './rules.js';
import { ParserManifestSchema } from './parser-schema.js';
import type { WrittenParser } from './parser-schema.js';
import { ProjectManifestSchema } from './project-schema.js';
import type { WrittenProject } from './project-schema.js';
import { isExtensionKey } from './schemas.js';

/**
 * Validates and normalises the documents of a file read without positions (`readPlainYaml`), or returns
 * undefined when any of them has a problem (an error or a warning), uses templates, for_each or moved, or is not a
 * Parser or Project: the file is then read again with positions, which finds and places every problem. So a
 * file read this way gives exactly the objects the document model gives (test/unit/manifest/plain-yaml.test.ts).
 */
export function loadPlainFile(
  file: string,
  documents: readonly PlainDocument[],
  context: LoadContext,
): LoadedObject<DesiredParser | DesiredProject>[] | undefined {
  const out: LoadedObject<DesiredParser | DesiredProject>[] = [];
  for (const document of documents) {
    const loaded = loadPlainDocument(file, document, context);
    if (loaded === undefined) return undefined;
    out.push(loaded);
  }
  return out;
}

function loadPlainDocument(
  file: string,
  document: PlainDocument,
  context: LoadContext,
): LoadedObject<DesiredParser | DesiredProject> | undefined {
  const written = document.data;
  // `moved:` hints are checked across manifests at their own line and column, which only the document model has.
  if ('for_each' in written || 'extends' in written || 'moved' in written) return undefined;
  // `x-` keys hold fragments for anchors: they are not part of the object.
  const data = Object.fromEntries(Object.entries(written).filter(([key]) => !isExtensionKey(key)));
  const kind = data.kind;
  if (kind !== 'Parser' && kind !== 'Project') return undefined;
  const namePosition = plainNamePosition(document);
  if (namePosition === undefined) return undefined;
  // Problems are only counted here; their places are found by the document model when the file is read again.
  const nowhere: ObjectSource = { place: () => ({ file, line: 0, column: 0 }) };
  const problems: Diagnostic[] = [];
  const manifestSource = { file, ...document.start };
  if (kind === 'Parser') {
    const result = ParserManifestSchema.safeParse(data);
    if (!result.success) return undefined;
    problems.push(...checkParserRules(nowhere, data));
    if (problems.length > 0) return undefined;
    return {
      value: normaliseParser(result.data as WrittenParser, manifestSource),
      namePosition: { file, ...namePosition },
    };
  }
  const result = ProjectManifestSchema.safeParse(data);
  if (!result.success) return undefined;
  problems.push(...checkProjectRules(nowhere, data, context.now));
  const inputFile = readInputFile(nowhere, data, context.root, problems);
  if (problems.length > 0) return undefined;
  return {
    value: normaliseProject(result.data as WrittenProject, manifestSource, inputFile),
    namePosition: { file, ...namePosition },
  };
}
