import type { State } from './model.js';

/**
 * The text of each resource and intent as last written, by the object itself. Commits replace an entry rather than
 * change it (apply/create-intent.ts, patch-intent.ts, plan/refresh-state.ts), so an entry still in state is the one
 * whose text was kept; a WeakMap lets the replaced ones go.
 */
const entryTexts = new WeakMap<object, string>();

/**
 * Whether each text is checked against a whole JSON.stringify: on under vitest (its workers and the CLI processes
 * they start inherit VITEST), so that an entry changed in place, whose kept text would then be stale, fails every
 * test that reaches it instead of writing an old value.
 */
const checked = process.env.VITEST !== undefined;

/**
 * `JSON.stringify(state)`, byte for byte, with each resource's and intent's text kept from the write before. A
 * large apply writes the whole state every few dozen milliseconds while it grows by one object per create:
 * serialising it whole each time was 25 ms of the main thread's 450 for 1,000 project creates (issue 14), and the
 * cost of a few creates in a 20,000-object state was that of 20,000 objects per write.
 */
export function stateJson(state: State): string {
  const text = objectText(state, (value, key) =>
    key === 'resources' || key === 'intents' ? entriesText(value) : JSON.stringify(value),
  );
  if (checked && text !== JSON.stringify(state)) {
    throw new Error(
      'the state text kept from an earlier write is stale: an entry of state was changed in place (replace it)',
    );
  }
  return text;
}

function entriesText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return JSON.stringify(value);
  return objectText(value as Record<string, unknown>, entryText);
}

function entryText(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  let text = entryTexts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    entryTexts.set(value, text);
  }
  return text;
}

/**
 * An object's JSON with each member's text from `member`: the keys in JSON.stringify's order (Object.keys's), and
 * a member whose text is undefined (an undefined value) left out, as JSON.stringify leaves it.
 */
function objectText(object: object, member: (value: unknown, key: string) => string | undefined): string {
  const parts: string[] = [];
  for (const key of Object.keys(object)) {
    const text = member((object as Record<string, unknown>)[key], key);
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}
