import { readFile, rm, writeFile } from 'node:fs/promises';
import { editManifestText } from '../manifest/edit-manifest.js';
import type { ManifestEdit, ManifestTarget } from '../manifest/edit-manifest.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import type { DesiredField, DesiredParser, DesiredProject } from '../model/desired.js';
import { projectFieldRule } from '../model/project-fields.js';
import { projectPayload } from '../plan/build-plan.js';
import { sameJson } from '../plan/plan-context.js';
import { PLACEHOLDER_DESCRIPTION } from '../model/vocabulary.js';
import { parentOf } from '../plan/diff-fields.js';
import type { DriftReport, ObjectDrift } from '../plan/drift.js';
import type { ResourceState } from '../state/model.js';
import { detectWorkspaceDrift } from './detect-drift.js';
import type { Workspace } from './open-workspace.js';

export interface AcceptDriftOptions {
  /** Only these addresses (`--target`); every drifted object when empty. */
  targets?: readonly string[];
}

export interface AcceptedDrift {
  /** The drift found (under the lock) before accepting it. */
  report: DriftReport;
  /** Addresses whose live shape state now records. */
  accepted: string[];
  /**
   * Drift left as it is, with why (still generating, a renamed project, a list read from a file, an edit refused
   * or that did not take): state does not record it, and the manifests are as they were for it.
   */
  skipped: string[];
  /** Manifest files rewritten (or removed, when their only document went). */
  files: string[];
  /** `address: field` of each new field written with a placeholder description that validate warns about. */
  placeholders: string[];
}

/**
 * `drift --accept`: takes what changed outside scrapeform as the new truth. Under the state lock, finds the drift
 * again, rewrites the manifests it can (field names, nesting, project keys; a deleted object's document goes) with
 * the yaml Document API so comments stay, reads them again, and records the live shape in state only for the
 * objects whose manifests now declare it, so the next plan is empty. An object any of whose edits cannot be made
 * (a for_each element, a value written with a reference, a field a template declares) or did not take is not
 * accepted at all: state and its manifest stay as they were, and it is reported. The service never returns
 * descriptions: new fields get a placeholder. Never prints, never exits.
 */
export async function acceptDrift(ws: Workspace, options: AcceptDriftOptions = {}): Promise<AcceptedDrift> {
  // Checked before the lock and any call: every edit is checked by reading the manifests again.
  const reload = ws.reloadManifests;
  if (reload === undefined)
    throw new TypeError(
      'acceptDrift needs ws.reloadManifests (openWorkspace sets it) to check its manifest edits',
    );
  const lock = await ws.backend.lock('drift --accept');
  try {
    const { state, report } = await detectWorkspaceDrift(ws, {
      manifests: ws.manifests,
      ...(options.targets !== undefined ? { targets: options.targets } : {}),
    });
    const skipped: string[] = [];
    let candidates: Candidate[] = [];
    for (const entry of report.drift) {
      if (!entry.accept.possible || entry.accepted === undefined) {
        skipped.push(`${entry.address}: ${entry.accept.note ?? 'cannot be accepted'}`);
        continue;
      }
      const declared = [...ws.manifests.parsers, ...ws.manifests.projects].find(
        (m) => m.address === entry.address,
      );
      if (
        declared?.kind === 'Project' &&
        declared.inputFile !== undefined &&
        touches(entry, 'projectInput')
      ) {
        skipped.push(
          `${entry.address}: its input list is read from ${declared.inputFile}; edit that file by hand, or revert with apply`,
        );
        continue;
      }
      const edits = declared !== undefined ? manifestEdits(entry) : [];
      const element = declared?.source.origin?.find((o) => o.role === 'for_each');
      if (declared !== undefined && edits.length > 0 && element !== undefined) {
        skipped.push(
          `${entry.address}: made by for_each (${element.label} at ${element.file}:${element.line}), whose document makes every element's object: an edit there would change them all; ${entry.drift === 'deleted' ? 'take the element out of the for_each list by hand, then accept again' : 'edit the manifest by hand'}, or revert with apply`,
        );
        continue;
      }
      candidates.push({ entry, declared, edits });
    }
    // Manifests first: a run stopped between the two leaves state as it was, and accepting again finishes it.
    const files = await editUntilTaken(ws, reload, candidates, skipped);
    candidates = candidates.filter((c) => !files.failed.has(c.entry.address));
    const resources: Record<string, ResourceState> = { ...state.resources };
    for (const { entry } of candidates) {
      if (entry.accepted === null) delete resources[entry.address];
      else if (entry.accepted !== undefined) resources[entry.address] = entry.accepted;
    }
    if (candidates.length > 0) await ws.backend.write({ ...state, resources });
    return {
      report,
      accepted: candidates.map((c) => c.entry.address),
      skipped,
      files: files.changed,
      placeholders: candidates.flatMap(({ entry }) =>
        entry.accept.placeholders.map((f) => `${entry.address}: ${f}`),
      ),
    };
  } finally {
    await lock.release();
  }
}

/**
 * A drifted object accepting may take: its manifest (when one declares it) and the edits that make it say the live
 * shape.
 */
interface Candidate {
  entry: ObjectDrift;
  declared: DesiredParser | DesiredProject | undefined;
  edits: ManifestEdit[];
}

