import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments } from 'yaml';
import type { Document, Node, Scalar, YAMLMap } from 'yaml';
import { sameValues } from './format-manifest.js';
import { literalValue } from './interpolate.js';
import { keepComments } from './keep-comments.js';
import { readLineEndings, writeLineEndings } from './line-endings.js';
import { patchedText } from './patch-manifest.js';
import type { DocumentEdit } from './patch-manifest.js';
import { keepScalarSource, SOURCE_TAG } from './scalar-source.js';

/** One change to a manifest document, as `drift --accept` makes them. Field names are in dot notation. */
export type ManifestEdit =
  /** `from` is the field as written: a field only a template declares is not renamed (that would rename it for all). */
  | { edit: 'rename-field'; from: string; to: string }
  | { edit: 'remove-field'; field: string }
  /** `value` is the field as written: `{ description, fields? }`. */
  | { edit: 'add-field'; field: string; value: Record<string, unknown> }
  /** A top-level key set to a value, or removed when the value is undefined. */
  | { edit: 'set'; key: string; value: unknown }
  | { edit: 'remove-document' };

/** A template an object extends, with the text of its file: where a key the object does not write comes from. */
export interface TemplateText {
  /** `ProjectTemplate "nightly"`. */
  label: string;
  file: string;
  text: string;
  /** Where the template's document content starts (SourceOrigin). */
  line: number;
  column: number;
}

/** The edits of one object's document. */
export interface ManifestTarget {
  kind: 'Parser' | 'Project';
  /**
   * Where the document's content starts (ManifestSource): a document is found by its place, not by its name,
   * since a name made by `${each.…}` or `${var.…}` is not the text written.
   */
  line: number;
  column: number;
  edits: readonly ManifestEdit[];
  /** The templates it extends, nearest first: a removed inherited key is written `key: null`. */
  templates?: readonly TemplateText[];
}

export interface EditedManifest {
  /** The new text, or null when the file holds no document any more. */
  text: string | null;
  /** Why a target was left as written, by its index in `targets`: when one edit cannot be made, none of its are. */
  refused: Map<number, string[]>;
}

/**
 * Applies edits to the documents of one file (each found by kind and place) through yaml's Document API, and
 * writes anew only the text of what changed (patchedText), when that reads back as the edited documents; else the
 * edited documents in the library's layout, comments, key order, quoting and flow style kept. Every string written is
 * escaped (`literalText`), so the next load reads back the live value. Refused, leaving the document as it was:
 * a value written with a reference (`${var.…}`, `${each.…}`, `${NAME}`: shared by every environment or element
 * that reads it), a field a template declares (renaming it there would rename it for every object built on it),
 * and whatever is not where the object's values say it is.
 *
 * A UTF-8 byte order mark and CRLF line endings are kept as found, as `fmt` keeps them (readLineEndings): the
 * whole file was written back with LF and without the mark, and a Windows checkout showed every line changed.
 * Each scalar not edited is written as it was, as `fmt` writes it (keepScalarSource): the library's form joined a
 * string written on two lines, turned `0x1F` into `0x1f` and `\u00e9` into `é`, a diff on lines nobody changed.
 */
export function editManifestText(
  file: string,
  text: string,
  targets: readonly ManifestTarget[],
): EditedManifest {
  const { endings, body } = readLineEndings(text);
  const edited = editLfText(file, body, targets);
  // Nothing to write: the file is kept as it is, byte for byte, mixed endings included.
  if (edited.text === body) return { text, refused: edited.refused };
  return { ...edited, text: edited.text === null ? null : writeLineEndings(endings, edited.text) };
}

function editLfText(file: string, text: string, targets: readonly ManifestTarget[]): EditedManifest {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, {
    lineCounter,
    keepSourceTokens: true,
    customTags: [SOURCE_TAG],
  });
  const list: Document[] = Array.isArray(documents) ? [...documents] : [];
  const refused = new Map<number, string[]>();
  const removedDocuments = new Set<number>();
  const edits: DocumentEdit[] = [];
  let changed = false;
  const broken = list.some((d) => d.errors.length > 0);
  for (const [at, target] of targets.entries()) {
    const index = list.findIndex((doc) => {
      const root = doc.contents;
      if (!isMap(root) || scalarOf(root.get('kind', true)) !== target.kind) return false;
      const pos = lineCounter.linePos(root.range?.[0] ?? 0);
      return pos.line === target.line && pos.col === target.column;
    });
    const doc = list[index];
    if (doc === undefined || broken) {
      refused.set(at, [
        broken
          ? `${file} does not read as YAML any more`
          : `no ${target.kind} document starts at ${file}:${target.line}:${target.column} any more`,
      ]);
      continue;
    }
    const own: Written = { file, doc, lineCounter };
    const templates = (target.templates ?? []).flatMap((t) => {
      const found = templateDocument(t);
      return found === undefined ? [] : [found];
    });
    if (templates.length < (target.templates ?? []).length) {
      refused.set(at, ['a template it extends is not where its values say it is']);
      continue;
    }
    // Edits are made on a copy: the document changes only when every edit of the object can be made.
    const draft = doc.clone();
    const problems: string[] = [];
    let removed = false;
    for (const edit of target.edits) {
      const problem = tryEdit(draft, edit, own, templates);
      if (problem === 'remove-document') removed = true;
      else if (problem !== undefined) problems.push(problem);
    }
    if (problems.length > 0) {
      refused.set(at, problems);
      continue;
    }
    if (removed) {
      removedDocuments.add(index);
      edits.push({ before: doc, after: null });
    }
    // Edits already made (by an earlier run, or by hand) change nothing: the document is left as written.
    else if (draft.toString({ lineWidth: 0 }) !== doc.toString({ lineWidth: 0 })) {
      list[index] = draft;
      edits.push({ before: doc, after: draft });
      changed = true;
    }
  }
  const kept = list.filter((_, i) => !removedDocuments.has(i));
  if (kept.length === 0) return { text: null, refused };
  // Nothing to write: the file is kept as it is, byte for byte (a rewrite would reformat it).
  if (!changed && removedDocuments.size === 0) return { text, refused };
  // Only the text of what changed is written anew, when that reads back as the edited documents (patchedText).
  const patched = patchedText(text, edits);
  const written = keptSource(kept);
  return { text: patched !== undefined && sameValues(written, patched) ? patched : written, refused };
}

