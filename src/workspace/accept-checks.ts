import { readFile } from 'node:fs/promises';
import { editManifestText } from '../manifest/edit-manifest.js';
import type { ManifestEdit, ManifestTarget } from '../manifest/edit-manifest.js';
import { environmentsReading } from '../manifest/environment-reach.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import type { DesiredField, DesiredParser, DesiredProject } from '../model/desired.js';
import { PLACEHOLDER_DESCRIPTION } from '../model/vocabulary.js';
import { parentOf } from '../plan/diff-fields.js';
import type { DriftReport, ObjectDrift } from '../plan/drift.js';
import { planMoves } from '../plan/plan-moves.js';
import type { State } from '../state/model.js';

/**
 * A drifted object accepting may take: its manifest (when one declares it) and the edits that make it say the live
 * shape.
 */
export interface AcceptCandidate {
  entry: ObjectDrift;
  declared: DesiredParser | DesiredProject | undefined;
  edits: ManifestEdit[];
}

/**
 * Why `drift --accept` would leave each drifted object as it is, by address, beyond what the drift itself says
 * (`accept.possible`): an input list read from a file, an object made by for_each, a document another environment
 * of scrapeform.yaml reads too, and every edit the manifests' text refuses (a value written with a reference, a
 * field a template declares), found by making the edits in memory. One function for both the report (`drift`
 * shows the cost of accepting only what can be) and `--accept` (which refuses the same objects, and checks again
 * what it writes). Reads the manifest files; writes nothing.
 */
export async function acceptRefusals(
  manifests: LoadedManifests,
  report: DriftReport,
  state: State,
): Promise<Map<string, string>> {
  const refusals = new Map<string, string>();
  const candidates: AcceptCandidate[] = [];
  const declaredAt = declaredFor(manifests, state);
  for (const entry of report.drift) {
    if (!entry.accept.possible || entry.accepted === undefined) continue;
    const declared = declaredAt(entry.address);
    if (declared === undefined) continue;
    if (declared.kind === 'Project' && declared.inputFile !== undefined && touches(entry, 'projectInput')) {
      refusals.set(
        entry.address,
        `its input list is read from ${declared.inputFile}; edit that file by hand, or revert with apply`,
      );
      continue;
    }
    const edits = manifestEdits(entry);
    if (edits.length === 0) continue;
    const refused = documentRefusal(entry, declared, manifests);
    if (refused !== undefined) refusals.set(entry.address, refused);
    else candidates.push({ entry, declared, edits });
  }
  for (const [address, reasons] of await refusedEdits(candidates)) refusals.set(address, reasons.join('; '));
  return refusals;
}

/**
 * The manifest object that declares what state knows at an address: the one declared there, or the one a `moved:`
 * hint renames it to while state still holds it at its old address (no apply moved it yet). The next plan moves
 * the state first and compares the object with that manifest (planMoves, the same function), so that is the one to
 * edit: accepting at the old address alone, the next plan reverted what was accepted (a field removed by hand put
 * back, a regeneration; a parser deleted by hand created again, ~30,000 credits each).
 */
export function declaredFor(
  manifests: LoadedManifests,
  state: State,
): (address: string) => DesiredParser | DesiredProject | undefined {
  const objects = [...manifests.parsers, ...manifests.projects];
  const renamed = new Map(planMoves(state, objects).moves.map((m) => [m.from, m.to]));
  return (address) => {
    const at = renamed.get(address) ?? address;
    return objects.find((m) => m.address === at);
  };
}

/** The report with each refused object's accept marked not possible, saying why. */
export function withAcceptRefusals(report: DriftReport, refusals: ReadonlyMap<string, string>): DriftReport {
  if (refusals.size === 0) return report;
  return {
    ...report,
    drift: report.drift.map((entry) => {
      const why = refusals.get(entry.address);
      return why === undefined
        ? entry
        : { ...entry, accept: { ...entry.accept, possible: false, note: why } };
    }),
  };
}

