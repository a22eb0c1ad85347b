import { yaml } from './yaml-library.js';
import type { DesiredParser, DesiredProject, ManifestSource, SourceOrigin } from '../model/desired.js';
import { hasErrors } from './diagnostic.js';
import type { Diagnostic } from './diagnostic.js';
import { keyInValue, keysHeld } from './check-key-values.js';
import type { KeyValue } from './check-key-values.js';
import { evaluateForEach, hasForEach } from './for-each.js';
import type { ForEachElement } from './for-each.js';
import { interpolateDocument } from './interpolate.js';
import type { ReferenceScope } from './interpolate.js';
import { mergeLayers } from './merge-layers.js';
import type { DroppedNothing } from './merge-layers.js';
import { normaliseParser, normaliseProject } from './normalise.js';
import { documentSource, layeredSource } from './object-source.js';
import type { ObjectSource, Place, SourceLayer } from './object-source.js';
import { at, checkParserRules, checkProjectRules, isRecord } from './rules.js';
import { ParserManifestSchema } from './parser-schema.js';
import type { WrittenParser } from './parser-schema.js';
import { ProjectManifestSchema } from './project-schema.js';
import type { WrittenProject } from './project-schema.js';
import { EXPANSION_KEYS, isExtensionKey, MANIFEST_KINDS, TEMPLATE_KINDS } from './schemas.js';
import { readInputFile } from './read-input-file.js';
import { suggestNearest } from './suggest.js';
import { parentProblem, templateChain, templateKindFor, templateLayer } from './templates.js';
import type { TemplateRegistry } from './templates.js';
import { copyDocument, documentToData, inspectDocument, locate } from './yaml-document.js';
import type { SourceDocument } from './yaml-document.js';
import { describeValue, diagnosticsFromIssues } from './zod-diagnostics.js';

/** A valid object, with where its name is written (for cross-file duplicate checks). */
export interface LoadedObject<T> {
  value: T;
  namePosition: Place;
  /** The for_each element that made it, when one did. */
  element?: ForEachElement;
}

/** What expanding and validating a document needs besides the document. */
export interface LoadContext {
  scope: ReferenceScope;
  /** When validation runs (a past `scheduledAt` warns); loadManifests reads the clock when not given one. */
  now: Date;
  /** The folder being read (the one given, or the folder of a file given): input files must stay inside it. */
  root: string;
  /** The folder each file was read from, by file; for an input file a template writes, that template's. */
  roots?: ReadonlyMap<string, string>;
  templates: TemplateRegistry;
  /** The values of the key variables that are set (check-key-values.ts, keysSet): no declared value holds one. */
  keys?: readonly KeyValue[];
}

/** Keys only a scrapeform manifest has; a document with none of them and no `kind` is another tool's file. */
const SCRAPEFORM_KEYS = new Set(
  [
    ...Object.keys(ParserManifestSchema.shape),
    ...Object.keys(ProjectManifestSchema.shape),
    ...EXPANSION_KEYS,
  ].filter((key) => !['apiVersion', 'kind', 'name'].includes(key)),
);

const KINDS_TEXT = 'Parser, Project, ParserTemplate or ProjectTemplate';
const IGNORE_HINT =
  'if this file is not a scrapeform manifest, list it in a .scrapeformignore (gitignore syntax)';

/** The kind a document declares, read from the YAML before anything is expanded. */
export function writtenKind(source: SourceDocument): unknown {
  const root = source.doc.contents;
  if (!yaml().isMap(root)) return undefined;
  const kind = root.get('kind', true);
  return yaml().isScalar(kind) ? kind.value : undefined;
}

/**
 * Expands and validates one Parser or Project document: once, or once per for_each element, each instance built
 * on the templates it extends. Every instance is interpolated, merged, validated and normalised on its own.
 */
