import type { LiveParserSummary } from '../api/live.js';
import { byCodeUnit } from '../code-unit-order.js';
import { ScrapeformError } from '../errors.js';
import { narrowedSelects } from '../model/desired.js';
import type { DesiredParser, DesiredProject, Narrowing } from '../model/desired.js';
import type { State } from '../state/model.js';
import {
  CREDITS_PER_GENERATION,
  NO_PATH_SELECTS,
  PLAN_FORMAT_VERSION,
  postsNewObject,
  UNCONFIRMED_PATCH_REASON,
  UNCONFIRMED_REASON,
} from './model.js';
import type { DriftEntry, LiveSnapshot, Plan, PlannedExpectCheck, ResourceChange } from './model.js';
import { indexLive, managedIds, unmanagedParsersNamed } from './plan-context.js';
import { deletingUnreadWarnings, deletingWarning, shownWhileDeleting } from './deleting.js';
import type { Context } from './plan-context.js';
import { affectedExpectChecks } from './affected-checks.js';
import { partialPlanWarning, planSelection } from './partial-plan.js';
import { planParser } from './plan-parser.js';
import { planMoves } from './plan-moves.js';
import { planProject } from './plan-project.js';
import { latestVersions } from './latest-versions.js';
import { expectedPatchVersion, recoverIntents } from './recover-intents.js';
import { vanishedAgain, vanishedKinds } from './vanished.js';
import { unseenForget } from './unseen-create.js';

export { projectPayload } from './plan-project.js';
export { stable } from './plan-context.js';

export interface PlanOptions {
  /** Only these addresses (`parser.books`, `project.nightly`); all when empty. */
  targets?: readonly string[];
  excludes?: readonly string[];
  /** Addresses whose declared field definitions are sent once as modify_fields. */
  reassert?: readonly string[];
  /**
   * Parsers whose values never seen (import) are confirmed live: the manifest's values for them are recorded in
   * state, with no call (`--accept-unknown`).
   */
  acceptUnknown?: readonly string[];
  /**
   * apply's `--recreate`: not a planning choice (approval.ts checks the plan against it), only checked like the
   * others to name something declared or managed, so a typo is an error rather than a refusal that names the
   * right address.
   */
  recreate?: readonly string[];
  /** apply's `--forget`: as `recreate`, checked against the plan by approval.ts (checkForgets). */
  forget?: readonly string[];
  /**
   * Paths named with `--env` (loadManifests' `narrowedTo`): only the objects declared in files under them are
   * planned, a partial plan as with `--target`; nothing else is changed, deleted or archived.
   */
  narrowedTo?: Narrowing;
  /** The clock the age of a parser still being deleted is told by (plan/deleting.ts); Date.now when not given. */
  now?: () => number;
}

export interface PlanInput {
  parsers: readonly DesiredParser[];
  projects: readonly DesiredProject[];
  state: State;
  live: LiveSnapshot;
  options?: PlanOptions;
  /** The run's key is not the one that last applied this state (state-account.ts): see vanishedKinds. */
  keyChanged?: boolean;
}

/** Which parser details the planner needs beyond the list: objects to adopt, and versions that moved. */
export function detailsNeeded(
  parsers: readonly DesiredParser[],
  state: State,
  list: readonly LiveParserSummary[],
): string[] {
  const needed = new Set<string>();
  // A parser an interrupted create made is recorded with its version pending: no details needed to adopt it.
  const recovered = planMoves(recoverIntents(state, { parsers: list, projects: [] }).state, parsers).state;
  const managed = managedIds(recovered);
  const index = indexLive({ parsers: list, projects: [] });
  for (const desired of parsers) {
    const recorded = recovered.resources[desired.address];
    if (recorded === undefined) {
      const matches = unmanagedParsersNamed(index, managed, desired.name);
      if (matches.length === 1 && matches[0] !== undefined) needed.add(matches[0].id);
      continue;
    }
    if (recorded.kind !== 'Parser') continue;
    const live = index.parserById.get(recorded.id);
    if (live === undefined) continue;
    const known = [recorded.version, recorded.pending?.version, recorded.failed?.version].filter(
      (v) => v !== null && v !== undefined,
    );
    if (!known.includes(live.version)) needed.add(live.id);
    // A list may lag behind a PATCH as behind a create: a version scrapeform made (pending, announced by the
    // service's answer) or may have made (a PATCH whose answer was lost) that the list does not show yet is looked
    // for in the details, read by id, before anything is sent again.
    const ahead = Math.max(recorded.pending?.version ?? -1, expectedPatchVersion(recorded) ?? -1);
    if (live.version < ahead) needed.add(live.id);
  }
  return [...needed];
}

