import { readFile } from 'node:fs/promises';
import { editManifestText } from '../manifest/edit-manifest.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import type { DesiredParser, DesiredProject } from '../model/desired.js';
import { projectFieldRule } from '../model/project-fields.js';
import { projectPayload } from '../plan/build-plan.js';
import { sameJson } from '../plan/plan-context.js';
import { declaredFor, manifestEdits, manifestTarget, templateTexts } from './accept-checks.js';
import type { AcceptCandidate } from './accept-checks.js';
import type { DriftReport, ObjectDrift } from '../plan/drift.js';
import type { ResourceState } from '../state/model.js';
import { detectWorkspaceDrift } from './detect-drift.js';
import type { Workspace } from './open-workspace.js';
import { removeManifestFile, writeManifestFile } from './write-manifest.js';
import { whileHolding } from '../state/backend.js';

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
 * (a for_each element, a document another environment of scrapeform.yaml reads too, a value written with a
 * reference, a field a template declares: acceptRefusals) or did not take is not
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
  return whileHolding(lock, async () => {
    const { state, report } = await detectWorkspaceDrift(ws, {
      manifests: ws.manifests,
      ...(options.targets !== undefined ? { targets: options.targets } : {}),
    });
    const skipped: string[] = [];
    let candidates: AcceptCandidate[] = [];
    // An object a `moved:` hint renames (its state not moved yet) is accepted in the manifest at its new address.
    const declaredAt = declaredFor(ws.manifests, state);
    // detectWorkspaceDrift marked what cannot be accepted (acceptRefusals: for_each, a document another
    // environment reads, a reference…), as the report without --accept shows it.
    for (const entry of report.drift) {
      if (!entry.accept.possible || entry.accepted === undefined) {
        skipped.push(`${entry.address}: ${entry.accept.note ?? 'cannot be accepted'}`);
        continue;
      }
      const declared = declaredAt(entry.address);
      candidates.push({ entry, declared, edits: declared !== undefined ? manifestEdits(entry) : [] });
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
  });
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
  candidates: readonly AcceptCandidate[],
  skipped: string[],
): Promise<{ changed: string[]; failed: Set<string> }> {
  const failed = new Set<string>();
  const editing = (): AcceptCandidate[] =>
    candidates.filter((c) => c.declared !== undefined && c.edits.length > 0 && !failed.has(c.entry.address));
  if (editing().length === 0) return { changed: [], failed };
  const originals = new Map<string, string>();
  for (const { declared } of editing()) {
    if (declared !== undefined && !originals.has(declared.source.file))
      originals.set(declared.source.file, await readFile(declared.source.file, 'utf8'));
  }
  const templates = await templateTexts(editing());
  const onDisk = new Map<string, string | null>(originals);
  // The objects whose edits each file on disk holds, and those whose edits did not take.
  const holds = new Map<string, string[]>();
  const notTakenAt = new Set<string>();
  for (;;) {
    const byFile = new Map<string, AcceptCandidate[]>();
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
        const address = (inFile[index] as AcceptCandidate).entry.address;
        failed.add(address);
        skipped.push(`${address}: ${reasons.join('; ')}`);
      }
      // Refused objects leave their documents as written; the others' edits stand.
      if (edited.text === onDisk.get(file)) continue;
      const stale = [...holds.values()].flat().filter((address) => notTakenAt.has(address));
      const done = unfinishedWrite(file, originals, onDisk, stale);
      if (edited.text === null)
        await removeManifestFile(
          file,
          'whose only document was of an object deleted outside scrapeform',
          done,
        );
      else await writeManifestFile(file, edited.text, 'the accepted manifest', done);
      onDisk.set(file, edited.text);
      holds.set(
        file,
        inFile.map((c) => c.entry.address).filter((address) => !failed.has(address)),
      );
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
      notTakenAt.add(address);
      skipped.push(`${address}: ${why}; its manifest is left as it was`);
    }
  }
  const changed = [...originals].filter(([file, text]) => onDisk.get(file) !== text).map(([file]) => file);
  return { changed, failed };
}

