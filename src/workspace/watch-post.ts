import type { Dispatcher } from 'undici';
import { formatTimeout } from '../api/api-error.js';
import { DEFAULT_TIMEOUT_MS } from '../api/transport-contract.js';
import { notifyRefusal } from './notify-answer.js';

/** Where and how `watch` posts its notifications (the part of its options a post needs). */
export interface NotifyTarget {
  notifyUrl?: string;
  /** Through a proxy: the dispatcher of the calls to the services (ApiClients.dispatcher); without one, direct. */
  dispatcher?: Dispatcher;
  /** How long a post waits for its answer: `--timeout`, as a try of a call to the services (ApiClients.timeoutMs). */
  timeoutMs?: number;
  signal: AbortSignal;
  fetch?: typeof fetch;
  onEvent?: (event: { type: 'notified'; status: number } | { type: 'notify-failed'; error: string }) => void;
}

/** The posts counted for /metrics: an alert on a chat that stopped taking them needs the failures as a series. */
export interface NotifyCounts {
  notificationsSent: number;
  notificationsFailed: number;
}

/**
 * POSTs a notification to `--notify`, if set; a failure is an event (and counted), never a failed run. Whether it was
 * delivered (or there is nowhere to post): one that was not is posted again at the next run.
 */
export async function postNotification(
  body: object,
  target: NotifyTarget,
  counts: NotifyCounts,
): Promise<boolean> {
  if (target.notifyUrl === undefined) return true;
  const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  try {
    const init = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      // A stop (SIGTERM, Ctrl-C) ends a post to an endpoint that does not answer, instead of waiting it out.
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), target.signal]),
      redirect: 'manual' as const, // a webhook that redirects is refused (notify-answer.ts)
      // Where only a proxy reaches the internet, a direct post never arrived while every call to the services did.
      ...(target.dispatcher !== undefined ? { dispatcher: target.dispatcher } : {}),
    };
    // @types/node 20 lacks `dispatcher` (send-request.ts passes it the same way).
    const response = await (target.fetch ?? fetch)(target.notifyUrl, init as RequestInit);
    await response.body?.cancel();
    if (!response.ok) throw new Error(notifyRefusal(response, target.notifyUrl));
    counts.notificationsSent++;
    target.onEvent?.({ type: 'notified', status: response.status });
    return true;
  } catch (error) {
    counts.notificationsFailed++;
    // The URL is not shown: chat webhook URLs carry their secret in the path (and an error may quote it).
    const text =
      error instanceof Error && error.name === 'TimeoutError'
        ? `the notification endpoint did not answer within ${formatTimeout(timeoutMs)} (--timeout)`
        : error instanceof Error
          ? error.message
          : String(error);
    const message = text.split(target.notifyUrl).join('the notification URL');
    target.onEvent?.({ type: 'notify-failed', error: message });
    return false;
  }
}