/** Why an object's own document may not be edited at all: one document makes several objects. */
function documentRefusal(
  entry: ObjectDrift,
  declared: DesiredParser | DesiredProject,
  manifests: LoadedManifests,
): string | undefined {
  const element = declared.source.origin?.find((o) => o.role === 'for_each');
  if (element !== undefined)
    return `made by for_each (${element.label} at ${element.file}:${element.line}), whose document makes every element's object: an edit there would change them all; ${entry.drift === 'deleted' ? 'take the element out of the for_each list by hand, then accept again' : 'edit the manifest by hand'}, or revert with apply`;
  const readers = environmentsReading(declared.source.file, manifests.otherEnvironments ?? [], {
    projectFile: manifests.projectFile,
  });
  if (readers.length === 0) return undefined;
  const named = `${readers.length === 1 ? 'environment' : 'environments'} ${readers.map((r) => `"${r}"`).join(', ')}`;
  const place = `${declared.source.file}:${declared.source.line}`;
  return entry.drift === 'deleted'
    ? `its document at ${place} is read by ${named} too, whose next plan would delete ${readers.length === 1 ? 'its' : 'their'} object if it went; remove it by hand if no environment needs it, give each environment its own file, or revert with apply`
    : `its document at ${place} is read by ${named} too, whose next plan would change ${readers.length === 1 ? 'its' : 'their'} object to match; edit the manifest by hand (a variable for what differs between environments), give each environment its own file, or revert with apply`;
}

/** The edits the manifests' text refuses, made in memory file by file, with why, by address. */
async function refusedEdits(candidates: readonly AcceptCandidate[]): Promise<Map<string, string[]>> {
  const refused = new Map<string, string[]>();
  const byFile = new Map<string, AcceptCandidate[]>();
  for (const c of candidates) {
    const file = (c.declared as DesiredParser | DesiredProject).source.file;
    byFile.set(file, [...(byFile.get(file) ?? []), c]);
  }
  const templates = await templateTexts(candidates);
  for (const [file, inFile] of byFile) {
    // A file that cannot be read now is left to --accept, which reads it again and says so.
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text === undefined) continue;
    const edited = editManifestText(
      file,
      text,
      inFile.map((c) => manifestTarget(c, templates)),
    );
    for (const [index, reasons] of edited.refused)
      refused.set((inFile[index] as AcceptCandidate).entry.address, reasons);
  }
  return refused;
}

/** The text of every template the candidates extend, by file. */
export async function templateTexts(candidates: readonly AcceptCandidate[]): Promise<Map<string, string>> {
  const templates = new Map<string, string>();
  for (const { declared } of candidates) {
    for (const origin of declared?.source.origin ?? []) {
      if (origin.role === 'extends' && !templates.has(origin.file))
        templates.set(origin.file, await readFile(origin.file, 'utf8'));
    }
  }
  return templates;
}

export function manifestTarget(
  candidate: AcceptCandidate,
  templates: ReadonlyMap<string, string>,
): ManifestTarget {
  const source = (candidate.declared as DesiredParser | DesiredProject).source;
  return {
    kind: candidate.entry.kind,
    line: source.line,
    column: source.column,
    edits: candidate.edits,
    templates: (source.origin ?? [])
      .filter((o) => o.role === 'extends')
      .map((o) => ({
        label: o.label,
        file: o.file,
        text: templates.get(o.file) ?? '',
        line: o.line,
        column: o.column,
      })),
  };
}

function touches(entry: ObjectDrift, key: string): boolean {
  return entry.changes.some((c) => c.change === 'edit' && c.key === key);
}

/** The manifest edits that make a document say what the live object is. */
export function manifestEdits(entry: ObjectDrift): ManifestEdit[] {
  if (entry.drift === 'deleted') return [{ edit: 'remove-document' }];
  const accepted = entry.accepted;
  const edits: ManifestEdit[] = [];
  for (const change of entry.changes) {
    switch (change.change) {
      case 'rename':
        edits.push({ edit: 'rename-field', from: change.from, to: change.to });
        break;
      case 'remove':
        edits.push({ edit: 'remove-field', field: change.field });
        break;
      case 'add': {
        const fields = accepted?.kind === 'Parser' ? (accepted.definition?.fields ?? []) : [];
        edits.push({ edit: 'add-field', field: change.field, value: writtenField(fields, change.field) });
        break;
      }
      case 'edit': {
        // No webhook is written as no key (a key dropped from a manifest is reset to none: the same thing).
        edits.push({ edit: 'set', key: change.key, value: change.live ?? undefined });
        break;
      }
    }
  }
  return edits;
}

/** A new field as a manifest writes it: the placeholder description, and its children nested under `fields`. */
function writtenField(fields: readonly DesiredField[], name: string): Record<string, unknown> {
  const children = fields.filter((f) => parentOf(f.name) === name);
  const own = fields.find((f) => f.name === name);
  return {
    description: own?.description ?? PLACEHOLDER_DESCRIPTION,
    ...(children.length > 0
      ? {
          fields: Object.fromEntries(
            children.map((c) => [c.name.slice(name.length + 1), writtenField(fields, c.name)]),
          ),
        }
      : own?.type !== undefined
        ? { type: own.type }
        : {}),
  };
}