/**
 * What a failed write or removal of `file` leaves (the `done` of its error): manifests are written before state, so
 * nothing is accepted, and accepting again finishes what was rewritten. A file written again after a check (an edit
 * that did not take is dropped) holds the first write, and `stale` names the objects whose edits did not take but
 * are still on disk, which accepting again would not take out.
 */
function unfinishedWrite(
  file: string,
  originals: ReadonlyMap<string, string>,
  onDisk: ReadonlyMap<string, string | null>,
  stale: readonly string[],
): string {
  const before = [...originals].filter(([f, text]) => f !== file && onDisk.get(f) !== text).length;
  const head = `${onDisk.get(file) !== originals.get(file) ? 'the file holds the edits this run wrote first' : 'the file is unchanged'}, and nothing was accepted`;
  const others = `${before} other manifest${before === 1 ? ' was' : 's were'} rewritten`;
  if (stale.length === 0)
    return before === 0 ? head : `${head} (${others}: run drift --accept again to finish)`;
  const one = stale.length === 1;
  return `${head}${before === 0 ? '' : ` (${others})`}; the edit${one ? '' : 's'} of ${stale.join(', ')} did not take and ${one ? 'is' : 'are'} still written: take ${one ? 'it' : 'them'} out by hand, then run drift --accept again to finish`;
}

/**
 * Why the manifests read again do not declare what accepting records for an object, or undefined when they do:
 * only the values drift changed are compared, so a manifest edit not yet applied stays a change for the next plan.
 */
function editNotTaken(
  candidate: { entry: ObjectDrift; declared: { address: string; source: { file: string } } | undefined },
  reloaded: LoadedManifests,
): string | undefined {
  const { entry } = candidate;
  const errors = reloaded.diagnostics.filter((d) => d.severity === 'error');
  const own = errors.find((d) => d.file === candidate.declared?.source.file);
  const first = own ?? errors[0];
  if (first !== undefined)
    return `the manifests no longer load after the edit (${first.file}:${first.line}:${first.column} ${first.message})`;
  // Where a `moved:` hint renames it, the manifest edited declares it at its new address.
  const address = candidate.declared?.address ?? entry.address;
  const desired = [...reloaded.parsers, ...reloaded.projects].find((m) => m.address === address);
  if (entry.drift === 'deleted')
    return desired === undefined
      ? undefined
      : `removing its document did not take: it is still declared at ${desired.source.file}:${desired.source.line}`;
  if (desired === undefined) return 'no manifest declares it after the edit';
  const beside = changedBeside(
    candidate.declared as DesiredParser | DesiredProject | undefined,
    desired,
    entry,
  );
  if (beside.length > 0)
    return `the edit also changed ${beside.join(', ')}, which did not drift: the edited map is shared with another place (a YAML anchor and its alias, or a merge key), so the edit went there too (edit the manifest by hand)`;
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

/**
 * The fields of a parser the edit changed besides those that drifted: declared otherwise after the edit than before
 * it, though no change names them. An edit made in a fields map that a YAML anchor shares (`fields: &columns`, with
 * `*columns` elsewhere in the parser) lands in every place using it: a field added out of band to `reviews` was added
 * to `answers` too, which the next plan then added to the parser, a paid regeneration. (A project's keys are read
 * through its payload, where one key sets another, such as a schedule; an anchor there costs no generation.)
 */
function changedBeside(
  before: DesiredParser | DesiredProject | undefined,
  after: DesiredParser | DesiredProject,
  entry: ObjectDrift,
): string[] {
  if (before?.kind !== 'Parser' || after.kind !== 'Parser') return [];
  const named = entry.changes.flatMap((c) =>
    c.change === 'rename' ? [c.from, c.to] : c.change === 'add' || c.change === 'remove' ? [c.field] : [],
  );
  const touched = (name: string): boolean => named.some((n) => name === n || name.startsWith(`${n}.`));
  const shown = (fields: DesiredParser['fields']): Map<string, string> =>
    new Map(fields.filter((f) => !touched(f.name)).map((f) => [f.name, JSON.stringify(f)]));
  const was = shown(before.fields);
  const now = shown(after.fields);
  return [...new Set([...was.keys(), ...now.keys()])]
    .filter((name) => was.get(name) !== now.get(name))
    .map((name) => `field ${name}`);
}