/**
 * Why each parser's update may send again a PATCH that already landed, by address: a PATCH whose answer was lost
 * (its intent marked sent) or a version the service announced (pending), that neither the list nor the parser's
 * details show yet. Details lag too on some services; a PATCH sent twice pays two generations.
 */
function unconfirmedPatches(
  state: State,
  index: ReturnType<typeof indexLive>,
  lostAnswers: ReadonlyMap<string, string>,
): Map<string, string> {
  const out = new Map<string, string>();
  for (const [address, recorded] of Object.entries(state.resources)) {
    if (recorded.kind !== 'Parser') continue;
    const live = index.parserById.get(recorded.id);
    if (live === undefined) continue;
    const sentAt = lostAnswers.get(address);
    if (sentAt !== undefined) {
      out.set(
        address,
        `the PATCH sent at ${sentAt} got no clear answer, and neither the list nor the parser's details show the version it would make (${String(expectedPatchVersion(recorded))}) yet`,
      );
    } else if (recorded.pending !== undefined && live.version < recorded.pending.version) {
      out.set(
        address,
        `version ${recorded.pending.version}, which the service announced for the change an earlier apply sent, is shown neither by the list nor by the parser's details yet (they show version ${live.version})`,
      );
    }
  }
  return out;
}

/**
 * An update whose PATCH may already have landed (unconfirmedPatches) says so first, and in a warning: apply sends it
 * again only with `--recreate` for its address, as a create it could not confirm (approval.ts).
 */
function unconfirmedPatchAgain(
  change: ResourceChange,
  unconfirmed: ReadonlyMap<string, string>,
  warnings: string[],
): ResourceChange {
  const why = unconfirmed.get(change.address);
  if (why === undefined || change.action !== 'update') return change;
  warnings.push(
    `${change.address}: ${why}; apply refuses to send the PATCH again without --recreate ${change.address} (check the service first: if it landed, sending it again pays another generation)`,
  );
  const reason = `${UNCONFIRMED_PATCH_REASON} ${why} (it may have landed); apply sends it again only with --recreate ${change.address}`;
  return { ...change, reasons: [reason, ...change.reasons] };
}

/**
 * A create (or the new parser of a replace) that an earlier apply sent and gave up confirming, with no list showing
 * it yet, says so first, and in a warning (a reviewer reads those first): apply sends it again only with
 * `--recreate` for its address.
 */
function unconfirmedAgain(
  change: ResourceChange,
  unconfirmed: ReadonlyMap<string, string>,
  warnings: string[],
): ResourceChange {
  const at = unconfirmed.get(change.address);
  if (at === undefined || !postsNewObject(change)) return change;
  warnings.push(
    `${change.address}: a create sent at ${at} got no clear answer and no list shows it yet; apply refuses to send it again without --recreate ${change.address} (check the service first: if it landed, that makes a duplicate)`,
  );
  const reason = `${UNCONFIRMED_REASON} the create sent at ${at} got no clear answer and no list shows it yet (it may have landed); apply sends it again only with --recreate ${change.address}`;
  return { ...change, reasons: [reason, ...change.reasons] };
}

/** A change of a generated or inherited object says where its values come from. */
function withOrigin(
  change: ResourceChange,
  desired: DesiredParser | DesiredProject | undefined,
): ResourceChange {
  const origin = desired?.source.origin;
  if (origin === undefined || origin.length === 0 || desired === undefined) return change;
  const places = [
    `${desired.source.file}:${desired.source.line}`,
    ...origin.map((o) => `${o.label} at ${o.file}:${o.line}`),
  ];
  return { ...change, origin: places.join(', ') };
}