/**
 * Writes the edits of every candidate, reads the manifests again, and checks that each edited object now declares
 * the live values (`editNotTaken`). An object whose edit was refused or did not take is reported and left out, and
 * the files are written again without its edits, until every edit left took: state never records an edit that
 * did not take (a for_each name, a key a template supplies, a reference), which the next plan would revert.
 */
async function editUntilTaken(
  ws: Workspace,
  reload: () => Promise<LoadedManifests>,
  candidates: readonly Candidate[],
  skipped: string[],
): Promise<{ changed: string[]; failed: Set<string> }> {
  const failed = new Set<string>();
  const editing = (): Candidate[] =>
    candidates.filter((c) => c.declared !== undefined && c.edits.length > 0 && !failed.has(c.entry.address));
  if (editing().length === 0) return { changed: [], failed };
  const originals = new Map<string, string>();
  const templates = new Map<string, string>();
  for (const { declared } of editing()) {
    if (declared === undefined) continue;
    if (!originals.has(declared.source.file))
      originals.set(declared.source.file, await readFile(declared.source.file, 'utf8'));
    for (const origin of declared.source.origin ?? []) {
      if (origin.role === 'extends' && !templates.has(origin.file))
        templates.set(origin.file, await readFile(origin.file, 'utf8'));
    }
  }
  const onDisk = new Map<string, string | null>(originals);
  for (;;) {
    const byFile = new Map<string, Candidate[]>();
    for (const candidate of editing()) {
      const file = (candidate.declared as DesiredParser | DesiredProject).source.file;
      byFile.set(file, [...(byFile.get(file) ?? []), candidate]);
    }
    for (const [file, original] of originals) {
      const inFile = byFile.get(file) ?? [];
      const edited = editManifestText(
        file,
        original,
        inFile.map((c) => manifestTarget(c, templates)),
      );
      for (const [index, reasons] of edited.refused) {
        const address = (inFile[index] as Candidate).entry.address;
        failed.add(address);
        skipped.push(`${address}: ${reasons.join('; ')}`);
      }
      // Refused objects leave their documents as written; the others' edits stand.
      if (edited.text === onDisk.get(file)) continue;
      if (edited.text === null) await rm(file);
      else await writeFile(file, edited.text);
      onDisk.set(file, edited.text);
    }
    const left = editing();
    if (left.length === 0) break;
    const reloaded = await reload();
    const notTaken = left.flatMap((c) => {
      const why = editNotTaken(c, reloaded);
      return why === undefined ? [] : [{ address: c.entry.address, why }];
    });
    if (notTaken.length === 0) break;
    for (const { address, why } of notTaken) {
      failed.add(address);
      skipped.push(`${address}: ${why}; its manifest is left as it was`);
    }
  }
  const changed = [...originals].filter(([file, text]) => onDisk.get(file) !== text).map(([file]) => file);
  return { changed, failed };
}

function manifestTarget(candidate: Candidate, templates: ReadonlyMap<string, string>): ManifestTarget {
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

/**
 * Why the manifests read again do not declare what accepting records for an object, or undefined when they do:
 * only the values drift changed are compared, so a manifest edit not yet applied stays a change for the next plan.
 */
function editNotTaken(
  candidate: { entry: ObjectDrift; declared: { source: { file: string } } | undefined },
  reloaded: LoadedManifests,
): string | undefined {
  const { entry } = candidate;
  const errors = reloaded.diagnostics.filter((d) => d.severity === 'error');
  const own = errors.find((d) => d.file === candidate.declared?.source.file);
  const first = own ?? errors[0];
  if (first !== undefined)
    return `the manifests no longer load after the edit (${first.file}:${first.line}:${first.column} ${first.message})`;
  const desired = [...reloaded.parsers, ...reloaded.projects].find((m) => m.address === entry.address);
  if (entry.drift === 'deleted')
    return desired === undefined
      ? undefined
      : `removing its document did not take: it is still declared at ${desired.source.file}:${desired.source.line}`;
  if (desired === undefined) return 'no manifest declares it after the edit';
  const differs: string[] = [];
  if (desired.kind === 'Parser') {
    const names = new Set(desired.fields.map((f) => f.name));
    for (const change of entry.changes) {
      if (change.change === 'rename' && (!names.has(change.to) || names.has(change.from)))
        differs.push(`field ${change.from} renamed to ${change.to}`);
      if (change.change === 'remove' && names.has(change.field))
        differs.push(`field ${change.field} removed`);
      if (change.change === 'add' && !names.has(change.field)) differs.push(`field ${change.field} added`);
    }
  } else {
    const payload = projectPayload(desired);
    for (const change of entry.changes) {
      if (change.change !== 'edit') continue;
      const rule = projectFieldRule(change.key);
      const declared =
        change.key in payload
          ? payload[change.key]
          : rule?.resetWhenDropped === true
            ? rule.serviceDefault
            : undefined;
      if (!sameJson(declared ?? null, change.live ?? null)) differs.push(change.key);
    }
  }
  return differs.length === 0
    ? undefined
    : `after the edit its manifests still declare other values than the live ones for ${differs.join(', ')} (${desired.source.origin?.some((o) => o.role === 'extends') === true ? 'a template it extends may supply them' : 'edit the manifest by hand'})`;
}

function touches(entry: ObjectDrift, key: string): boolean {
  return entry.changes.some((c) => c.change === 'edit' && c.key === key);
}

/** The manifest edits that make a document say what the live object is. */
function manifestEdits(entry: ObjectDrift): ManifestEdit[] {
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
