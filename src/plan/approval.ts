import { ScrapeformError } from '../errors.js';
import type { Plan, ResourceChange } from './model.js';
import {
  adoptsLiveObject,
  forgetsUnseen,
  forgetsVanished,
  recreatesUnseen,
  recreatesVanished,
  resendsUnconfirmed,
} from './model.js';
import { formatCount } from '../format-count.js';

export interface ApprovalFlags {
  /** `--allow-destroy`: deletes, replaces and archives may go ahead. */
  allowDestroy?: boolean;
  /** `--allow-adopt`: live objects no state manages may be taken over by name. */
  allowAdopt?: boolean;
  /** `--auto-approve`: a plan with no destructive change and no adoption goes ahead without a question. */
  autoApprove?: boolean;
}

/** What the approval decision needs beyond the plan: who already manages what, and which manifests consent. */
export interface ApprovalContext {
  /**
   * Addresses the state already holds. A change at such an address is never an adoption to consent to: it is our
   * own object, including a create a previous run was interrupted in (its intent is recorded before the POST).
   */
  managed: ReadonlySet<string>;
  /** Addresses whose manifest says `adopt: true`: their adoption was consented to in review. */
  adoptAllowed: ReadonlySet<string>;
}

export interface ApprovalItem {
  address: string;
  action: string;
}

/**
 * The approval context of a plan made from state holding `resources`, for apply and for the heal that leaves out what
 * its apply would refuse: addresses state holds are ours, never an adoption to consent to (a recovered interrupted
 * create included), but for one whose change takes over a live object other than the one state records there (a
 * project archived by hand and made again by hand under its name: plan-project.ts), which another state may manage;
 * and the manifests saying `adopt: true`.
 */
export function approvalContext(
  resources: Readonly<Record<string, { id: string | number }>>,
  changes: readonly ResourceChange[],
  declared: readonly { address: string; adopt?: boolean }[],
): ApprovalContext {
  const elsewhere = new Set(
    changes
      .filter(
        (c) => adoptsLiveObject(c) && c.id !== null && String(c.id) !== String(resources[c.address]?.id),
      )
      .map((c) => c.address),
  );
  return {
    managed: new Set(Object.keys(resources).filter((address) => !elsewhere.has(address))),
    adoptAllowed: new Set(declared.filter((d) => d.adopt === true).map((d) => d.address)),
  };
}

/** What applying a plan needs from a person: nothing, or a yes (to destroys and adoptions, or to any plan). */
export type ApprovalDecision =
  { kind: 'approved' } | { kind: 'ask'; destructive: ApprovalItem[]; adopted: ApprovalItem[] };

const NO_CONTEXT: ApprovalContext = { managed: new Set(), adoptAllowed: new Set() };

/**
 * Pure: whether a plan may be applied as flagged. Destructive changes need `--allow-destroy` or a yes; taking over
 * a live object no state manages needs `--allow-adopt`, `adopt: true` in its manifest, or a yes (another state may
 * manage it); other changes need `--auto-approve` or a yes (DESIGN section 3, approval). Adoption is read from the
 * typed change (reasons starting "adopted:"), so the public plan format carries no extra key for it.
 */
export function decideApproval(
  plan: Plan,
  flags: ApprovalFlags,
  context: ApprovalContext = NO_CONTEXT,
): ApprovalDecision {
  const destroying = plan.resource_changes.filter((c) => c.destructive);
  const adopting = plan.resource_changes.filter((c) => needsAdoptConsent(c, context));
  const item = (c: Plan['resource_changes'][number]): ApprovalItem => ({
    address: c.address,
    action: c.action,
  });
  const destructive = flags.allowDestroy === true ? [] : destroying.map(item);
  const adopted = flags.allowAdopt === true ? [] : adopting.map(item);
  if (destructive.length > 0 || adopted.length > 0) return { kind: 'ask', destructive, adopted };
  // A consent flag that covers what the plan destroys or adopts approves the plan, as --allow-destroy always did.
  const consented =
    (flags.allowDestroy === true && destroying.length > 0) ||
    (flags.allowAdopt === true && adopting.length > 0);
  return consented || flags.autoApprove === true
    ? { kind: 'approved' }
    : { kind: 'ask', destructive: [], adopted: [] };
}

/** Whether a change takes over a live object by name that neither state nor a manifest's `adopt: true` covers. */
export function needsAdoptConsent(change: ResourceChange, context: ApprovalContext): boolean {
  return (
    adoptsLiveObject(change) &&
    !context.managed.has(change.address) &&
    !context.adoptAllowed.has(change.address)
  );
}

