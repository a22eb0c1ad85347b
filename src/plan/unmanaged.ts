import type { DesiredParser, DesiredProject } from '../model/desired.js';
import type { State } from '../state/model.js';
import type { LiveSnapshot } from './model.js';

/** Live objects in neither state nor manifests: scrapeform never touches them (`plan --show-unmanaged`). */
export function listUnmanaged(
  live: LiveSnapshot,
  state: State,
  desired: { parsers: readonly DesiredParser[]; projects: readonly DesiredProject[] },
): string[] {
  const managed = new Set(Object.values(state.resources).map((r) => String(r.id)));
  const parserNames = new Set(desired.parsers.map((p) => p.name));
  const projectNames = new Set(desired.projects.map((p) => p.name));
  return [
    ...live.parsers
      .filter((p) => !managed.has(p.id) && !parserNames.has(p.name))
      .map((p) => `parser "${p.name}" (${p.id}, version ${p.version}, ${p.status})`),
    ...live.projects
      .filter((p) => !managed.has(String(p.id)) && !projectNames.has(p.name ?? ''))
      .map((p) => `project "${p.name ?? ''}" (${p.id})`),
  ];
}