/** Pure: desired + live + state -> the exact calls that reconcile them (DESIGN sections 2 and 3). */
export function buildPlan(input: PlanInput): Plan {
  const options = input.options ?? {};
  const errors: string[] = [];
  const changes: ResourceChange[] = [];
  const drift: DriftEntry[] = [];
  const warnings: string[] = [];
  const fingerprint: Record<string, string> = {};
  const targets = options.targets ?? [];
  const excludes = options.excludes ?? [];
  const narrowed = options.narrowedTo;
  const kept = narrowedSelects(narrowed);
  const selected = (address: string): boolean =>
    (targets.length === 0 || targets.includes(address)) && !excludes.includes(address) && kept(address);
  const selection = planSelection(narrowed, targets, excludes);
  const partial = partialPlanWarning(selection);
  if (partial !== undefined) warnings.push(partial);
  // An object state holds that no manifest declares any more has no file, so no path can select it: a rename or a
  // file deleted under the paths would hide its delete. Said by name, with what a plan without paths does.
  if (narrowed !== undefined) {
    const declared = new Set<string>([...input.parsers, ...input.projects].map((o) => o.address));
    const movedFrom = new Set<string>(
      [...input.parsers, ...input.projects].flatMap((o) => (o.moved ?? []).map((m) => m.from)),
    );
    const undeclared = Object.keys(input.state.resources)
      .filter((address) => !declared.has(address) && !movedFrom.has(address))
      .sort(byCodeUnit);
    if (undeclared.length > 0)
      warnings.push(
        `${undeclared.join(', ')}: state manages ${undeclared.length === 1 ? 'it' : 'them'} and no manifest of the environment declares ${undeclared.length === 1 ? 'it' : 'them'} any more, ${NO_PATH_SELECTS} ${undeclared.length === 1 ? 'it' : 'them'}; a plan without paths deletes or archives ${undeclared.length === 1 ? 'it' : 'them'}`,
      );
  }
  // Creates an interrupted run sent but never recorded are ours, with the definition sent (apply records them
  // the same way before its calls: refreshState).
  // Details newer than a list that lags behind a PATCH say where each parser is (latest-versions.ts).
  const live = latestVersions(input.live);
  const recovered = recoverIntents(input.state, live);
  warnings.push(...recovered.notes);
  // Objects renamed with a `moved:` hint are planned at their new address, from the state of their old one.
  // A partial plan makes the moves of the objects it chose, by either address, and of no object it excluded.
  const chooses = (addresses: readonly string[]): boolean =>
    addresses.some(selected) && !addresses.some((a) => excludes.includes(a));
  const moves = planMoves(recovered.state, [...input.parsers, ...input.projects], chooses);
  const unmoved = new Set(moves.unmoved);
  for (const object of [...input.parsers, ...input.projects]) {
    if (!unmoved.has(object.address) || !selected(object.address) || excludes.includes(object.address))
      continue;
    warnings.push(
      `${object.address}: not planned: its moved: hint comes from an address --exclude names, and the move and the object are planned together; plan without that --exclude to move it`,
    );
  }
  const state = moves.state;
  warnings.push(...moves.warnings);
  errors.push(...moves.errors);
  const movedFrom = new Map(moves.moves.map((m) => [m.to, m.from]));
  const withMove = (change: ResourceChange): ResourceChange => {
    const from = movedFrom.get(change.address);
    return from === undefined ? change : { ...change, reasons: [`moved from ${from}`, ...change.reasons] };
  };
  const ctx: Context = {
    errors,
    drift,
    warnings,
    fingerprint,
    live,
    index: indexLive(live),
    state,
    managed: managedIds(state),
    reassert: options.reassert ?? [],
    acceptUnknown: options.acceptUnknown ?? [],
  };

  // Parsers whose delete the service accepted and still shows: said once each, nothing planned for them.
  const now = (options.now ?? Date.now)();
  warnings.push(...shownWhileDeleting(state, ctx.index, now).map(deletingWarning));
  warnings.push(...deletingUnreadWarnings(state, input.live.deletingUnread, now));

  const parserAddresses = new Set([
    ...input.parsers.map((p) => p.address),
    ...Object.entries(state.resources)
      .filter(([, r]) => r.kind === 'Parser')
      .map(([a]) => a),
  ]);
  const desiredParsers = new Map<string, DesiredParser>(input.parsers.map((p) => [p.address, p]));
  const patchesUnconfirmed = unconfirmedPatches(state, ctx.index, recovered.unconfirmedPatches);
  const vanished = vanishedKinds(state, ctx.index, input.keyChanged);
  const warnedVanished = new Set<'Parser' | 'Project'>();
  const heldBack = (change: ResourceChange): ResourceChange =>
    unseenForget(
      vanishedAgain(
        unconfirmedAgain(change, recovered.unconfirmed, warnings),
        state,
        vanished,
        warnedVanished,
        warnings,
      ),
      state,
      warnings,
    );
  for (const address of [...parserAddresses].sort()) {
    if (!selected(address) || unmoved.has(address)) continue;
    const recorded = state.resources[address];
    const change = planParser(
      ctx,
      address,
      desiredParsers.get(address),
      recorded?.kind === 'Parser' ? recorded : undefined,
    );
    if (change === undefined) continue;
    const flagged = unconfirmedPatchAgain(heldBack(change), patchesUnconfirmed, warnings);
    changes.push(withMove(withOrigin(flagged, desiredParsers.get(address))));
    warnings.push(...affectedExpectChecks(change, desiredParsers.get(address)));
  }

  const projectAddresses = new Set([
    ...input.projects.map((p) => p.address),
    ...Object.entries(state.resources)
      .filter(([, r]) => r.kind === 'Project')
      .map(([a]) => a),
  ]);
  const desiredProjects = new Map<string, DesiredProject>(input.projects.map((p) => [p.address, p]));
  for (const address of [...projectAddresses].sort()) {
    if (!selected(address) || unmoved.has(address)) continue;
    const recorded = state.resources[address];
    const change = planProject(
      ctx,
      address,
      desiredProjects.get(address),
      recorded?.kind === 'Project' ? recorded : undefined,
    );
    if (change !== undefined)
      changes.push(withMove(withOrigin(heldBack(change), desiredProjects.get(address))));
  }

  for (const address of options.acceptUnknown ?? []) {
    if (state.resources[address]?.kind !== 'Parser' && selected(address))
      warnings.push(
        `--accept-unknown ${address}: nothing to record: only a parser state manages (an imported one) has values never seen`,
      );
  }

  if (errors.length > 0) {
    throw new ScrapeformError(
      'plan.invalid',
      errors.length === 1 ? (errors[0] as string) : `the plan cannot be made:\n- ${errors.join('\n- ')}`,
      {
        details: { errors },
      },
    );
  }
  return {
    format_version: PLAN_FORMAT_VERSION,
    status: changes.length > 0 || moves.moves.length > 0 ? 'changes' : 'no_changes',
    summary: summarise(changes),
    resource_changes: changes,
    drift,
    warnings,
    fingerprint: { state_lineage: input.state.lineage, state_serial: input.state.serial, live: fingerprint },
    ...(moves.moves.length > 0 ? { moved: moves.moves } : {}),
    ...expectChecks(changes, input.parsers),
    ...(selection !== undefined ? { selection } : {}),
  };
}

