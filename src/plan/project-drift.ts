import type { LiveProject } from '../api/live.js';
import { REDACTED } from '../api/redact.js';
import { PROJECT_FIELDS, projectFieldRule } from '../model/project-fields.js';
import { projectPath, PROJECTS_PATH } from '../model/wire.js';
import type { ProjectState } from '../state/model.js';
import { FREE } from './drift-report.js';
import type { DriftChange, ObjectDrift } from './drift-report.js';
import type { LiveIndex } from './plan-context.js';
import { sameFieldValue, sameJson, stable } from './plan-context.js';

/**
 * The keys of a project that differ live from what state records because the service did not take them when
 * scrapeform last sent them (ProjectState.refused: a schedule it answered otherwise), and still reports what it
 * answered then: no edit made outside scrapeform.
 */
export function refusedKeys(recorded: ProjectState, keys: readonly string[], live: LiveProject): string[] {
  const refused = recorded.refused;
  if (refused === undefined) return [];
  return keys.filter((key) => key in refused && sameJson(refused[key], projectFieldRule(key)?.read(live)));
}

/** What a plan and drift say of keys the service did not take (refusedKeys). */
export function notTakenStory(recorded: ProjectState, keys: readonly string[], live: LiveProject): string {
  const values = (read: (key: string) => unknown): string =>
    keys.map((key) => `${key} = ${stable(read(key) ?? null)}`).join(', ');
  return `the service did not take ${values((key) => recorded.definition[key])} when scrapeform last sent ${keys.length === 1 ? 'it' : 'them'}, and reports ${values((key) => projectFieldRule(key)?.read(live))}`;
}

export function projectDrift(
  address: string,
  recorded: ProjectState,
  index: LiveIndex,
  ignored: readonly string[],
): ObjectDrift | undefined {
  const common = { address, kind: 'Project' as const, name: recorded.name, id: recorded.id };
  const live = index.projectById.get(recorded.id);
  if (live === undefined) {
    return {
      ...common,
      drift: 'deleted',
      message: `project ${recorded.id} was archived outside scrapeform`,
      changes: [],
      revert: {
        ...FREE,
        calls: 1,
        requests: [{ method: 'POST', path: PROJECTS_PATH, body: recorded.definition }],
        note: 'created again under a new id (an archive cannot be undone through the API)',
      },
      accept: {
        ...FREE,
        possible: true,
        placeholders: [],
        note: 'dropped from state; its manifest document is removed',
      },
      accepted: null,
    };
  }
  const changes: DriftChange[] = [];
  for (const [key, value] of Object.entries(recorded.definition)) {
    if (ignored.includes(key)) continue;
    const rule = projectFieldRule(key);
    if (rule === undefined || !rule.compared) continue;
    // A key the answer leaves out is a short answer, not a change (issue 13: absent is not a default).
    const reported = rule.read(live);
    if (reported === undefined) continue;
    // What the service answered the last time this value was sent (it did not take it, `held`): no edit made
    // outside scrapeform, as the plan says too; reverting it would send what the service refuses again.
    const held = recorded.held;
    if (held !== undefined && key in held && sameJson(held[key], reported)) continue;
    if (!sameFieldValue(key, value, reported))
      changes.push({ change: 'edit', key, state: value, live: reported });
  }
  // Scheduling turned on by hand where none was asked: the interval it runs at comes with it.
  if (
    changes.some((c) => c.change === 'edit' && c.key === 'schedulingEnabled' && c.live === true) &&
    !('scrapingInterval' in recorded.definition)
  ) {
    changes.push({
      change: 'edit',
      key: 'scrapingInterval',
      state: undefined,
      live: PROJECT_FIELDS.scrapingInterval.read(live),
    });
  }
  if (changes.length === 0) return undefined;
  const revertBody = Object.fromEntries(
    changes.flatMap((c) => (c.change === 'edit' ? [[c.key, c.state] as const] : [])),
  );
  const renamed = changes.some((c) => c.change === 'edit' && c.key === 'name');
  // A value the service holds with the API key in it is read as *** (transport.ts, withoutKey): accepted, the
  // manifest and state would say ***, the next plan would match the redacted live value, and the key would stay.
  const keyed =
    live.keyRedacted === true
      ? changes.flatMap((c) => (c.change === 'edit' && stable(c.live).includes(REDACTED) ? [c.key] : []))
      : [];
  const refused = renamed
    ? 'a new name is a new address: rename the manifest by hand'
    : keyed.length > 0
      ? `${keyed.join(', ')} ${keyed.length === 1 ? 'holds' : 'hold'} the API key (shown as ${REDACTED}), which scrapeform never writes to manifests or state; take the key out of it in the service (the next plan then puts back the manifest's value), or revert with apply`
      : undefined;
  const edited = changes.flatMap((c) => (c.change === 'edit' ? [c.key] : []));
  const notTaken = refusedKeys(recorded, edited, live);
  // The interval that comes with scheduling the service did not turn off is the service's doing too.
  const withRefused = (key: string): boolean =>
    key === 'scrapingInterval' &&
    !('scrapingInterval' in recorded.definition) &&
    notTaken.includes('schedulingEnabled');
  const byHand = edited.filter((key) => !notTaken.includes(key) && !withRefused(key));
  return {
    ...common,
    drift: 'edited',
    message: [
      ...(byHand.length > 0 ? [`edited outside scrapeform: ${byHand.join(', ')}`] : []),
      ...(notTaken.length > 0 ? [notTakenStory(recorded, notTaken, live)] : []),
    ].join('; '),
    changes,
    revert: {
      ...FREE,
      calls: 1,
      requests: [{ method: 'PATCH', path: projectPath(recorded.id), body: revertBody }],
    },
    accept: {
      ...FREE,
      possible: refused === undefined,
      placeholders: [],
      ...(refused !== undefined ? { note: refused } : {}),
    },
    ...(refused !== undefined
      ? {}
      : {
          accepted: {
            ...recorded,
            definition: {
              ...recorded.definition,
              ...Object.fromEntries(
                changes.flatMap((c) => (c.change === 'edit' ? [[c.key, c.live] as const] : [])),
              ),
            },
          },
        }),
  };
}
