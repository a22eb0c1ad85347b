import { readFile } from 'node:fs/promises';
import { ScrapeformError } from '../errors.js';
import { DEFAULT_PARSER_URL } from './parsers-client.js';
import { DEFAULT_PIPELINE_URL } from './projects-client.js';

export interface ApiConfig {
  apiKey: string;
  parserUrl: string;
  pipelineUrl: string;
}

export interface ApiConfigOptions {
  env: Readonly<Record<string, string | undefined>>;
  /** `--api-key-env NAME`: read the key from this variable instead of SCRAPERAPI_API_KEY. */
  apiKeyEnv?: string;
  /** `--api-key-file PATH`: read the key from this file (trimmed). */
  apiKeyFile?: string;
}

export const DEFAULT_API_KEY_ENV = 'SCRAPERAPI_API_KEY';

/**
 * Where the key and the endpoints come from (DESIGN section 4). The key is never a plain flag: flags end up in
 * shell history and process lists.
 */
export async function resolveApiConfig(options: ApiConfigOptions): Promise<ApiConfig> {
  return {
    apiKey: await resolveApiKey(options),
    parserUrl: endpoint(options.env, 'SCRAPEFORM_PARSER_URL', DEFAULT_PARSER_URL),
    pipelineUrl: endpoint(options.env, 'SCRAPEFORM_PIPELINE_URL', DEFAULT_PIPELINE_URL),
  };
}

async function resolveApiKey(options: ApiConfigOptions): Promise<string> {
  if (options.apiKeyFile !== undefined) {
    let text: string;
    try {
      text = await readFile(options.apiKeyFile, 'utf8');
    } catch (error) {
      throw new ScrapeformError(
        'config.api-key-file',
        `cannot read the API key file ${options.apiKeyFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
    const key = text.trim();
    if (key === '')
      throw new ScrapeformError('config.api-key-file', `the API key file ${options.apiKeyFile} is empty`);
    return key;
  }
  const name = options.apiKeyEnv ?? DEFAULT_API_KEY_ENV;
  const key = options.env[name]?.trim();
  if (key === undefined || key === '') {
    throw new ScrapeformError('config.missing-api-key', `no API key: ${name} is not set`, {
      hint: `set ${DEFAULT_API_KEY_ENV}, or pass --api-key-env NAME (another variable) or --api-key-file PATH`,
    });
  }
  return key;
}

function endpoint(env: Readonly<Record<string, string | undefined>>, name: string, fallback: string): string {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ScrapeformError('config.endpoint', `${name} is not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ScrapeformError('config.endpoint', `${name} must be an http(s) URL, got ${value}`);
  }
  return value.replace(/\/+$/, '');
}
