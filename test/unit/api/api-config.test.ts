import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveApiConfig } from '../../../src/api/config.js';
import { ScrapeformError } from '../../../src/errors.js';

describe('resolveApiConfig', () => {
  it('reads SCRAPERAPI_API_KEY and defaults to the real services', async () => {
    expect(await resolveApiConfig({ env: { SCRAPERAPI_API_KEY: ' k1 ' } })).toEqual({
      apiKey: 'k1',
      parserUrl: 'https://aiparser.scraperapi.com',
      pipelineUrl: 'https://datapipeline.scraperapi.com',
      timeoutMs: 30_000,
      warnings: [],
    });
  });

  it('takes another variable with --api-key-env, and endpoints from the environment', async () => {
    const config = await resolveApiConfig({
      env: {
        TEAM_KEY: 'k2',
        SCRAPEFORM_PARSER_URL: 'http://127.0.0.1:8780/',
        SCRAPEFORM_PIPELINE_URL: 'http://127.0.0.1:8780',
      },
      apiKeyEnv: 'TEAM_KEY',
    });
    expect(config).toEqual({
      apiKey: 'k2',
      parserUrl: 'http://127.0.0.1:8780',
      pipelineUrl: 'http://127.0.0.1:8780',
      timeoutMs: 30_000,
      warnings: [],
    });
  });

  it('reads the key from a file with --api-key-file', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-key-'));
    await writeFile(path.join(dir, 'key'), 'k3\n');
    expect((await resolveApiConfig({ env: {}, apiKeyFile: path.join(dir, 'key') })).apiKey).toBe('k3');
  });

  it.skipIf(process.platform === 'win32')(
    'warns (without printing) when the key file is readable by group or others, as ssh does',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-key-'));
      const file = path.join(dir, 'key');
      await writeFile(file, 'k4\n');
      await chmod(file, 0o644);
      const open = await resolveApiConfig({ env: {}, apiKeyFile: file });
      expect(open.apiKey).toBe('k4');
      expect(open.warnings).toEqual([
        `the API key file ${file} is accessible by group or others (mode 0644): run chmod 600 ${file}`,
      ]);
      await chmod(file, 0o600);
      expect((await resolveApiConfig({ env: {}, apiKeyFile: file })).warnings).toEqual([]);
    },
  );

  it('reads the request timeout from timeoutMs, then --timeout, then SCRAPEFORM_TIMEOUT', async () => {
    const env = { SCRAPERAPI_API_KEY: 'k', SCRAPEFORM_TIMEOUT: '45s' };
    expect((await resolveApiConfig({ env })).timeoutMs).toBe(45_000);
    expect((await resolveApiConfig({ env, timeout: '2m' })).timeoutMs).toBe(120_000);
    expect((await resolveApiConfig({ env, timeout: '2m', timeoutMs: 1500 })).timeoutMs).toBe(1500);
    expect((await resolveApiConfig({ env: { ...env, SCRAPEFORM_TIMEOUT: ' ' } })).timeoutMs).toBe(30_000);
  });

  it.each([
    [{ timeout: 'soon' }, '--timeout is not a usable request timeout: soon'],
    [{ timeout: '0s' }, '--timeout is not a usable request timeout: 0s'],
    [
      { env: { SCRAPEFORM_TIMEOUT: '30 seconds' } },
      'SCRAPEFORM_TIMEOUT is not a usable request timeout: 30 seconds',
    ],
    [{ timeoutMs: -1 }, 'timeoutMs is not a usable request timeout: -1'],
    [{ timeout: '30d' }, '--timeout is not a usable request timeout: 30d'],
  ])('rejects an unusable timeout %o', async (options, message) => {
    const error = (await resolveApiConfig({
      ...options,
      env: { SCRAPERAPI_API_KEY: 'k', ...('env' in options ? options.env : {}) },
    }).catch((e: unknown) => e)) as ScrapeformError;
    expect(error).toBeInstanceOf(ScrapeformError);
    expect([error.code, error.message, error.hint]).toEqual([
      'config.timeout',
      message,
      'give a duration between 1ms and 24d, such as 30s, 2m or 1500ms (a bare number is milliseconds)',
    ]);
  });

  it('a missing key names the three ways to give one', async () => {
    const error = (await resolveApiConfig({ env: {} }).catch((e: unknown) => e)) as ScrapeformError;
    expect(error).toBeInstanceOf(ScrapeformError);
    expect(error.code).toBe('config.missing-api-key');
    expect(error.message).toBe('no API key: SCRAPERAPI_API_KEY is not set');
    expect(error.hint).toBe(
      'set SCRAPERAPI_API_KEY, or pass --api-key-env NAME (another variable) or --api-key-file PATH',
    );
  });

  it('a missing key in a variable named for the run says to set that one, not the default', async () => {
    const error = (await resolveApiConfig({
      env: { SCRAPERAPI_API_KEY: 'x' },
      apiKeyEnv: 'SCRAPERAPI_PROD_KEY',
    }).catch((e: unknown) => e)) as ScrapeformError;
    expect(error.code).toBe('config.missing-api-key');
    expect(error.message).toBe('no API key: SCRAPERAPI_PROD_KEY is not set');
    expect(error.hint).toBe(
      'set SCRAPERAPI_PROD_KEY, the variable named to hold the key here, or pass --api-key-file PATH',
    );
  });

  it('refuses an --api-key-env that is no variable name without showing it: it may be the key itself', async () => {
    const key = '3f9a1c2b7d4e8f60a1b2c3d4e5f60718';
    const refused = async (options: Parameters<typeof resolveApiConfig>[0]) => {
      const error = (await resolveApiConfig(options).catch((e: unknown) => e)) as ScrapeformError;
      expect(error).toBeInstanceOf(ScrapeformError);
      return [error.code, error.message, error.hint];
    };
    expect(await refused({ env: { SCRAPERAPI_API_KEY: key }, apiKeyEnv: key })).toEqual([
      'config.api-key-env',
      '--api-key-env takes the name of an environment variable, and what was given is none (not shown: it may be the key itself)',
      'give the name of the variable that holds the key, such as SCRAPERAPI_PROD_KEY, never the key',
    ]);
    expect((await refused({ env: {}, apiKeyEnv: 'my key' }))[0]).toBe('config.api-key-env');
    // A name that is the key: not set, and said without it.
    const letters = 'abcdefabcdefabcdefabcdefabcdefab';
    expect(await refused({ env: { SCRAPERAPI_API_KEY: letters }, apiKeyEnv: letters })).toEqual([
      'config.missing-api-key',
      'no API key: *** is not set',
      'set SCRAPERAPI_API_KEY, or pass --api-key-env NAME (another variable) or --api-key-file PATH',
    ]);
  });

  it('does not show an --api-key-file path that is the key', async () => {
    const key = '3f9a1c2b7d4e8f60a1b2c3d4e5f60718';
    const error = (await resolveApiConfig({ env: { SCRAPERAPI_API_KEY: key }, apiKeyFile: key }).catch(
      (e: unknown) => e,
    )) as ScrapeformError;
    expect([error.code, error.message]).toEqual([
      'config.api-key-file',
      'cannot read the API key file ***: ENOENT',
    ]);
  });

  it('rejects an endpoint that is not an http(s) URL', async () => {
    await expect(
      resolveApiConfig({ env: { SCRAPERAPI_API_KEY: 'k', SCRAPEFORM_PIPELINE_URL: 'ftp://x' } }),
    ).rejects.toThrow('SCRAPEFORM_PIPELINE_URL must be an http(s) URL, got ftp://x');
  });

  it.each([
    [
      'http://gwuser:GwS3cret@127.0.0.1:8080',
      'SCRAPEFORM_PARSER_URL must not hold a user name or password: http://***@127.0.0.1:8080/',
    ],
    [
      'http://gwuser@127.0.0.1:8080',
      'SCRAPEFORM_PARSER_URL must not hold a user name or password: http://***@127.0.0.1:8080/',
    ],
    // Not a URL at all (a space in the host): still shown without what could be a password.
    ['http://gw:S3c ret@bad host', 'SCRAPEFORM_PARSER_URL is not a URL: http://***@bad host'],
    // A `/` in the password, not percent-encoded: the URL reads `gw` as the host and fails on its port.
    ['https://gw:S3c/ret@gateway.example', 'SCRAPEFORM_PARSER_URL is not a URL: https://***@gateway.example'],
    // No scheme, the key in a query parameter: not a URL, and the key not shown.
    [
      'parsers.example.com/api?api_key=S3cretKey0123456789',
      'SCRAPEFORM_PARSER_URL is not a URL: parsers.example.com/api?api_key=***',
    ],
  ])('refuses an endpoint with credentials without showing them: %s', async (value, message) => {
    const error = (await resolveApiConfig({
      env: { SCRAPERAPI_API_KEY: 'k', SCRAPEFORM_PARSER_URL: value },
    }).catch((e: unknown) => e)) as ScrapeformError;
    expect([error.code, error.message]).toEqual(['config.endpoint', message]);
    expect(JSON.stringify(error)).not.toMatch(/S3c/);
  });
});