/**
 * The documents written with each scalar's source text (keepScalarSource), kept only when they read back as the same
 * values as in the library's form, else in that form (as `fmt` falls back). A scalar an edit changed has no source
 * left (`edited`), so its new value is written.
 */
function keptSource(documents: readonly Document[]): string {
  const library = documents.map((d) => d.toString({ lineWidth: 0 })).join('');
  for (const d of documents) keepScalarSource(d);
  const source = documents.map((d) => d.toString({ lineWidth: 0 })).join('');
  return source === library || sameValues(library, source) ? source : library;
}

/** A scalar given a new value: its source text is no longer what it holds, so the library writes it. */
function edited(node: Scalar, value: unknown): void {
  node.value = value;
  delete node.srcToken;
}

/** A document as read, with what places its nodes. */
interface Written {
  file: string;
  doc: Document;
  lineCounter: LineCounter;
  label?: string;
}

function templateDocument(template: TemplateText): Written | undefined {
  const lineCounter = new LineCounter();
  // Placed as the loader places it: without a byte order mark, which would move line 1 a column on.
  const documents = parseAllDocuments(readLineEndings(template.text).body, { lineCounter });
  const list = Array.isArray(documents) ? documents : [];
  const doc = list.find((d) => {
    if (!isMap(d.contents)) return false;
    const pos = lineCounter.linePos(d.contents.range?.[0] ?? 0);
    return pos.line === template.line && pos.col === template.column;
  });
  return doc === undefined ? undefined : { file: template.file, doc, lineCounter, label: template.label };
}

