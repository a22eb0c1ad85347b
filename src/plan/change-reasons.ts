/**
 * The reasons the planner gives a change that apply sends only with consent (approval.ts): each starts with one of
 * these words, and each predicate reads a change's reasons for it. They take any change with an action and reasons
 * (every ResourceChange has both), so this file needs nothing of the plan model, which re-exports it.
 */
interface ReasonedChange {
  action: string;
  reasons: readonly string[];
}

/**
 * How the planner starts the reasons of a change that takes over a live object found by name (plan-parser.ts,
 * plan-project.ts).
 */
export const ADOPTED_REASON = 'adopted:';

/**
 * Whether a change takes over a live object that no state managed, found by its name: an adopt, or the update or
 * replace an adoption needs. Such a change needs consent (DESIGN section 3): another state may manage the object.
 */
export function adoptsLiveObject(change: ReasonedChange): boolean {
  return change.reasons.some((reason) => reason.startsWith(ADOPTED_REASON));
}

/** How the planner starts the reason of a create an earlier apply sent and could not confirm (recover-intents.ts). */
export const UNCONFIRMED_REASON = 'unconfirmed create:';

/**
 * How the planner starts the reason of an update whose PATCH an earlier apply sent (or whose version the service
 * announced) and that no answer shows yet, neither the list nor the parser's details (recover-intents.ts).
 */
export const UNCONFIRMED_PATCH_REASON = 'unconfirmed PATCH:';

/**
 * Whether a change sends again a create or a PATCH an earlier apply sent and could not confirm, which no answer
 * shows yet: it may have landed (a list, even details, can lag), so apply sends it only with `--recreate` for its
 * address (approval.ts).
 */
export function resendsUnconfirmed(change: ReasonedChange): boolean {
  return change.reasons.some(
    (reason) => reason.startsWith(UNCONFIRMED_REASON) || reason.startsWith(UNCONFIRMED_PATCH_REASON),
  );
}

/** How the planner starts the reason of a create again of an object state created and never saw live since. */
export const UNSEEN_REASON = 'not seen since its create:';

/**
 * Whether a change creates again an object this state created and never saw live since, which the service now
 * answers 404 for: right after a create that may only mean "not visible yet", so apply sends it only with
 * `--recreate` for its address (approval.ts, unseen-create.ts).
 */
export function recreatesUnseen(change: ReasonedChange): boolean {
  return change.action !== 'forget' && change.reasons.some((reason) => reason.startsWith(UNSEEN_REASON));
}

/** How the planner starts the reason of a create again of an object whose whole kind the service shows none of. */
export const VANISHED_REASON = 'none shown:';

/**
 * Whether a change creates again an object state records when the service shows none of the objects of its kind
 * (vanished.ts): apply sends it only with `--recreate` for its address (approval.ts).
 */
export function recreatesVanished(change: ReasonedChange): boolean {
  return change.action !== 'forget' && change.reasons.some((reason) => reason.startsWith(VANISHED_REASON));
}

/**
 * Whether a change drops from state an object no manifest declares when the service shows none of the objects of
 * its kind (vanished.ts): apply drops it only with `--forget` for its address (approval.ts).
 */
export function forgetsVanished(change: ReasonedChange): boolean {
  return change.action === 'forget' && change.reasons.some((reason) => reason.startsWith(VANISHED_REASON));
}

/**
 * Whether a change drops from state an object no manifest declares that scrapeform created and has not seen since,
 * which the service answers 404 for (unseen-create.ts): it may only not be visible yet, and running. Apply drops it
 * only with `--forget` for its address (approval.ts).
 */
export function forgetsUnseen(change: ReasonedChange): boolean {
  return change.action === 'forget' && change.reasons.some((reason) => reason.startsWith(UNSEEN_REASON));
}
