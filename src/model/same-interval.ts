const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

/**
 * A scrapingInterval in one spelling: trimmed, lower-case, single spaces; in a five-field cron expression, month and
 * weekday names as their numbers (`mon` as 1, `jan` as 1), a weekday 7 as 0 (both are Sunday), and a step of 1 as
 * none (`*\/1` as `*`). Only spellings with one meaning are folded: two expressions written otherwise
 * (`1,2,3,4,5` and `1-5`) stay two, and are then compared as they are.
 */
function canonicalInterval(value: string): string {
  const spelled = value.trim().toLowerCase().replace(/\s+/g, ' ');
  const fields = spelled.split(' ');
  if (fields.length !== 5) return spelled;
  const named = (field: string, names: readonly string[], first: number): string =>
    field.replace(/[a-z]{3}/g, (name) => {
      const at = names.indexOf(name);
      return at === -1 ? name : String(at + first);
    });
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  const weekdays = named(weekday, WEEKDAYS, 0)
    .split(',')
    .map((part) => (part === '7' ? '0' : part))
    .join(',');
  return [minute, hour, day, named(month, MONTHS, 1), weekdays]
    .map((field) => field.replace(/^\*\/1$/, '*'))
    .join(' ');
}

/**
 * Whether two scrapingInterval values are one schedule as written (canonicalInterval): a service that answers a
 * cron in its own spelling (`0 6 * * 1` for `0 6 * * mon`) was read as on another schedule, apply failed the
 * create with `apply.schedule-not-taken`, and every later apply sent the interval again.
 */
export function sameInterval(a: unknown, b: unknown): boolean {
  if (typeof a !== 'string' || typeof b !== 'string') return a === b;
  return canonicalInterval(a) === canonicalInterval(b);
}
