import { fieldTree, flattenCompiled } from './extraction/fields.js';
import type { CompiledField, FieldSpec } from './extraction/fields.js';
import { HttpError } from './http.js';
import { checkFieldList } from './parser-validation.js';

/** The four field operations of one parser PATCH (seed 1, Updating a parser). */
export interface Operations {
  add: FieldSpec[];
  modify: FieldSpec[];
  rename: { name: string; new_name: string }[];
  remove: string[];
}

/** The operations of a PATCH body, each list checked: 400 naming the list for a malformed one. */
export function readOperations(body: Record<string, unknown>): Operations {
  const rename = body.rename_fields ?? [];
  if (
    !Array.isArray(rename) ||
    rename.some((r) => typeof r?.name !== 'string' || typeof r?.new_name !== 'string' || r.new_name === '')
  ) {
    throw new HttpError(400, 'rename_fields must be a list of {name, new_name}');
  }
  const remove = body.remove_fields ?? [];
  if (!Array.isArray(remove) || remove.some((r) => typeof r !== 'string')) {
    throw new HttpError(400, 'remove_fields must be a list of field names');
  }
  return {
    add: body.add_fields === undefined ? [] : checkFieldList(body.add_fields, 'add_fields'),
    modify: body.modify_fields === undefined ? [] : checkFieldList(body.modify_fields, 'modify_fields'),
    rename: rename as Operations['rename'],
    remove: remove as string[],
  };
}

/**
 * The emulator's reading of one PATCH (the seed leaves the order open, README says so): removes first (a parent
 * takes its children), then renames one after another (a parent's children follow it; the new name must be free
 * at that moment, so a swap goes through a temporary name), then modifies (by current names), then adds.
 * A field removed, modified or added twice, an unknown name or a taken name is a 400.
 */
export function applyOperations(
  base: readonly FieldSpec[],
  ops: Operations,
): { fields: FieldSpec[]; renamedFrom: Map<string, string> } {
  let fields = base.map((f) => ({ ...f }));
  const has = (name: string): boolean => fields.some((f) => f.name === name);
  const under = (name: string, field: FieldSpec): boolean =>
    field.name === name || field.name.startsWith(`${name}.`);
  const touched = new Set<string>();
  const touch = (name: string, op: string): void => {
    if (touched.has(name))
      throw new HttpError(
        400,
        `contradictory request: field ${name} is named by more than one operation (${op})`,
      );
    touched.add(name);
  };
  for (const name of ops.remove) {
    touch(name, 'remove_fields');
    if (!has(name)) throw new HttpError(400, `remove_fields: unknown field ${name}`);
    fields = fields.filter((f) => !under(name, f));
  }
  // current name -> name in the base version, to carry locators across renames.
  const origin = new Map<string, string>(fields.map((f) => [f.name, f.name]));
  for (const { name, new_name: newName } of ops.rename) {
    if (!has(name)) throw new HttpError(400, `rename_fields: unknown field ${name}`);
    if (has(newName)) throw new HttpError(400, `rename_fields: ${newName} already exists`);
    if (parentOf(name) !== parentOf(newName))
      throw new HttpError(400, `rename_fields: ${name} -> ${newName} moves the field to another parent`);
    fields = fields.map((f) => {
      if (!under(name, f)) return f;
      const renamed = newName + f.name.slice(name.length);
      origin.set(renamed, origin.get(f.name) ?? f.name);
      origin.delete(f.name);
      return { ...f, name: renamed };
    });
  }
  for (const spec of ops.modify) {
    touch(spec.name, 'modify_fields');
    const index = fields.findIndex((f) => f.name === spec.name);
    if (index < 0) throw new HttpError(400, `modify_fields: unknown field ${spec.name}`);
    fields[index] = spec;
  }
  for (const spec of ops.add) {
    touch(spec.name, 'add_fields');
    if (has(spec.name)) throw new HttpError(400, `add_fields: ${spec.name} already exists`);
    const parent = parentOf(spec.name);
    if (parent !== '' && !has(parent))
      throw new HttpError(400, `add_fields: ${spec.name} has no parent field ${parent}`);
    fields.push(spec);
  }
  const renamedFrom = new Map([...origin].filter(([now, before]) => now !== before));
  return { fields, renamedFrom };
}

function parentOf(name: string): string {
  const cut = name.lastIndexOf('.');
  return cut < 0 ? '' : name.slice(0, cut);
}

/** The compiled tree for renamed/removed fields, keeping each surviving field's locator. */
export function recompile(
  base: readonly CompiledField[],
  fields: readonly FieldSpec[],
  renamedFrom: Map<string, string>,
): CompiledField[] {
  const byName = new Map(flattenCompiled(base).map((f) => [f.name, f]));
  const { roots, children } = fieldTree(fields);
  const build = (spec: FieldSpec): CompiledField => {
    const old = byName.get(renamedFrom.get(spec.name) ?? spec.name);
    const kids = children.get(spec.name);
    return {
      key: spec.name.slice(spec.name.lastIndexOf('.') + 1),
      name: spec.name,
      ...(old?.type !== undefined ? { type: old.type } : {}),
      ...(old?.locator !== undefined ? { locator: old.locator } : {}),
      ...(kids !== undefined ? { children: kids.map(build) } : {}),
    };
  };
  return roots.map(build);
}