export function loadObjectDocument(
  source: SourceDocument,
  context: LoadContext,
  diagnostics: Diagnostic[],
): LoadedObject<DesiredParser | DesiredProject>[] {
  // Aliases, tags, merge keys and nesting are checked on the YAML itself: turning such a document into data
  // would throw, change what a value is, or blow the stack.
  const structural = inspectDocument(source);
  if (structural.length > 0) {
    diagnostics.push(...structural);
    return [];
  }
  if (!hasForEach(source)) {
    const interpolation = interpolateDocument(source, context.scope);
    const own: Diagnostic[] = [];
    const loaded = loadInstance(source, context, own, undefined, interpolation);
    // A document skipped as no manifest of ours (a docker-compose file) is not read: what its references name
    // (an unset variable, a key's) is none of scrapeform's business.
    const skipped = own.some((d) => d.code === 'manifest.not-scrapeform');
    diagnostics.push(...(skipped ? [] : interpolation), ...own);
    return loaded === undefined ? [] : [loaded];
  }
  const elements = evaluateForEach(source, context.scope, diagnostics);
  if (elements === undefined) return [];
  const out: LoadedObject<DesiredParser | DesiredProject>[] = [];
  // The elements are read: copies of the document without its for_each cost one body each, not the whole list.
  const body = copyDocument(source);
  if (yaml().isMap(body.doc.contents)) body.doc.contents.delete('for_each');
  for (const element of elements) {
    // Each instance is read from its own copy of the document, so `${each.…}` keeps its YAML type and place.
    const instance = copyDocument(body);
    const interpolation = interpolateDocument(instance, { ...context.scope, each: element.values });
    diagnostics.push(
      ...interpolation.map((d) =>
        d.code.startsWith('manifest.each-') || d.code === 'manifest.reference-type'
          ? withContext(d, elementContext(element))
          : d,
      ),
    );
    const loaded = loadInstance(instance, context, diagnostics, element, interpolation);
    if (loaded !== undefined) out.push(loaded);
  }
  return out;
}

function placeText(diagnostic: Diagnostic): string {
  return `${diagnostic.file}:${diagnostic.line}:${diagnostic.column}`;
}

/** Said after a message about an instance, so the line of a template names which object it was read for. */
function elementContext(element: ForEachElement, address?: string): string {
  const at = `${element.label} at ${element.place.file}:${element.place.line}:${element.place.column}`;
  return address !== undefined ? `in ${address}: ${at}` : `in ${at}`;
}

function withContext(diagnostic: Diagnostic, context: string): Diagnostic {
  return { ...diagnostic, message: `${diagnostic.message} (${context})` };
}