/**
 * The checks apply will run after its calls: the `expect` URLs of every declared parser a change acts on (apply
 * checks each one whose change succeeds, a record with no call included; not with --no-wait).
 */
function expectChecks(
  changes: readonly ResourceChange[],
  parsers: readonly DesiredParser[],
): { expect_checks?: PlannedExpectCheck[] } {
  const byAddress = new Map(parsers.map((p) => [p.address as string, p]));
  const checks = changes.flatMap((c) => {
    const expect = c.kind === 'Parser' ? (byAddress.get(c.address)?.expect ?? []) : [];
    return expect.length > 0 ? [{ address: c.address, urls: expect.map((e) => e.url) }] : [];
  });
  return checks.length > 0 ? { expect_checks: checks } : {};
}

/** The plan's counts, from its changes: also how a saved plan's summary is checked (stale-plan.ts). */
export function summarise(changes: readonly ResourceChange[]): Plan['summary'] {
  const count = (action: ResourceChange['action']): number =>
    changes.filter((c) => c.action === action).length;
  const regenerations = changes.filter((c) => c.regenerates).length;
  return {
    create: count('create'),
    update: count('update'),
    replace: count('replace'),
    delete: count('delete'),
    archive: count('archive'),
    adopt: changes.filter((c) => c.reasons.some((r) => r.startsWith('adopt'))).length,
    regenerations,
    estimated_credits: regenerations * CREDITS_PER_GENERATION,
  };
}
