/**
 * A whole number with its thousands grouped by commas, as `toLocaleString('en-US')` writes it: the first call of
 * that loads Intl's number formatting, 20 to 30 ms that every apply spent before its first call (the plan's summary
 * line). Every count of credits a message shows goes through it.
 */
export function formatCount(n: number): string {
  const whole = Math.round(n);
  const digits = String(Math.abs(whole)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return whole < 0 ? `-${digits}` : digits;
}

/**
 * At most `max` names joined by commas, then how many more: a stopped apply of 1,000 creates named them all in one
 * line, in its error and in its summary alike.
 */
export function formatNames(names: readonly string[], max = 20): string {
  const shown = names.slice(0, max).join(', ');
  return names.length > max ? `${shown} and ${names.length - max} more` : shown;
}
