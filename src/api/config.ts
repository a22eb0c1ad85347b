import { readFile, stat } from 'node:fs/promises';
import { parseDuration } from '../duration.js';
import { ScrapeformError } from '../errors.js';
import { credentialsHidden } from '../model/state-url.js';
import { DEFAULT_API_KEY_ENV, ENVIRONMENT_VARIABLE_NAME } from '../model/vocabulary.js';
import { REDACTED } from '../secret-forms.js';
import { rememberKey } from './redact.js';
import { DEFAULT_PARSER_URL } from './parsers-client.js';
import { DEFAULT_PIPELINE_URL } from './projects-client.js';
import { DEFAULT_TIMEOUT_MS } from './transport-contract.js';

export interface ApiConfig {
  apiKey: string;
  parserUrl: string;
  pipelineUrl: string;
  /** Deadline of one request try, in ms; DEFAULT_TIMEOUT_MS when left out. */
  timeoutMs?: number;
  /** Things the user should fix that do not stop the run; the library never prints them, the CLI does. */
  warnings?: string[];
}

/** What resolveApiConfig returns: every setting decided. */
export interface ResolvedApiConfig extends ApiConfig {
  timeoutMs: number;
  warnings: string[];
}

export interface ApiConfigOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** `--api-key-env NAME`: read the key from this variable instead of SCRAPERAPI_API_KEY. */
  apiKeyEnv?: string;
  /** `--api-key-file PATH`: read the key from this file (trimmed). */
  apiKeyFile?: string;
  /** `--timeout DURATION` as typed (`30s`, `2m`, `1500ms`); wins over SCRAPEFORM_TIMEOUT. */
  timeout?: string;
  /** The request timeout in ms, for library callers; wins over `timeout` and SCRAPEFORM_TIMEOUT. */
  timeoutMs?: number;
}

/**
 * Where the key and the endpoints come from (DESIGN section 4). The key is never a plain flag: flags end up in
 * shell history and process lists.
 */
export async function resolveApiConfig(options: ApiConfigOptions): Promise<ResolvedApiConfig> {
  const warnings: string[] = [];
  const apiKey = await resolveApiKey(options, warnings);
  // Remembered for what is printed away from it: an internal error's stack (redact.ts, keysRemembered).
  rememberKey(apiKey);
  return {
    apiKey,
    parserUrl: endpoint(options.env, 'SCRAPEFORM_PARSER_URL', DEFAULT_PARSER_URL),
    pipelineUrl: endpoint(options.env, 'SCRAPEFORM_PIPELINE_URL', DEFAULT_PIPELINE_URL),
    timeoutMs: resolveTimeout(options),
    warnings,
  };
}

/** AbortSignal.timeout takes at most a 32-bit signed count of ms (about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The deadline of one request try: `timeoutMs`, else `--timeout`, else SCRAPEFORM_TIMEOUT, else 30 s. A server
 * that accepts a connection and never answers then fails in seconds (and the retries of one call are bounded by
 * four of these), not after the minutes undici's own timeouts allow.
 */
function resolveTimeout(options: ApiConfigOptions): number {
  const fromEnv = options.env.SCRAPEFORM_TIMEOUT?.trim();
  let source: string;
  let text: string;
  let ms: number | undefined;
  if (options.timeoutMs !== undefined) {
    [source, text, ms] = ['timeoutMs', String(options.timeoutMs), options.timeoutMs];
  } else if (options.timeout !== undefined) {
    [source, text, ms] = ['--timeout', options.timeout, parseDuration(options.timeout)];
  } else if (fromEnv !== undefined && fromEnv !== '') {
    [source, text, ms] = ['SCRAPEFORM_TIMEOUT', fromEnv, parseDuration(fromEnv)];
  } else {
    return DEFAULT_TIMEOUT_MS;
  }
  if (ms === undefined || !Number.isFinite(ms) || ms < 1 || ms > MAX_TIMEOUT_MS) {
    throw new ScrapeformError('config.timeout', `${source} is not a usable request timeout: ${text}`, {
      hint: 'give a duration between 1ms and 24d, such as 30s, 2m or 1500ms (a bare number is milliseconds)',
    });
  }
  return Math.round(ms);
}

