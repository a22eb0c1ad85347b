import { ApiError } from './api-error.js';

/**
 * The call's answer, or undefined when the service says 404. For a read right after this run made the object, where
 * a 404 means "not visible yet"; elsewhere unlessGone, which takes a 410 Gone too.
 */
export async function unless404<T>(call: () => Promise<T>): Promise<T | undefined> {
  return unlessStatus([404], call);
}

/**
 * The answers that say an object is gone: a 404, or a 410 Gone (a service that keeps a deleted or archived object's
 * id answers so; HTTP's word for "gone for good"). Neither is proof by itself after a delete: see confirmGone.
 */
export const GONE_STATUSES: readonly number[] = [404, 410];

/** A read by id: its answer, or undefined when the service says the object is gone (GONE_STATUSES). */
export async function unlessGone<T>(call: () => Promise<T>): Promise<T | undefined> {
  return unlessStatus(GONE_STATUSES, call);
}

/** The call's answer, or undefined when the service answers one of `statuses`; any other failure is thrown. */
export async function unlessStatus<T>(
  statuses: readonly number[],
  call: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ApiError && statuses.includes(error.status)) return undefined;
    throw error;
  }
}
