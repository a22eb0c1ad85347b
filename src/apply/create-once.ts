import { ApiError } from '../api/api-error.js';

/**
 * A create that is never retried blindly: after a failure that may have landed (no answer, or a 5xx), list by
 * name and take the one object of that name that was not there before; only when there is none, try once more.
 * "Before" is what the plan read (`planned`, the live list by name), so a create costs no list of its own; without
 * it the list is read first.
 */
export async function createOnce<T extends { id: string | number; name?: string | undefined }>(
  list: () => Promise<T[]>,
  create: () => Promise<T>,
  name: string,
  planned?: ReadonlyMap<string, readonly { id: T['id'] }[]>,
): Promise<T> {
  const named =
    planned !== undefined ? (planned.get(name) ?? []) : (await list()).filter((o) => o.name === name);
  const before = new Set(named.map((o) => o.id));
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (error) {
      const ambiguous = error instanceof ApiError && (error.status === 0 || error.status >= 500);
      if (!ambiguous || attempt >= 2) throw error;
      const landed = (await list()).filter((o) => o.name === name && !before.has(o.id));
      if (landed.length === 1 && landed[0] !== undefined) return landed[0];
      if (landed.length > 1) throw error;
    }
  }
}