function loadInstance(
  source: SourceDocument,
  context: LoadContext,
  diagnostics: Diagnostic[],
  element: ForEachElement | undefined,
  interpolation: readonly Diagnostic[],
): LoadedObject<DesiredParser | DesiredProject> | undefined {
  const converted = documentToData(source);
  if ('diagnostic' in converted) {
    diagnostics.push(converted.diagnostic);
    return undefined;
  }
  const written = converted.data;
  if (!isRecord(written)) {
    diagnostics.push(
      at(
        documentSource(source),
        [],
        'value',
        'manifest.not-a-manifest',
        `not a scrapeform manifest: expected a map, got ${describeValue(written)}`,
        { hint: `every document needs kind: Parser or kind: Project; ${IGNORE_HINT}` },
      ),
    );
    return undefined;
  }
  // `x-` keys hold fragments for anchors, and for_each has been expanded: neither is part of the object.
  const data = Object.fromEntries(
    Object.entries(written).filter(([key]) => !isExtensionKey(key) && key !== 'for_each'),
  );
  const kind = data.kind;
  if (kind === undefined && isForeign(data)) {
    diagnostics.push(
      at(
        documentSource(source),
        [],
        'value',
        'manifest.not-scrapeform',
        'skipped: not a scrapeform manifest (no kind, and none of the keys of a Parser or Project)',
        {
          severity: 'warning',
          hint: 'to read it without this warning, list it in a .scrapeformignore (gitignore syntax)',
        },
      ),
    );
    return undefined;
  }
  if (kind !== 'Parser' && kind !== 'Project') {
    diagnostics.push(unknownKind(source, kind));
    return undefined;
  }
  const problems: Diagnostic[] = [];
  const own = documentSource(source);
  const address =
    typeof data.name === 'string' ? `${kind === 'Parser' ? 'parser' : 'project'}.${data.name}` : undefined;
  const contextOf =
    element !== undefined
      ? elementContext(element, address)
      : address !== undefined
        ? `in ${address}`
        : undefined;
  let object: ObjectSource = own;
  let merged: Record<string, unknown> = data;
  const origin: SourceOrigin[] = [];
  if (element !== undefined) origin.push({ role: 'for_each', label: element.label, ...element.place });
  let blocked = hasErrors(interpolation);
  if (data.extends !== undefined) {
    // Templates are read in the scope of this instance: its variables and its for_each element.
    const scope = element !== undefined ? { ...context.scope, each: element.values } : context.scope;
    const built = buildOnTemplates(source, kind, data, { ...context, scope }, problems);
    if (built === undefined) blocked = true;
    else {
      ({ object, merged } = built);
      origin.push(...built.origin);
    }
  }
  // A key is refused at its object whatever else is wrong there (the messages that quote it lose it in
  // loadManifests): the object with another problem would never reach the check of loaded objects.
  const keys = keysHeld(merged, context.keys ?? []);
  if (keys.length > 0)
    problems.push(keyInValue(address ?? `this ${kind}`, keys, { file: source.file, ...locate(source, []) }));
  const schema = kind === 'Parser' ? ParserManifestSchema : ProjectManifestSchema;
  let result: ReturnType<typeof schema.safeParse> | undefined;
  if (!blocked || data.extends === undefined) {
    result = schema.safeParse(merged, { reportInput: true });
    if (!result.success) problems.push(...diagnosticsFromIssues(object, schema, merged, result.error.issues));
    // Cross-key rules run whatever the schema said, so every problem of the document is reported at once.
    if (kind === 'Parser') problems.push(...checkParserRules(object, merged));
    else problems.push(...checkProjectRules(object, merged, context.now));
  }
  const inputFile =
    kind === 'Project' && result !== undefined
      ? readInputFile(object, merged, (manifest) => context.roots?.get(manifest) ?? context.root, problems)
      : undefined;
  // A key holding `${` is reported once, as that: the rules would read its text as written (`price_${each.c}`
  // "contains a dot").
  const keyReferences = new Set(
    interpolation.filter((d) => d.code === 'manifest.key-reference').map((d) => placeText(d)),
  );
  // A message placed outside the object's own document (on a template's line) names the object it was read for.
  const generated = element !== undefined;
  diagnostics.push(
    ...problems
      .filter((d) => !keyReferences.has(placeText(d)))
      .map((d) =>
        contextOf !== undefined && (generated || d.file !== source.file) ? withContext(d, contextOf) : d,
      ),
  );
  if (result === undefined || !result.success || hasErrors(problems) || blocked) return undefined;
  const position = locate(source, []);
  const manifestSource: ManifestSource = {
    file: source.file,
    line: position.line,
    column: position.column,
    ...(origin.length > 0 ? { origin } : {}),
  };
  const value =
    kind === 'Parser'
      ? normaliseParser(result.data as WrittenParser, manifestSource)
      : normaliseProject(result.data as WrittenProject, manifestSource, inputFile);
  const moved = result.data.moved ?? [];
  if (moved.length > 0) {
    value.moved = moved.map((move, i) => {
      const place = object.place(['moved', i]);
      return {
        from: move.from,
        to: move.to,
        place: { file: place.file, line: place.line, column: place.column },
      };
    });
  }
  return { value, namePosition: object.place(['name']), ...(element !== undefined ? { element } : {}) };
}

/**
 * The object merged onto the chain of templates it extends (nearest first), with a source that places each value
 * where it is written, and the templates as origins. Undefined when the chain cannot be built (reported).
 */
