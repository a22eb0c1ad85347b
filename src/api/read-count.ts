/**
 * A count an answer gives (a page number, a total, a job's `attempts`): a whole number of 0 or more, also as a string
 * of its digits, as services built on string-typed columns send it. Undefined for anything else.
 */
export function readCount(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return undefined;
}
