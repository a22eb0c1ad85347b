import type { State } from '../state/model.js';
import { needsForget, needsRecreate } from './approval.js';
import { postsNewObject, VANISHED_REASON } from './model.js';
import type { ResourceChange } from './model.js';
import type { LiveIndex } from './plan-context.js';
import { unseenStory } from './unseen-create.js';

type Kind = 'Parser' | 'Project';

/** What a service shows of the objects state records, when it shows none of them: said in the plan and drift. */
export interface Vanished {
  kind: Kind;
  /** How many objects of the kind state records, every one answering 404. */
  count: number;
  /** One sentence: what the service shows and what reads that way. */
  story: string;
}

/** The least number of objects of a kind whose all going at once reads as another account rather than deletions. */
export const VANISHED_AT_LEAST = 2;

/**
 * Per kind, when the service shows none of the objects of that kind state records, and they are two or more; or
 * one, when none of the objects state records is shown, two or more in all, or any number with `keyChanged` (the
 * run's key is not the one that last applied this state: state-account.ts). No list shows any of them, and each
 * answered 404 when read by id. Deleted by hand one by one, objects go one plan at a time; all of them at once is
 * what a key of another account (or the endpoint of another service, or of a test server) reads like, and taking it
 * as deletions creates every one again: duplicates, a parser's at the price of a generation (DESIGN section 2: an
 * answer is never proof of absence by itself). So the plan says so, and apply creates them again only with
 * `--recreate` for each address, as for a create it could not confirm (approval.ts).
 */
export function vanishedKinds(state: State, index: LiveIndex, keyChanged = false): Map<Kind, Vanished> {
  const kinds = (['Parser', 'Project'] as const).map((kind) => {
    const recorded = Object.values(state.resources).filter((r) => r.kind === kind);
    const shown = recorded.some((r) =>
      r.kind === 'Parser'
        ? [r.id, r.replacing?.oldId, ...(r.replacing?.also ?? [])].some(
            (id) => id !== undefined && index.parserById.has(id),
          )
        : index.projectById.has(r.id),
    );
    // A project whose archive the service accepted (202) is meant to go: those alone going is no sign of another
    // account. They still count toward the threshold when an object not meant to go is gone beside them.
    const meantToGo = recorded.every((r) => r.kind === 'Project' && r.archiving !== undefined);
    return { kind, count: recorded.length, meantToGo, shown };
  });
  // One object of a kind counts when the objects of both kinds together are enough and none of them is shown: a
  // parser and a project, both gone at once, read as a key of another account as two parsers do.
  const total = kinds.reduce((sum, k) => sum + k.count, 0);
  const noneShown = kinds.every((k) => !k.shown);
  const out = new Map<Kind, Vanished>();
  for (const { kind, count, shown, meantToGo } of kinds) {
    if (count === 0 || shown || meantToGo) continue;
    if (count < VANISHED_AT_LEAST && !(noneShown && (keyChanged || total >= VANISHED_AT_LEAST))) continue;
    out.set(kind, { kind, count, story: storyOf(kind, count, keyChanged) });
  }
  return out;
}

function storyOf(kind: Kind, count: number, keyChanged: boolean): string {
  const what = kind === 'Parser' ? 'parser' : 'project';
  const endpoint = kind === 'Parser' ? 'SCRAPEFORM_PARSER_URL' : 'SCRAPEFORM_PIPELINE_URL';
  const none =
    count === 1
      ? `none of the objects state records, the one ${what} among them`
      : `none of the ${count} ${what}s state records`;
  const key = keyChanged ? ', and the key is not the one that last applied this state' : '';
  return `the service shows ${none} (no list shows them, and each answers 404 when read by id)${key}: a key of another account, or ${endpoint} set to another service, reads this way, as does deleting every one of them outside scrapeform`;
}

/**
 * A change of an object state records, of a kind that vanished whole (vanishedKinds), says so first: a create
 * again, which apply sends only with `--recreate` for its address, and a forget (no manifest declares it any more),
 * which apply makes only with `--forget` for its address: dropped from state with another account's key, the real
 * object (a project runs on its schedule, paid per page) would go on unmanaged. An object already held back for
 * another reason (unconfirmed, not seen since its create) keeps that reason alone. The warning is given once per
 * kind.
 */
export function vanishedAgain(
  change: ResourceChange,
  state: State,
  vanished: ReadonlyMap<Kind, Vanished>,
  warned: Set<Kind>,
  warnings: string[],
): ResourceChange {
  const gone = vanished.get(change.kind);
  const forgets = change.action === 'forget';
  if (gone === undefined || state.resources[change.address] === undefined) return change;
  if (!forgets && !postsNewObject(change)) return change;
  if (needsRecreate(change) || needsForget(change)) return change;
  if (!warned.has(change.kind)) {
    warned.add(change.kind);
    warnings.push(
      `${gone.story}; apply creates none of them again without --recreate ADDR, and drops none from state without --forget ADDR, for each address (check the key and the account first: if they exist there, a create again makes a duplicate${change.kind === 'Parser' ? ' and pays a generation' : ''}, and one dropped from state goes on unmanaged)`,
    );
  }
  const reason = forgets
    ? `${VANISHED_REASON} ${gone.story}; apply drops it from state only with --forget ${change.address}`
    : `${VANISHED_REASON} ${gone.story}; apply creates it again only with --recreate ${change.address}`;
  return { ...change, reasons: [reason, ...change.reasons] };
}

/** Whether a recorded object that answers 404 belongs to a kind that vanished whole: why drift keeps it in state. */
export function vanishedStory(
  recorded: State['resources'][string],
  vanished: ReadonlyMap<Kind, Vanished>,
): string | undefined {
  if (unseenStory(recorded) !== undefined) return undefined;
  return vanished.get(recorded.kind)?.story;
}