function buildOnTemplates(
  source: SourceDocument,
  kind: 'Parser' | 'Project',
  data: Record<string, unknown>,
  context: LoadContext,
  problems: Diagnostic[],
): { object: ObjectSource; merged: Record<string, unknown>; origin: SourceOrigin[] } | undefined {
  const own = documentSource(source);
  const name = data.extends;
  const templateKind = templateKindFor(kind);
  if (typeof name !== 'string' || name === '') {
    problems.push(
      at(
        own,
        ['extends'],
        'value',
        'manifest.extends',
        `extends takes the name of a ${templateKind}, got ${describeValue(name)}`,
      ),
    );
    return undefined;
  }
  const problem = parentProblem(context.templates, templateKind, name);
  if (problem !== undefined) {
    problems.push(at(own, ['extends'], 'value', 'manifest.extends', problem.message, problem.extra));
    return undefined;
  }
  const chain = templateChain(context.templates, templateKind, name);
  // A broken chain (a cycle, an unknown parent) is reported once, on the template.
  if (chain.some((t) => context.templates.broken.has(t))) return undefined;
  const head = Object.fromEntries(Object.entries(data).filter(([key]) => key !== 'extends'));
  const layers: SourceLayer[] = [{ source, data: head }];
  const origin: SourceOrigin[] = [];
  let failed = false;
  for (const template of chain) {
    const read = templateLayer(template, context.scope);
    problems.push(...read.diagnostics);
    failed ||= read.failed;
    layers.push(read.layer);
    const pos = locate(template.source, []);
    origin.push({
      role: 'extends',
      label: `${template.kind} "${template.name}"`,
      file: template.source.file,
      ...pos,
    });
  }
  if (failed) return undefined;
  const droppedNothing: DroppedNothing[] = [];
  const merged = mergeLayers(
    kind,
    layers.map((l) => l.data as Record<string, unknown>),
    droppedNothing,
  );
  const object = layeredSource(layers);
  for (const drop of droppedNothing) {
    const layer = layers[drop.layer] as SourceLayer;
    const key = String(drop.path[drop.path.length - 1]);
    problems.push(
      at(
        documentSource(layer.source),
        drop.path,
        'value',
        'manifest.extends-null',
        `null drops "${key}", but nothing of that name is inherited`,
        {
          hint: `null drops an inherited value; check the name against ${drop.layer + 1 < layers.length ? 'the templates below' : 'what the template declares'}`,
        },
      ),
    );
  }
  return { object, merged, origin };
}

/** Another tool's YAML (a compose file, a CI workflow): no `kind`, no scrapeform apiVersion, no scrapeform key. */
function isForeign(data: Record<string, unknown>): boolean {
  if (typeof data.apiVersion === 'string' && data.apiVersion.startsWith('scrapeform/')) return false;
  return !Object.keys(data).some((key) => SCRAPEFORM_KEYS.has(key));
}

function unknownKind(document: SourceDocument, kind: unknown): Diagnostic {
  const source = documentSource(document);
  if (kind === undefined) {
    return at(
      source,
      [],
      'value',
      'manifest.not-a-manifest',
      'not a scrapeform manifest: missing required key "kind"',
      {
        hint: `every document needs kind: Parser or kind: Project; ${IGNORE_HINT}`,
      },
    );
  }
  if (kind === 'Config') {
    return at(source, ['kind'], 'value', 'manifest.unknown-kind', 'kind Config belongs in scrapeform.yaml', {
      hint: 'the project file is scrapeform.yaml in the folder scrapeform runs in (or the one folder given)',
    });
  }
  const near =
    typeof kind === 'string' ? suggestNearest(kind, [...MANIFEST_KINDS, ...TEMPLATE_KINDS]) : undefined;
  return at(
    source,
    ['kind'],
    'value',
    'manifest.unknown-kind',
    `kind must be ${KINDS_TEXT}, got ${describeValue(kind)}`,
    { hint: near !== undefined ? `did you mean "${near}"?` : `kind Parser or Project; ${IGNORE_HINT}` },
  );
}
