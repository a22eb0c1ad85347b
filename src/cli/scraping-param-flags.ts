import { ScrapeformError } from '../errors.js';
import { ScraperParamsSchema } from '../manifest/parser-schema.js';
import { diagnosticsFromIssues } from '../manifest/zod-diagnostics.js';
import { SCRAPING_PARAMETERS } from '../model/vocabulary.js';
import type { ScraperParams } from '../model/vocabulary.js';

const TYPES: Readonly<Record<string, 'boolean' | 'string' | 'integer'>> = SCRAPING_PARAMETERS;

/** A flag has no place in a file: diagnostics of the schema are asked for their message and hint only. */
const NO_PLACE = { place: () => ({ file: '--param', line: 0, column: 0 }) };

/**
 * `--param key=value` flags (and `--render`) as scraping parameters, checked by the rules a manifest's
 * `scraper_params` is checked by (one schema: a key outside seed 1's table, a boolean that is not true or false,
 * `device_type` other than desktop or mobile, `session_number` below 1 ...), before anything is sent.
 */
export function scrapingParamsFromFlags(
  pairs: readonly string[],
  render: boolean | undefined,
): ScraperParams {
  const written: Record<string, unknown> = {};
  const flagOf = new Map<string, string>();
  for (const pair of pairs) {
    const [key, ...rest] = pair.split('=');
    if (key === undefined || key === '' || rest.length === 0)
      throw new ScrapeformError('cli.usage', `--param takes key=value, got "${pair}"`);
    const text = rest.join('=');
    written[key] = typedValue(TYPES[key], text);
    flagOf.set(key, pair);
  }
  if (render === true) written.render = true;
  const checked = ScraperParamsSchema.safeParse(written);
  if (checked.success) return checked.data;
  const [problem] = diagnosticsFromIssues(NO_PLACE, ScraperParamsSchema, written, checked.error.issues);
  const key = problem?.path.split('.')[0] ?? '';
  throw new ScrapeformError(
    'cli.usage',
    `--param ${flagOf.get(key) ?? key}: ${problem?.message ?? checked.error.message}`,
    problem?.hint !== undefined ? { hint: problem.hint } : {},
  );
}

/** A flag's text as the value the parameter's type takes, when it reads as one; as written otherwise. */
function typedValue(type: 'boolean' | 'string' | 'integer' | undefined, text: string): unknown {
  if (type === 'boolean') return text === 'true' ? true : text === 'false' ? false : text;
  if (type === 'integer') return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  return text;
}
