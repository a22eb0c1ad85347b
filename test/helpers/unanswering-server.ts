import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * For CLI runs that must be refused before any call: a server on 127.0.0.1 that answers 500 and records every
 * request it gets (`seen`), the environment that points both services at it, and an empty working folder. Starts
 * and stops with the test file.
 */
export function serverThatMustNotBeCalled(
  prefix: string,
  apiKey: string,
): { seen: string[]; cwd: () => string; env: () => Record<string, string> } {
  const seen: string[] = [];
  let url = '';
  let cwd = '';
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(500).end();
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    cwd = await mkdtemp(path.join(tmpdir(), prefix));
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(cwd, { recursive: true, force: true });
  });
  return {
    seen,
    cwd: () => cwd,
    env: () => ({ SCRAPERAPI_API_KEY: apiKey, SCRAPEFORM_PARSER_URL: url, SCRAPEFORM_PIPELINE_URL: url }),
  };
}