/** The error a command ends with (exit 3) when a plan was not approved; `asked`: a person said no. */
export function refusalError(
  decision: Extract<ApprovalDecision, { kind: 'ask' }>,
  asked: boolean,
): ScrapeformError {
  const { destructive, adopted } = decision;
  if (destructive.length > 0 || adopted.length > 0) {
    const what = [
      destructive.length > 0 ? `destructive changes (${destroyedNames(decision)})` : '',
      adopted.length > 0 ? `adoptions of live objects no state manages (${adoptedNames(decision)})` : '',
    ]
      .filter((p) => p !== '')
      .join(' and ');
    const flags = [
      destructive.length > 0 ? '--allow-destroy to allow deletes, replaces and archives' : '',
      adopted.length > 0
        ? '--allow-adopt (or set adopt: true in the manifest) to take them over, after checking no other state manages them'
        : '',
    ]
      .filter((p) => p !== '')
      .join('; ');
    return new ScrapeformError(
      destructive.length > 0 ? 'apply.destroy-not-approved' : 'apply.adopt-not-approved',
      `not applied: the plan has ${what}; nothing was sent`,
      { status: 'input-needed', hint: asked ? `answer yes, or pass ${flags}` : `pass ${flags}` },
    );
  }
  return new ScrapeformError('apply.not-approved', 'not applied: approval needed; nothing was sent', {
    status: 'input-needed',
    hint: asked ? 'answer yes to apply' : 'without a terminal (or with CI set) pass --auto-approve',
  });
}

/** `parser.a (delete), project.b (archive)`: what a destructive plan destroys. */
export function destroyedNames(decision: Extract<ApprovalDecision, { kind: 'ask' }>): string {
  return decision.destructive.map((c) => `${c.address} (${c.action})`).join(', ');
}

/** `parser.a (adopt), project.b (update)`: the live objects a plan takes over. */
export function adoptedNames(decision: Extract<ApprovalDecision, { kind: 'ask' }>): string {
  return decision.adopted.map((c) => `${c.address} (${c.action})`).join(', ');
}

/** `--max-regenerations N`: a plan that regenerates more parsers than that is refused (exit 3). */
export function checkRegenerations(plan: Plan, max: number | undefined): void {
  if (max !== undefined && plan.summary.regenerations > max) {
    const n = plan.summary.regenerations;
    throw new ScrapeformError(
      'plan.too-many-regenerations',
      `the plan regenerates ${n} ${n === 1 ? 'parser' : 'parsers'} (~${formatCount(plan.summary.estimated_credits)} credits), more than --max-regenerations ${max}`,
      {
        status: 'input-needed',
        hint: 'split the change, or raise --max-regenerations after checking the cost',
      },
    );
  }
}

/** A change apply makes only when `--recreate` names its address (checkRecreates). */
export function needsRecreate(change: ResourceChange): boolean {
  return resendsUnconfirmed(change) || recreatesUnseen(change) || recreatesVanished(change);
}

/** A change apply makes only when `--forget` names its address (checkForgets). */
export function needsForget(change: ResourceChange): boolean {
  return forgetsVanished(change) || forgetsUnseen(change);
}

/**
 * `--recreate ADDRESS`: a call that may have landed already is sent again only for the addresses named: a create
 * an earlier apply sent and could not confirm, which no list shows yet (a list can lag behind a create); a PATCH
 * whose version no answer shows yet (neither the list nor the parser's details); or a create of an object state
 * created and never saw live since, for which the service answers 404 (a read can lag too: unseen-create.ts). A
 * second object would be a duplicate, and a second parser create or PATCH pays another generation. Refused with
 * exit 3 and nothing sent; a person's yes does not cover it: only the address, named after checking the service.
 */
