import type { LiveIndex } from './plan-context.js';
import type { State } from '../state/model.js';

/**
 * How long a parser may still be shown after the service accepted its delete before plans say to look at it in the
 * dashboard: a day. A delete the service runs in the background takes seconds to minutes (its generation work ends,
 * its versions go); one still shown a day later has most likely stopped, and no plan of scrapeform finishes it.
 */
export const DELETING_TOO_LONG_MS = 24 * 60 * 60 * 1000;

/** A parser state records as being deleted (State.deleting) that the service still shows. */
export interface ShownWhileDeleting {
  id: string;
  name: string;
  since: string;
  /** Whole minutes since its delete was accepted (0 for a `since` that is not a time, or in the future). */
  minutes: number;
  tooLong: boolean;
}

/** How long ago a delete accepted at `since` was: whole minutes (0 for a `since` that is not a time, or ahead). */
export function deletingAge(since: string, now: number): { minutes: number; tooLong: boolean } {
  const elapsed = Math.max(0, now - Date.parse(since)) || 0;
  return { minutes: Math.floor(elapsed / 60_000), tooLong: elapsed >= DELETING_TOO_LONG_MS };
}

/** "N minute(s)". */
export function minutesText(minutes: number): string {
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/** The parsers being deleted that the live lists still show, by id. */
export function shownWhileDeleting(state: State, index: LiveIndex, now: number): ShownWhileDeleting[] {
  return Object.entries(state.deleting ?? {})
    .filter(([id]) => index.parserById.has(id))
    .map(([id, { name, since }]) => ({ id, name, since, ...deletingAge(since, now) }));
}

/**
 * What a plan says of each parser being deleted that no list shows and whose read by id failed otherwise than with
 * a 404 (LiveSnapshot.deletingUnread): it is not taken as gone, and the plan goes on (nothing is planned for it);
 * after DELETING_TOO_LONG_MS, to check it by hand, as deletingWarning says.
 */
export function deletingUnreadWarnings(
  state: State,
  unread: Readonly<Record<string, string>> | undefined,
  now: number,
): string[] {
  return Object.entries(state.deleting ?? {}).flatMap(([id, { name, since }]) => {
    const why = unread?.[id];
    if (why === undefined) return [];
    const said = `parser ${name} (${id}), whose delete the service accepted at ${since}, is not listed and could not be read by id (${why}): it stays recorded as being deleted, nothing is planned for it, and the next plan reads it again`;
    return [deletingAge(since, now).tooLong ? `${said}; ${CHECK_BY_HAND}` : said];
  });
}

/** What a warning adds once a parser has been being deleted for DELETING_TOO_LONG_MS. */
const CHECK_BY_HAND =
  'a delete still not done after a day has most likely stopped: check it in the ScraperAPI dashboard, and delete it there if it is still listed';

/**
 * What a plan says once of each parser being deleted that the service still shows: nothing is planned for it (it
 * is neither adopted, deleted again nor counted as unmanaged); after DELETING_TOO_LONG_MS, to check it by hand.
 */
export function deletingWarning(p: ShownWhileDeleting): string {
  const shown = `parser ${p.name} (${p.id}) is still shown ${minutesText(p.minutes)} after the service accepted its delete (${p.since}); nothing is planned for it`;
  return p.tooLong ? `${shown}: ${CHECK_BY_HAND}` : shown;
}

/**
 * What a create of `name` says when a parser of that name is being deleted: the one being deleted is not the one
 * wanted, and both are listed until the service finishes the delete. Undefined when none is.
 */
export function createBesideDeleting(
  state: State,
  index: LiveIndex,
  address: string,
  name: string,
): string | undefined {
  const named = Object.entries(state.deleting ?? {}).filter(
    ([id, entry]) => entry.name === name && index.parserById.has(id),
  );
  if (named.length === 0) return undefined;
  const which = named.map(([id, { since }]) => `${id}, its delete accepted at ${since}`).join('; ');
  return `${address}: a new parser "${name}" is created: the parser of that name the service is still deleting (${which}) is not adopted, so two parsers of this name are listed until the service finishes the delete`;
}
