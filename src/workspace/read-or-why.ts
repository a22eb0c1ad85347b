import { ApiError } from '../api/api-error.js';

/**
 * Objects status could not read, by `objectKey`, with why: an error answer after the retries, or an answer of a shape
 * scrapeform does not read. Any other error (a bug, Ctrl-C) still ends the command.
 */
export type UnreadObjects = Map<string, string>;

export function objectKey(kind: 'Parser' | 'Project', id: string | number): string {
  return `${kind}:${String(id)}`;
}

/**
 * One object's read whose failure status shows in that object's row instead of ending the command (one object must
 * not hide every other object's status): the value read, or why it could not be.
 */
export async function readOrWhy<T>(read: () => Promise<T>): Promise<{ value: T } | { why: string }> {
  try {
    return { value: await read() };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { why: error.message };
  }
}

/** readOrWhy for a lookup by id: without `unread` (plan, drift) a failure ends the command as ever; with it, noted. */
export async function readOrNote<T>(
  unread: UnreadObjects | undefined,
  key: string,
  read: () => Promise<T | undefined>,
): Promise<T | undefined> {
  if (unread === undefined) return read();
  const got = await readOrWhy(read);
  if ('why' in got) {
    unread.set(key, got.why);
    return undefined;
  }
  return got.value;
}