export function checkRecreates(plan: Plan, recreate: readonly string[], saved = false): void {
  const waiting = plan.resource_changes.filter((c) => needsRecreate(c) && !recreate.includes(c.address));
  if (waiting.length === 0) return;
  const unconfirmed = waiting.filter(resendsUnconfirmed);
  const creates = unconfirmed.filter((c) => c.action !== 'update').map((c) => c.address);
  const patches = unconfirmed.filter((c) => c.action === 'update').map((c) => c.address);
  const unseen = waiting.filter(recreatesUnseen).map((c) => c.address);
  const vanished = waiting.filter(recreatesVanished).map((c) => c.address);
  const what = [
    ...(creates.length > 0
      ? [
          `sends again ${creates.length === 1 ? 'a create' : `${creates.length} creates`} an earlier apply sent and could not confirm, which no list shows yet (${creates.join(', ')})`,
        ]
      : []),
    ...(patches.length > 0
      ? [
          `sends again ${patches.length === 1 ? 'a PATCH' : `${patches.length} PATCHes`} an earlier apply sent and could not confirm, whose version neither the list nor the parser's details show yet (${patches.join(', ')})`,
        ]
      : []),
    ...(unseen.length > 0
      ? [
          `creates again ${unseen.length === 1 ? 'an object' : `${unseen.length} objects`} scrapeform created that the service has not shown since (it answers 404, which may only mean not visible yet) (${unseen.join(', ')})`,
        ]
      : []),
    ...(vanished.length > 0
      ? [
          `creates again ${vanished.length === 1 ? 'an object' : `${vanished.length} objects`} of a kind the service shows none of, which a key of another account or another service's URL reads like (${vanished.join(', ')})`,
        ]
      : []),
  ];
  const later =
    unseen.length === 0
      ? patches.length === 0
        ? 'once the list shows what landed, it is recovered, not created again; after checking the service that it did not land'
        : 'once an answer shows what landed, it is recovered, not sent again; after checking the service that it did not land'
      : unconfirmed.length === 0
        ? 'once the service shows it, it is kept, not created again; after checking the service that it does not exist'
        : 'once the service shows them, they are recovered or kept, not sent again; after checking the service that they do not exist';
  throw new ScrapeformError(
    'apply.recreate-not-approved',
    `not applied: the plan ${what.join(', and ')}; nothing was sent`,
    {
      status: 'input-needed',
      details: { addresses: waiting.map((c) => c.address) },
      hint: `${vanished.length === waiting.length ? 'check the key (SCRAPERAPI_API_KEY) and the service URLs first: with the right ones, the plan shows the objects again and creates nothing; after checking the account that they do not exist' : `apply again later: ${later}`}, pass ${waiting.map((c) => `--recreate ${c.address}`).join(' ')}; to apply the rest meanwhile, ${saved ? 'plan again with' : 'pass'} ${waiting.map((c) => `--exclude ${c.address}`).join(' ')}`,
    },
  );
}

/**
 * `--forget ADDRESS`: an object no manifest declares any more is dropped from state only for the addresses named
 * when the service's 404 for it may not mean it is gone: when the service shows none of the objects of its kind
 * state records (vanished.ts: a key of another account reads so), or when scrapeform created it and has not seen
 * it since (unseen-create.ts: not visible yet). Such an object may still be live (a project runs on its schedule,
 * paid per page), and once dropped from state nothing would manage it. Refused with exit 3 and nothing sent; a
 * person's yes does not cover it.
 */
export function checkForgets(plan: Plan, forget: readonly string[], saved = false): void {
  const waiting = plan.resource_changes.filter((c) => needsForget(c) && !forget.includes(c.address));
  if (waiting.length === 0) return;
  const addresses = waiting.map((c) => c.address);
  const vanished = waiting.filter(forgetsVanished).map((c) => c.address);
  const unseen = waiting.filter((c) => !forgetsVanished(c)).map((c) => c.address);
  const objects = (n: number): string => (n === 1 ? 'an object' : `${n} objects`);
  const what = [
    ...(vanished.length > 0
      ? [
          `drops from state ${objects(vanished.length)} no manifest declares, of a kind the service shows none of, which a key of another account or another service's URL reads like (${vanished.join(', ')})`,
        ]
      : []),
    ...(unseen.length > 0
      ? [
          `drops from state ${objects(unseen.length)} no manifest declares that scrapeform created and the service has not shown since (it answers 404, which may only mean not visible yet) (${unseen.join(', ')})`,
        ]
      : []),
  ];
  const one = waiting.length === 1;
  throw new ScrapeformError(
    'apply.forget-not-approved',
    `not applied: the plan ${what.join(', and ')}; nothing was sent`,
    {
      status: 'input-needed',
      details: { addresses },
      hint: `${vanished.length > 0 ? `check the key (SCRAPERAPI_API_KEY) and the service URLs first: with the right ones, the plan deletes or archives ${one ? 'it' : 'them'} instead` : `apply again later: once the service shows ${one ? 'it' : 'them'}, the plan deletes or archives ${one ? 'it' : 'them'} instead`}; after checking the account that ${one ? 'it is' : 'they are'} gone, pass ${addresses.map((a) => `--forget ${a}`).join(' ')}; to apply the rest meanwhile, ${saved ? 'plan again with' : 'pass'} ${addresses.map((a) => `--exclude ${a}`).join(' ')}`,
    },
  );
}