async function resolveApiKey(options: ApiConfigOptions, warnings: string[]): Promise<string> {
  // `--api-key-env "$SCRAPERAPI_API_KEY"` is an easy slip: what was given where a name or a path goes is shown
  // only when it is no key (`shown`), and a value that is no variable name is never shown.
  const keys = [DEFAULT_API_KEY_ENV, options.apiKeyEnv].map((n) =>
    n !== undefined ? options.env[n]?.trim() : '',
  );
  const shown = (given: string): string =>
    given.trim() !== '' && keys.includes(given.trim()) ? REDACTED : given;
  if (options.apiKeyFile !== undefined) {
    const file = shown(options.apiKeyFile);
    const warning = await checkKeyFileMode(options.apiKeyFile, file);
    if (warning !== undefined) warnings.push(warning);
    let text: string;
    try {
      text = await readFile(options.apiKeyFile, 'utf8');
    } catch (error) {
      throw new ScrapeformError(
        'config.api-key-file',
        `cannot read the API key file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    const key = text.trim();
    if (key === '') throw new ScrapeformError('config.api-key-file', `the API key file ${file} is empty`);
    return key;
  }
  const name = options.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  if (!ENVIRONMENT_VARIABLE_NAME.test(name)) {
    throw new ScrapeformError(
      'config.api-key-env',
      '--api-key-env takes the name of an environment variable, and what was given is none (not shown: it may be the key itself)',
      {
        hint: 'give the name of the variable that holds the key, such as SCRAPERAPI_PROD_KEY, never the key',
      },
    );
  }
  const key = options.env[name]?.trim();
  if (key === undefined || key === '') {
    // A variable named for this run (an environment's apiKeyEnv, --api-key-env) is the one to set: setting the
    // default would not help, and another variable may hold another environment's key.
    const named = name !== DEFAULT_API_KEY_ENV && shown(name) === name;
    throw new ScrapeformError('config.missing-api-key', `no API key: ${shown(name)} is not set`, {
      hint: named
        ? `set ${name}, the variable named to hold the key here, or pass --api-key-file PATH`
        : `set ${DEFAULT_API_KEY_ENV}, or pass --api-key-env NAME (another variable) or --api-key-file PATH`,
    });
  }
  return key;
}

/**
 * As ssh does for private keys: a key file that group or others may read or change is worth a warning (not an
 * error: the key is still used). Windows has no such mode bits.
 */
async function checkKeyFileMode(file: string, shown: string): Promise<string | undefined> {
  if (process.platform === 'win32') return undefined;
  let mode: number;
  try {
    mode = (await stat(file)).mode;
  } catch {
    return undefined; // reading it reports the problem
  }
  if ((mode & 0o077) === 0) return undefined;
  const mode8 = (mode & 0o777).toString(8).padStart(4, '0');
  return `the API key file ${shown} is accessible by group or others (mode ${mode8}): run chmod 600 ${shown}`;
}

function endpoint(env: Readonly<Record<string, string | undefined>>, name: string, fallback: string): string {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  // Shown without what could be a user name and password, even when it is no URL at all.
  const shown = credentialsHidden(value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ScrapeformError('config.endpoint', `${name} is not a URL: ${shown}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ScrapeformError('config.endpoint', `${name} must be an http(s) URL, got ${shown}`);
  }
  // As an environment's parserUrl and pipelineUrl are (scrapeform.yaml): every retry line, error and saved plan
  // showed them, the key alone being masked.
  if (url.username !== '' || url.password !== '') {
    throw new ScrapeformError('config.endpoint', `${name} must not hold a user name or password: ${shown}`, {
      hint: 'they would be shown in logs, errors and saved plans; a gateway that needs them belongs in HTTPS_PROXY (http://user:password@host:port)',
    });
  }
  return value.replace(/\/+$/, '');
}
