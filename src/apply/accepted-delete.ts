import { unlessGone } from '../api/unless-status.js';
import type { ParserChange } from '../plan/model.js';
import type { DeletingParser, State } from '../state/model.js';
import { warn } from './apply-context.js';
import type { HandlerContext } from './apply-context.js';
import type { ChangeResult } from './apply-model.js';

/**
 * Reads a parser by id only to see whether the service still shows it, after a DELETE: any 200 is "shown". Details
 * without a version (the published example has none, API-NOTES) or a FINISHED one without fields are then no bad
 * response: nothing is planned from this read, so the version given is a stand-in and the fields go unread.
 */
export function readShown(ctx: HandlerContext, id: string): Promise<unknown> {
  return ctx.clients.parsers.get(id, undefined, ctx.options.signal, { version: 0, fieldsUnread: true });
}

/**
 * What one read by id says after a DELETE the service accepted (202): `gone` (a 404 or 410, or no record: a project
 * marked archived), `shown`, or why the read failed. For parsers here, and for projects (project-handlers.ts).
 */
export async function shownAfterAccepted(read: () => Promise<unknown>): Promise<'gone' | 'shown' | string> {
  return unlessGone(read).then(
    (shown) => (shown === undefined ? 'gone' : 'shown'),
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
}

/**
 * After a DELETE answered 202 Accepted (`accepted` says so, naming the parser; also the record a replace's FAILED
 * new parser is answered with: delete-parser.ts): the service took the delete, and may not have finished it.
 * The parser is read by id once. A 404 (or 410 Gone) is the delete done; a parser still shown, or a read that
 * fails, is said in a warning and returned, for the caller to record in state's `deleting` with the commit that
 * drops the resource: it is no longer managed, since a next plan that still found it managed would send its DELETE
 * again, and one that no longer found it would say it was deleted outside scrapeform. Recorded, it is never
 * adopted, deleted twice nor counted as unmanaged while the service still shows it, and each plan says how long it
 * has been shown (plan/deleting.ts); the record goes once a list no longer shows it and a read by id answers 404
 * (plan/refresh-state.ts).
 */
export async function lookAfterAccepted(
  ctx: HandlerContext,
  change: ParserChange,
  result: ChangeResult,
  id: string,
  accepted: string,
): Promise<Deleting | undefined> {
  const read = await shownAfterAccepted(() => readShown(ctx, id));
  if (read === 'gone') return undefined;
  warn(
    change,
    result,
    ctx,
    read === 'shown'
      ? `${accepted} but still shows it when read by id: it may still be deleting it; scrapeform no longer manages it and records it as being deleted: no plan adopts, deletes or counts it as unmanaged, and each plan says while the service still shows it`
      : `${accepted}, but reading it by id to see whether it is gone failed (${read}): scrapeform no longer manages it and records it as being deleted: each plan says while the service still shows it`,
  );
  return [id, { name: change.name, since: new Date().toISOString() }];
}

/** A parser whose delete the service accepted and still showed, by id, for State.deleting. */
export type Deleting = [string, DeletingParser];

/**
 * Records the parsers being deleted in the caller's commit, the one that drops or rewrites the resource, so that no
 * state holds a parser both managed and being deleted (a next plan would send its DELETE again).
 */
export function recordDeleting(state: State, deleting: readonly (Deleting | undefined)[]): void {
  for (const entry of deleting) if (entry !== undefined) (state.deleting ??= {})[entry[0]] = entry[1];
}
