import { readFile, rm, writeFile } from 'node:fs/promises';
import { editManifestText } from '../manifest/edit-manifest.js';
import type { ManifestEdit } from '../manifest/edit-manifest.js';
import type { DesiredField } from '../model/desired.js';
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
  /** Drift left as it is, with why (still generating, a renamed project, a list read from a file). */
  skipped: string[];
  /** Manifest files rewritten (or removed, when their only document went). */
  files: string[];
  /** `address: field` of each new field written with a placeholder description that validate warns about. */
  placeholders: string[];
}

/**
 * `drift --accept`: takes what changed outside scrapeform as the new truth. Under the state lock, finds the drift
 * again, rewrites the manifests it can (field names, nesting, project keys; a deleted object's document goes) with
 * the yaml Document API so comments stay, then records the live shape in state, so the next plan is empty. The
 * service never returns descriptions: new fields get a placeholder. Never prints, never exits.
 */
export async function acceptDrift(ws: Workspace, options: AcceptDriftOptions = {}): Promise<AcceptedDrift> {
  const lock = await ws.backend.lock('drift --accept');
  try {
    const { state, report } = await detectWorkspaceDrift(ws, {
      manifests: ws.manifests,
      ...(options.targets !== undefined ? { targets: options.targets } : {}),
    });
    const skipped: string[] = [];
    const accepted: string[] = [];
    const placeholders: string[] = [];
    const byFile = new Map<
      string,
      { target: { kind: 'Parser' | 'Project'; name: string }; edits: ManifestEdit[] }[]
    >();
    const resources: Record<string, ResourceState> = { ...state.resources };
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
      if (declared !== undefined) {
        const edits = manifestEdits(entry);
        if (edits.length > 0) {
          const list = byFile.get(declared.source.file) ?? [];
          list.push({ target: { kind: declared.kind, name: declared.name }, edits });
          byFile.set(declared.source.file, list);
        }
      }
      if (entry.accepted === null) delete resources[entry.address];
      else resources[entry.address] = entry.accepted;
      accepted.push(entry.address);
      placeholders.push(...entry.accept.placeholders.map((f) => `${entry.address}: ${f}`));
    }
    // Manifests first: a run stopped between the two leaves state as it was, and accepting again finishes it.
    const files: string[] = [];
    for (const [file, targets] of byFile) {
      let text: string | null = await readFile(file, 'utf8');
      for (const { target, edits } of targets) {
        if (text === null) break;
        const edited = editManifestText(text, target, edits);
        skipped.push(...edited.skipped.map((s) => `${file}: ${s}`));
        text = edited.text;
      }
      if (text === null) await rm(file);
      else await writeFile(file, text);
      files.push(file);
    }
    if (accepted.length > 0) await ws.backend.write({ ...state, resources });
    return { report, accepted, skipped, files, placeholders };
  } finally {
    await lock.release();
  }
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
