import { isMap, isScalar, parseAllDocuments } from 'yaml';
import type { Document, YAMLMap } from 'yaml';

/** One change to a manifest document, as `drift --accept` makes them. Field names are in dot notation. */
export type ManifestEdit =
  | { edit: 'rename-field'; from: string; to: string }
  | { edit: 'remove-field'; field: string }
  /** `value` is the field as written: `{ description, fields? }`. */
  | { edit: 'add-field'; field: string; value: Record<string, unknown> }
  /** A top-level key set to a value, or removed when the value is undefined. */
  | { edit: 'set'; key: string; value: unknown }
  | { edit: 'remove-document' };

export interface EditedManifest {
  /** The new text, or null when the file holds no document any more. */
  text: string | null;
  /** Edits that could not be made (the document or the field was not found), for the caller to report. */
  skipped: string[];
}

/**
 * Applies edits to the document of one manifest (found by kind and name) through yaml's Document API, so comments,
 * key order, quoting and flow style of everything else stay as written. Other documents of the file are untouched.
 */
export function editManifestText(
  text: string,
  target: { kind: 'Parser' | 'Project'; name: string },
  edits: readonly ManifestEdit[],
): EditedManifest {
  const documents = parseAllDocuments(text);
  const list = Array.isArray(documents) ? documents : [];
  const index = list.findIndex((doc) => {
    const root = doc.contents;
    if (!isMap(root)) return false;
    return (
      scalarOf(root.get('kind', true)) === target.kind && scalarOf(root.get('name', true)) === target.name
    );
  });
  const doc = list[index];
  if (doc === undefined || list.some((d) => d.errors.length > 0)) {
    return { text, skipped: edits.map((e) => `${e.edit}: no ${target.kind} named ${target.name} found`) };
  }
  const skipped: string[] = [];
  let removed = false;
  for (const edit of edits) {
    switch (edit.edit) {
      case 'remove-document':
        removed = true;
        break;
      case 'set':
        if (edit.value === undefined) {
          doc.deleteIn([edit.key]);
          break;
        }
        {
          // A scalar changes in place, so a comment on its line stays with it.
          const node = doc.getIn([edit.key], true);
          if (isScalar(node) && (edit.value === null || typeof edit.value !== 'object'))
            node.value = edit.value;
          else doc.setIn([edit.key], doc.createNode(edit.value));
        }
        break;
      case 'rename-field': {
        const map = fieldMap(doc, parentPath(edit.from));
        const pair = map?.items.find((p) => scalarOf(p.key) === leafOf(edit.from));
        if (pair === undefined || !isScalar(pair.key))
          skipped.push(`rename ${edit.from}: not in the manifest`);
        else pair.key.value = leafOf(edit.to);
        break;
      }
      case 'remove-field': {
        const map = fieldMap(doc, parentPath(edit.field));
        if (map === undefined || !map.delete(leafOf(edit.field)))
          skipped.push(`remove ${edit.field}: not in the manifest`);
        break;
      }
      case 'add-field': {
        const parent = parentPath(edit.field);
        let map = fieldMap(doc, parent);
        if (map === undefined && parent.length === 0) {
          doc.setIn(['fields'], doc.createNode({}));
          map = fieldMap(doc, parent);
        }
        if (map === undefined) skipped.push(`add ${edit.field}: its parent is not in the manifest`);
        else map.set(leafOf(edit.field), doc.createNode(edit.value));
        break;
      }
    }
  }
  const kept = removed ? list.filter((_, i) => i !== index) : list;
  if (kept.length === 0) return { text: null, skipped };
  return { text: kept.map((d) => d.toString({ lineWidth: 0 })).join(''), skipped };
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
