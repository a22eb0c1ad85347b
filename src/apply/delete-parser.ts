import { GONE_STATUSES } from '../api/unless-status.js';
import type { ParserDeleteAnswer } from '../api/parsers-client.js';
import { ScrapeformError } from '../errors.js';
import { parserPath } from '../model/wire.js';
import type { ParserChange, ParserDelete, ParserFinishReplace, ParserReplace } from '../plan/model.js';
import { parsersDeleted } from '../plan/model.js';
import { lookAfterAccepted, readShown } from './accepted-delete.js';
import type { Deleting } from './accepted-delete.js';
import { confirmGone, makeCall } from './apply-context.js';
import type { HandlerContext } from './apply-context.js';
import type { ChangeResult } from './apply-model.js';

/**
 * Deletes each parser the change deletes (parsersDeleted), in order; returns those whose delete the service
 * accepted and still shows, for the caller's commit that drops or rewrites the resource (recordDeleting). Until
 * that commit a parser stays managed: a change that fails part-way sends its deletes again at the next apply.
 */
export async function deleteEach(
  ctx: HandlerContext,
  change: ParserDelete | ParserReplace | ParserFinishReplace,
  result: ChangeResult,
): Promise<Deleting[]> {
  const deleting: Deleting[] = [];
  for (const id of parsersDeleted(change)) {
    const accepted = await deleteParser(ctx, change, result, id);
    if (accepted !== undefined) deleting.push(accepted);
  }
  return deleting;
}

/**
 * Deletes a parser; one already gone counts as deleted once a read by id answers 404 or 410 as the DELETE did
 * (confirmGone): one the service still shows fails the change with apply.delete-unconfirmed, and the caller's
 * state keeps it. A 202 Accepted is a delete that landed, perhaps not done yet: see lookAfterAccepted. A success
 * whose body is the parser's own record with its error set (ParserDeleteAnswer.recordError) proves the delete
 * neither done nor refused, and a refusal may look so: the parser is read by id, and one still shown (or not read)
 * fails the change as after a 404 and stays managed, the next apply sending its free DELETE again. Only for
 * `failedNewParser` (a replace's new parser that FAILED, whose failure is being recorded) is it taken as after a
 * 202: kept managed, it would leave a half-done replace that the next plan makes again, a paid generation.
 *
 * State is written first: the write checks that the lock is still this run's, so a run that lost it (taken over
 * during a long wait for a generation) does not send a call that cannot be undone.
 */
export async function deleteParser(
  ctx: HandlerContext,
  change: ParserChange,
  result: ChangeResult,
  id: string,
  failedNewParser = false,
): Promise<Deleting | undefined> {
  await ctx.store.lockConfirmed();
  const answer: { recordError?: string } = {};
  const status = await makeCall(
    ctx,
    change,
    result,
    { method: 'DELETE', path: parserPath(id) },
    () => ctx.clients.parsers.delete(id),
    // A library caller's own client may still answer the status alone, as ParsersClient.delete did before.
    (answered: ParserDeleteAnswer | number) => {
      if (typeof answered === 'number') return answered;
      if (answered.recordError !== undefined) answer.recordError = answered.recordError;
      return answered.status;
    },
    GONE_STATUSES,
  );
  const parser = `parser ${change.name} (${id})`;
  if (status === 202)
    return lookAfterAccepted(
      ctx,
      change,
      result,
      id,
      `the service accepted the delete of ${parser} (202 Accepted)`,
    );
  const recordSaid =
    answer.recordError !== undefined
      ? `${status} and the parser's own record, its error ${answer.recordError}`
      : undefined;
  if (recordSaid !== undefined && failedNewParser)
    return lookAfterAccepted(
      ctx,
      change,
      result,
      id,
      `the service answered the delete of ${parser} with ${recordSaid}`,
    );
  if (!GONE_STATUSES.includes(status) && recordSaid === undefined) return undefined;
  await confirmGone(
    () => readShown(ctx, id),
    () =>
      recordSaid !== undefined
        ? new ScrapeformError(
            'apply.delete-unconfirmed',
            `the service answered the delete of ${parser} with ${recordSaid}, and still shows it when read by id: it is not taken as deleted`,
            {
              hint: 'state still records it: apply again later (a delete the service finishes later is seen then), or check it in the ScraperAPI dashboard: the answer may have been a refusal',
            },
          )
        : new ScrapeformError(
            'apply.delete-unconfirmed',
            `the service answered ${status} to the delete of parser ${id} but still shows it when read by id: it was not deleted`,
            {
              hint: `state still records it: apply again later, or delete it in the ScraperAPI dashboard (check SCRAPEFORM_PARSER_URL and any proxy if every delete answers ${status})`,
            },
          ),
  );
  return undefined;
}
