/** A key that must never show up anywhere but in the requests themselves. */
export const SENTINEL_KEY = 'sk_live_SENTINEL_5f3a9c';

/** Everything about an error a user or a log could see, as one string to search for the key. */
export function everythingShown(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 10; depth++) {
    if (current instanceof Error) {
      parts.push(current.message, current.stack ?? '', JSON.stringify(current));
      current = current.cause;
    } else {
      parts.push(String(current));
      current = undefined;
    }
  }
  return parts.join('\n');
}
