import { ScrapeformError } from '../errors.js';
import { sameStateLocation } from '../model/state-location.js';
import { summarise } from './build-plan.js';
import { postsNewObject } from './model.js';
import { savedSelection } from './partial-plan.js';
import { stable } from './plan-context.js';
import { changeRecord, plannedRequests } from './plan-json.js';
import type { PlannedRequest } from './plan-json.js';
import type { StateIdentity } from '../state/model.js';
import type { Plan, PlanTarget, ResourceChange } from './model.js';

function describeTarget(target: PlanTarget): string {
  const where = `${target.parsers} and ${target.projects}`;
  return target.environment !== null ? `environment ${target.environment} (${where})` : where;
}

function describeState(state: StateIdentity): string {
  return `workspace ${state.workspace} (state ${state.location})`;
}

/**
 * Where the saved plan was made against where this run is: the environment and services, then the workspace and
 * state. A plan from before `target` or `target.state` were recorded is compared on what it has. One without the
 * state, made when its state did not exist yet (lineage ""), is refused: every state not yet written has that
 * fingerprint, so nothing ties it to this one; made against a written state, its lineage (a random id each state
 * gets on its first write) does.
 */
function targetMoved(saved: Plan, here: PlanTarget | undefined): string[] {
  const made = saved.fingerprint.target;
  if (here === undefined) return [];
  const moved: string[] = [];
  if (made !== undefined) {
    // (The account is judged before anything is read: refuseOtherAccount. Each plan has a salt of its own.)
    const { state: _madeState, account: _madeAccount, ...madeServices } = made;
    const { state: _hereState, account: _hereAccount, ...hereServices } = here;
    if (stable(madeServices) !== stable(hereServices))
      moved.push(`it was made for ${describeTarget(made)}, and this run is for ${describeTarget(here)}`);
  }
  if (here.state === undefined) return moved;
  if (made?.state !== undefined) {
    if (
      made.state.workspace !== here.state.workspace ||
      !sameStateLocation(made.state.location, here.state.location)
    )
      moved.push(
        `it was made for ${describeState(made.state)}, and this run is for ${describeState(here.state)}`,
      );
  } else if (saved.fingerprint.state_lineage === '') {
    moved.push(
      `it was saved by an earlier scrapeform, which did not record the workspace and state it was made for, before any state existed, so nothing ties it to ${describeState(here.state)}`,
    );
  }
  return moved;
}

/**
 * A saved plan made for another environment, service or state, or with the key of another account, is refused before
 * any call, a read included: its creates would land in this run's account, and its updates and deletes go by id to
 * whatever has that id there. Another environment says so first (its key is another one by design). `digest` is the
 * run's (create-clients.ts, accountDigest); a plan from before the account was recorded, or a run whose clients were
 * put together by hand, has no account to compare. refuseStalePlan checks the rest against a fresh plan.
 */
export function refuseOtherTarget(
  saved: Plan,
  here: PlanTarget | undefined,
  digest: ((salt: string) => string) | undefined,
): void {
  const moved = targetMoved(saved, here);
  if (moved.length > 0) throw stalePlan(moved);
  const made = saved.fingerprint.target?.account;
  if (made === undefined || digest === undefined || digest(made.salt) === made.sha256) return;
  throw new ScrapeformError(
    'apply.plan-stale',
    'refusing the saved plan: it was made with the API key of another account (its creates would land in this one, and its updates and deletes reach objects by id here); nothing was sent',
    {
      hint: 'apply it with the key it was made with, or plan --out again with this key and review the new plan',
    },
  );
}

/** Whether a change deletes a parser or archives a project: a delete, an archive, a replace (its old parser goes). */
function destroys(change: ResourceChange): boolean {
  return change.destructive || plannedRequests(change).some((r) => r.method === 'DELETE');
}

/**
 * A saved plan applies only to the state and live versions it was computed from (DESIGN section 4), and makes no
 * call a fresh plan would not. `protectedNow` holds the addresses `lifecycle.prevent_destroy` protects now
 * (record-protection.ts, protectedAddresses).
 */
