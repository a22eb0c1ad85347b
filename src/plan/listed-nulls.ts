import type { LiveProject } from '../api/live.js';
import type { DesiredProject } from '../model/desired.js';
import { PROJECT_FIELDS } from '../model/project-fields.js';
import type { ProjectDefinition, ProjectState, State } from '../state/model.js';
import { sameFieldValue } from './plan-context.js';
import { projectPayload } from './plan-project.js';

/**
 * The listed projects to read again by id before anything is planned from them: those a manifest or state speaks
 * for whose list item says null for a compared value (the project-fields table reads such a null as the service's
 * default, or as no webhook or no schedule) where that reading differs from what the manifest asks or state last
 * applied. A list may be a summary that says null for what it leaves out, while the project holds the value: read
 * from the list, every plan would send the same PATCH again, and `drift --accept` would write the defaults into
 * the manifest. A null that reads as the value wanted changes nothing, nor does one of a key the manifest ignores
 * (`ignored` by address, besides each declared project's own): an unchanged workspace costs no read.
 */
export function projectsToReadAgain(
  listed: readonly LiveProject[],
  declared: readonly DesiredProject[],
  state: State,
  ignored: Readonly<Record<string, readonly string[]>> = {},
): number[] {
  const declaredAt = new Map<string, DesiredProject>();
  for (const project of declared) declaredAt.set(project.address, project);
  const managed = new Map<number, { address: string; recorded: ProjectState }>();
  for (const [address, recorded] of Object.entries(state.resources))
    if (recorded.kind === 'Project') managed.set(recorded.id, { address, recorded });
  const unmanagedByName = new Map<string, DesiredProject>();
  for (const project of declared)
    if (state.resources[project.address] === undefined) unmanagedByName.set(project.name, project);
  const ids: number[] = [];
  for (const live of listed) {
    const listedNulls = nullKeys(live);
    if (listedNulls.length === 0) continue;
    const { address, recorded } = managed.get(live.id) ?? {};
    const desired =
      address !== undefined
        ? declaredAt.get(address)
        : live.name !== undefined
          ? unmanagedByName.get(live.name)
          : undefined;
    // Keys a manifest ignores (`lifecycle.ignore_changes`) are neither planned nor drift: no read for them.
    const skipped = new Set<string>([
      ...(desired?.ignoreChanges ?? []),
      ...(address !== undefined ? (ignored[address] ?? []) : []),
    ]);
    const nulls = listedNulls.filter((key) => !skipped.has(key));
    const wanted: ProjectDefinition[] = [
      ...(desired !== undefined ? [projectPayload(desired)] : []),
      ...(recorded !== undefined ? [recorded.definition] : []),
    ];
    const differs = nulls.some((key) => {
      const read = PROJECT_FIELDS[key].read(live);
      return wanted.some((definition) => key in definition && !sameFieldValue(key, definition[key], read));
    });
    if (differs) ids.push(live.id);
  }
  return ids;
}

type FieldKey = keyof typeof PROJECT_FIELDS;

/** The compared fields whose reading comes from a null in the answer: without its nulls, the answer says nothing. */
export function nullKeys(live: LiveProject): FieldKey[] {
  if (!Object.values(live).includes(null)) return [];
  const without = withoutNulls(live);
  return (Object.keys(PROJECT_FIELDS) as FieldKey[]).filter((key) => {
    const rule: { compared: boolean; read: (live: Readonly<Record<string, unknown>>) => unknown } =
      PROJECT_FIELDS[key];
    return rule.compared && rule.read(live) !== undefined && rule.read(without) === undefined;
  });
}

/** An answer without its top-level keys that say null. */
export function withoutNulls<T extends Record<string, unknown>>(answer: T): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(answer)) if (value !== null) out[key] = value;
  return out as T;
}
