import { distance } from 'fastest-levenshtein';

/**
 * The known word nearest to what the user typed, or undefined when nothing is close enough to be a typo.
 * Case and separators are ignored first, so `scraperParams` finds `scraper_params` and `Output_Format` finds
 * `output_format`.
 */
export function suggestNearest(typed: string, known: readonly string[]): string | undefined {
  const fold = (s: string): string => s.toLowerCase().replace(/[_\-\s]/g, '');
  const folded = fold(typed);
  const exactFold = known.find((k) => fold(k) === folded);
  if (exactFold !== undefined) return exactFold;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const d = distance(folded, fold(candidate));
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  const allowed = Math.max(2, Math.ceil(folded.length * 0.4));
  return bestDistance <= allowed ? best : undefined;
}