export function refuseStalePlan(
  saved: Plan,
  fresh: Plan,
  state: { lineage: string; serial: number },
  protectedNow: ReadonlySet<string>,
): void {
  const moved = targetMoved(saved, fresh.fingerprint.target);
  // Every state not written yet has lineage "": one written since is the same state when the target says so.
  if (
    saved.fingerprint.state_lineage === '' &&
    state.lineage !== '' &&
    saved.fingerprint.target?.state !== undefined
  )
    moved.push(
      `the state was created since the plan was saved (serial ${saved.fingerprint.state_serial} -> ${state.serial})`,
    );
  else if (saved.fingerprint.state_lineage !== state.lineage)
    moved.push('the state is another one (lineage differs)');
  else if (saved.fingerprint.state_serial !== state.serial)
    moved.push(`the state moved (serial ${saved.fingerprint.state_serial} -> ${state.serial})`);
  const gone = new Set<string>();
  for (const [address, seen] of Object.entries(saved.fingerprint.live)) {
    const now = fresh.fingerprint.live[address];
    if (now === seen) continue;
    gone.add(address);
    moved.push(`${address} moved (${seen} -> ${now ?? 'gone'})`);
  }
  // A move is no call and no change, so nothing above stands for it unless its fingerprint does (said once, there):
  // one a fresh plan does not make (a file edited and given a new digest) would put state at an address no manifest
  // declares, and the next plan would delete the object and create it again.
  const freshMoves = new Set((fresh.moved ?? []).map((m) => stable(m)));
  for (const move of saved.moved ?? []) {
    if (!freshMoves.has(stable(move)) && !gone.has(move.to))
      moved.push(`${move.to}: the saved plan moves it from ${move.from}, and a fresh plan does not`);
  }
  // A create has no live version to fingerprint: one a fresh plan no longer makes (a list now shows what an
  // earlier run created, recovered by name) would be a second object.
  const creating = new Set(fresh.resource_changes.filter(postsNewObject).map((c) => c.address));
  for (const change of saved.resource_changes.filter(postsNewObject)) {
    if (!creating.has(change.address))
      moved.push(`${change.address}: the saved plan creates it and a fresh plan no longer does`);
  }
  // What approval reads (destructive, regenerations, the counts) must be what scrapeform plans, not what the file
  // says: a file edited and given a new digest could otherwise mark a delete as not destructive and be applied
  // without --allow-destroy, or hide regenerations from --max-regenerations. A change a fresh plan makes the same
  // way must carry the same marks. A delete, archive or replace goes ahead only when a fresh plan makes it too, and
  // never of an object prevent_destroy protects now: the manifest may have been restored with the protection since
  // the plan was saved (a fresh plan then has nothing to do), and a deleted parser cannot be brought back. Its
  // changes, by address and action, are a fresh plan's (leftOut for those it lacks): what a reviewer saw in full is
  // sent in full, or nothing is.
  const planned = new Map(fresh.resource_changes.map((c) => [c.address, c]));
  for (const change of saved.resource_changes) {
    const now = planned.get(change.address);
    // Whatever a fresh plan makes of it, a change acts on the object this run sees at its address: an edited file
    // could otherwise send a PATCH (or a DELETE) to another parser's id.
    const seen = objectIdOf(fresh.fingerprint.live[change.address]);
    if (change.id !== null && seen !== undefined && String(change.id) !== seen)
      moved.push(
        `${change.address}: the saved plan acts on ${String(change.id)}, and the object there is ${seen}`,
      );
    if (destroys(change) && protectedNow.has(change.address)) {
      moved.push(
        `${change.address}: the saved plan ${change.action}s it, and lifecycle.prevent_destroy protects it now`,
      );
    } else if (now !== undefined && now.action === change.action) {
      // (The id against a fresh plan's when the fingerprint does not say it, so it is said once.)
      for (const key of [
        'destructive',
        'regenerates',
        ...(seen === undefined ? (['id'] as const) : []),
      ] as const) {
        if (change[key] !== now[key])
          moved.push(
            `${change.address}: the saved plan has ${key} ${String(change[key])}, a fresh plan ${String(now[key])}`,
          );
      }
      moved.push(...otherCalls(change, now));
    } else if (change.action === 'record' && now?.kind === 'Parser' && now.action === 'update') {
      // --accept-unknown at plan time: what a fresh plan here sends to make the values live is recorded instead.
      if (stable(change.definition) !== stable(now.definition))
        moved.push(`${change.address}: the saved plan records another definition than a fresh plan`);
    } else if (
      destroys(change) ||
      // (A create a fresh plan no longer makes is said above, once.)
      (!(postsNewObject(change) && !creating.has(change.address)) &&
        (now !== undefined || !followsFromFlags(change) || seen === undefined))
    ) {
      moved.push(
        `${change.address}: the saved plan ${change.action}s it, and a fresh plan ${now === undefined ? 'makes no change to it' : `${now.action}s it`}`,
      );
    }
  }
  moved.push(...leftOut(saved, fresh));
  if (stable(saved.summary) !== stable(summarise(saved.resource_changes)))
    moved.push('its summary does not count its own changes');
  if (moved.length > 0) throw stalePlan(moved);
}

function stalePlan(moved: string[]): ScrapeformError {
  return new ScrapeformError('apply.plan-stale', `refusing the saved plan: ${moved.join('; ')}`, {
    hint: 'run scrapeform plan --out again and review the new plan',
    details: { moved },
  });
}

