/**
 * Orders two strings by UTF-16 code unit, as `<` does. Everything scrapeform sorts for its output, its plan
 * fingerprints and its state sorts this way: the same order on every machine. `localeCompare` follows the
 * process's locale (LANG): in Estonian "z" comes before "t", in Danish "A" before "a". A plan saved on one machine
 * then carried another fingerprint when checked on a machine with another locale. Its first call also loads ICU's
 * collation, about 8 ms.
 */
export function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
