import type { DesiredField } from '../model/desired.js';
import type { FieldOperations } from '../model/wire.js';

/**
 * The fields after one PATCH, as the service applies it: removes (a parent takes its children), renames (a
 * parent's children follow), modifies, adds. Apply records this after each of several requests for one parser,
 * so state is true at every step.
 */
export function applyFieldOperations(fields: readonly DesiredField[], ops: FieldOperations): DesiredField[] {
  const under = (root: string, name: string): boolean => name === root || name.startsWith(`${root}.`);
  let out = fields.map((f) => ({ ...f }));
  for (const name of ops.remove_fields ?? []) out = out.filter((f) => !under(name, f.name));
  for (const { name, new_name: to } of ops.rename_fields ?? []) {
    out = out.map((f) => (under(name, f.name) ? { ...f, name: to + f.name.slice(name.length) } : f));
  }
  for (const modified of ops.modify_fields ?? [])
    out = out.map((f) => (f.name === modified.name ? { ...modified } : f));
  for (const added of ops.add_fields ?? []) out.push({ ...added });
  return out;
}