/**
 * A change the saved plan makes where a fresh plan here makes none: a parser update or record follows from
 * `--reassert` and `--accept-unknown` at plan time, which apply --plan does not take. Such an update is still held to
 * a fresh plan's when a fresh plan updates the parser too (otherCalls), and a record to its definition; and either is
 * taken only where a fresh plan sees that parser (its fingerprint, whose id is checked): every parser state manages
 * and the service shows has one, so a change at an address no fresh plan knows (a file edited to rename it) would
 * PATCH a parser and record it at an address no manifest declares, which the next plan deletes.
 */
function followsFromFlags(change: ResourceChange): boolean {
  return change.kind === 'Parser' && (change.action === 'update' || change.action === 'record');
}

/**
 * The changes a fresh plan makes at addresses where the saved plan makes none: a file edited (and given a new digest)
 * to leave out a create or an update would otherwise send part of what a reviewer saw, which no plan ever showed. A
 * plan made with `--target` or `--exclude` is held to the objects it chose; one narrowed by paths, which the file
 * does not list, to the objects it names (its changes and fingerprint) unless this run is narrowed by the same paths.
 */
function leftOut(saved: Plan, fresh: Plan): string[] {
  const selection = savedSelection(saved);
  const samePaths = selection.samePaths(fresh);
  const named = new Set([
    ...saved.resource_changes.map((c) => c.address),
    ...Object.keys(saved.fingerprint.live),
  ]);
  const changed = new Set(saved.resource_changes.map((c) => c.address));
  return fresh.resource_changes
    .filter(
      (c) => !changed.has(c.address) && selection.chose(c.address) && (samePaths || named.has(c.address)),
    )
    .map((c) => `${c.address}: a fresh plan ${c.action}s it, and the saved plan makes no change to it`);
}

/** The id in a fingerprint entry: `ID@VERSION` for a parser, `ID#DIGEST` for a project. */
function objectIdOf(entry: string | undefined): string | undefined {
  if (entry === undefined) return undefined;
  const cut = Math.max(entry.lastIndexOf('@'), entry.lastIndexOf('#'));
  return cut > 0 ? entry.slice(0, cut) : undefined;
}

/** One call as a message names it. */
const call = (r: PlannedRequest): string => `${r.method} ${r.path}`;

/**
 * What a change a fresh plan makes with the same action does otherwise: other calls (the manifests changed since the
 * plan was saved, or the file was edited and its digest computed again), or another record for state. A parser
 * update's bodies follow `--reassert` and `--accept-unknown`, which a fresh plan here does not have: only its calls'
 * paths (the parser and its versions) and the definition it records (the manifest's) are compared, and parsing
 * checked its bodies against that definition.
 */
function otherCalls(saved: ResourceChange, fresh: ResourceChange): string[] {
  const bodies = !(saved.kind === 'Parser' && saved.action === 'update');
  const sent = (c: ResourceChange): PlannedRequest[] =>
    plannedRequests(c).map((r) => (bodies ? r : { ...r, body: undefined }));
  const [ours, theirs] = [sent(saved), sent(fresh)];
  const out: string[] = [];
  for (let i = 0; i < Math.max(ours.length, theirs.length); i++) {
    const [a, b] = [ours[i], theirs[i]];
    if (stable(a) === stable(b)) continue;
    const why =
      a === undefined
        ? `a fresh plan also sends ${call(b as PlannedRequest)}`
        : b === undefined
          ? `${call(a)}, which a fresh plan does not send`
          : call(a) === call(b)
            ? `${call(a)} with another body`
            : `${call(a)}, where a fresh plan sends ${call(b)}`;
    out.push(`${saved.address}: the saved plan makes other calls than a fresh plan (${why})`);
    break;
  }
  // Which fields a parser update removes and renames follows from the definitions alone (--reassert re-sends
  // descriptions as modifies): a file edited to drop or rename another field, unseen in its field_changes, is refused.
  if (!bodies && stable(removesAndRenames(saved)) !== stable(removesAndRenames(fresh)))
    out.push(`${saved.address}: the saved plan removes or renames other fields than a fresh plan`);
  // A parser update's definition is the manifest's, whatever the flags: one edited since the plan was saved (the same
  // field declared again otherwise) would have apply send the reviewed body against a manifest that no longer says it.
  const recorded = (c: ResourceChange): unknown =>
    c.kind === 'Parser' && c.action === 'update' ? c.definition : changeRecord(c);
  if (stable(recorded(saved)) !== stable(recorded(fresh)))
    out.push(`${saved.address}: the saved plan records another definition than a fresh plan`);
  return out;
}

/** The fields a parser update's PATCHes remove and rename, in order; none for any other change. */
function removesAndRenames(change: ResourceChange): unknown[] {
  if (change.kind !== 'Parser' || change.action !== 'update') return [];
  return change.waves.flatMap((w) => [
    ...(w.remove_fields ?? []).map((name) => ({ remove: name })),
    ...(w.rename_fields ?? []).map((r) => ({ rename: r.name, to: r.new_name })),
  ]);
}