function tryEdit(
  doc: Document,
  edit: ManifestEdit,
  own: Written,
  templates: readonly Written[],
): string | 'remove-document' | undefined {
  try {
    return applyEdit(doc, edit, own, templates);
  } catch (error) {
    // yaml's setIn throws where a path goes through something that is not a map it can write (an alias).
    return `${edit.edit} in ${own.file}: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Makes one edit on `doc` (a copy of `own.doc`); the problem when it cannot be made exactly. */
function applyEdit(
  doc: Document,
  edit: ManifestEdit,
  own: Written,
  templates: readonly Written[],
): string | 'remove-document' | undefined {
  switch (edit.edit) {
    case 'remove-document':
      return 'remove-document';
    case 'set':
      return setKey(doc, edit.key, edit.value, own, templates);
    case 'rename-field': {
      const path = fieldPath(edit.from);
      const inherited = templates.find((t) => writes(t.doc, path));
      if (inherited !== undefined)
        return `rename ${edit.from}: ${inheritedFrom(inherited, path)}; renaming it there would rename it for every object built on it (rename it by hand: ${leafOf(edit.from)}: null, and the field under its new name)`;
      const map = fieldMap(doc, parentPath(edit.from));
      const pair = map?.items.find((p) => scalarOf(p.key) === leafOf(edit.from));
      // Done already (a run stopped after its manifest write, or an edit by hand): nothing to write. The reload
      // check after the edits still compares what the manifests then declare with what is live.
      const done = map?.items.some((p) => scalarOf(p.key) === leafOf(edit.to)) === true;
      if (pair === undefined && done && fieldMap(doc, parentPath(edit.to)) === map) return undefined;
      if (pair === undefined || !isScalar(pair.key)) return `rename ${edit.from}: not in ${own.file}`;
      edited(pair.key, leafOf(edit.to));
      return undefined;
    }
    case 'remove-field': {
      const path = fieldPath(edit.field);
      // A field a template declares is dropped for this object alone by a null (manifests.md, templates).
      if (templates.some((t) => writes(t.doc, path))) {
        doc.setIn(path, doc.createNode(null));
        return undefined;
      }
      const map = fieldMap(doc, parentPath(edit.field));
      // Not written (removed already, by an earlier run or by hand): nothing to remove; the reload check decides.
      if (map !== undefined && !map.has(leafOf(edit.field))) return undefined;
      if (map === undefined || !map.delete(leafOf(edit.field)))
        return `remove ${edit.field}: not in ${own.file}`;
      return undefined;
    }
    case 'add-field': {
      const parent = parentPath(edit.field);
      const parentWritten =
        parent.length === 0 ||
        fieldMap(doc, parent) !== undefined ||
        templates.some((t) => writes(t.doc, fieldPath(parent.join('.'))));
      if (!parentWritten) return `add ${edit.field}: its parent is not in ${own.file}`;
      doc.setIn(fieldPath(edit.field), doc.createNode(literalValue(edit.value)));
      return undefined;
    }
  }
}

/** A top-level key set to a live value (removed when undefined); refused where a reference is written. */
function setKey(
  doc: Document,
  key: string,
  value: unknown,
  own: Written,
  templates: readonly Written[],
): string | undefined {
  // What the object reads for the key: its own document's value, else the nearest template's that writes it.
  const source = [own, ...templates].find((w) => writes(w.doc, [key]));
  if (source === undefined && [own, ...templates].some((w) => hasMergeKey(w.doc))) {
    return `${key}: may come from a merge key (<<) in ${own.file}; edit the manifest by hand, or revert with apply`;
  }
  if (source !== undefined) {
    const node = source.doc.getIn([key], true);
    const reference = referenceIn(source.doc, node);
    if (reference !== undefined) {
      const pos = source.lineCounter.linePos(reference.range?.[0] ?? 0);
      const where = `${source.file}:${pos.line}:${pos.col}${source.label !== undefined ? ` (${source.label})` : ''}`;
      return `${key} at ${where} is written with a reference (${String(reference.value)}), shared by every environment or element that reads it; edit the variable (or the element) by hand, or revert with apply`;
    }
  }
  const inherited = templates.some((t) => writes(t.doc, [key]));
  if (value === undefined) {
    // A key a template supplies is dropped by a null (webhookOutput: null says "no webhook" outright).
    if (inherited) doc.setIn([key], doc.createNode(null));
    else doc.deleteIn([key]);
    return undefined;
  }
  const node = doc.getIn([key], true);
  // A scalar changes in place, so a comment on its line stays with it.
  if (isScalar(node) && (value === null || typeof value !== 'object')) edited(node, literalValue(value));
  else {
    const written = doc.createNode(literalValue(value));
    // A list or map set anew keeps the comments of the lines it writes again (`- b # why`).
    keepComments(node, written);
    doc.setIn([key], written);
  }
  return undefined;
}

/** Whether a document's root map writes a key path itself (not through an alias or a merge key). */
function writes(doc: Document, path: readonly string[]): boolean {
  return doc.hasIn(path);
}

function hasMergeKey(doc: Document): boolean {
  return isMap(doc.contents) && doc.contents.items.some((p) => scalarOf(p.key) === '<<');
}

function inheritedFrom(template: Written, path: readonly string[]): string {
  const node = template.doc.getIn(path, true) as Node | undefined;
  const pos = template.lineCounter.linePos(node?.range?.[0] ?? 0);
  return `declared by ${template.label ?? 'a template'} at ${template.file}:${pos.line}:${pos.col}`;
}

/**
 * The first scalar under a node that holds a `${` reference (not the `$${` literal), aliases followed: a value
 * the interpolation expands differs by environment or element, and writing one environment's value over it
 * would give it to all.
 */
function referenceIn(doc: Document, node: unknown, depth = 0): (Node & { value?: unknown }) | undefined {
  if (depth > 64) return undefined;
  if (isAlias(node)) return referenceIn(doc, node.resolve(doc), depth + 1);
  if (isScalar(node)) return typeof node.value === 'string' && holdsReference(node.value) ? node : undefined;
  if (isMap(node) || isSeq(node)) {
    for (const item of node.items) {
      const found = isPair(item)
        ? (referenceIn(doc, item.key, depth + 1) ?? referenceIn(doc, item.value, depth + 1))
        : referenceIn(doc, item, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** Whether a text holds `${` that is not the literal `$${`, read left to right as the interpolation reads it. */
function holdsReference(text: string): boolean {
  for (let i = 0; i < text.length;) {
    if (text.startsWith('$${', i)) i += 3;
    else if (text.startsWith('${', i)) return true;
    else i++;
  }
  return false;
}

/** The key path of a field in dot notation: `fields.reviews.fields.author` for `reviews.author`. */
function fieldPath(name: string): string[] {
  return ['fields', ...name.split('.').flatMap((p, i) => (i === 0 ? [p] : ['fields', p]))];
}

/** The `fields` map under a chain of parent field names: `fields.reviews.fields` for `["reviews"]`. */
function fieldMap(doc: Document, parents: readonly string[]): YAMLMap | undefined {
  const path = ['fields', ...parents.flatMap((p) => [p, 'fields'])];
  const node = doc.getIn(path, true);
  return isMap(node) ? node : undefined;
}

function parentPath(name: string): string[] {
  return name.split('.').slice(0, -1);
}

function leafOf(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function scalarOf(node: unknown): unknown {
  return isScalar(node) ? node.value : node;
}
