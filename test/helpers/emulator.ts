import { ParsersClient } from '../../src/api/parsers-client.js';
import { ProjectsClient } from '../../src/api/projects-client.js';
import { Transport } from '../../src/api/transport.js';
import { startEmulator } from '../../src/emulator/server.js';
import type { EmulatorOptions, RunningEmulator } from '../../src/emulator/server.js';
import { until } from './until.js';

export const EMULATOR_KEY = 'test-key-7c1e';

export interface EmulatorHarness {
  emulator: RunningEmulator;
  parsers: ParsersClient;
  projects: ProjectsClient;
  /** Raw HTTP against the emulator, for what the clients would never send. */
  raw(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown; headers: Headers }>;
}

/** An emulator on a free loopback port, with clients that retry nothing (tests see every answer). */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<EmulatorHarness> {
  const emulator = await startEmulator({
    apiKeys: [EMULATOR_KEY],
    generationDelayMs: 20,
    seed: 1,
    ...options,
  });
  const transport = new Transport({ apiKey: EMULATOR_KEY, retry: { maxRetries: 0 } });
  return {
    emulator,
    parsers: new ParsersClient(transport, emulator.url),
    projects: new ProjectsClient(transport, emulator.url),
    async raw(method, path, body) {
      const response = await fetch(`${emulator.url}${path}`, {
        method,
        ...(body !== undefined
          ? {
              body: typeof body === 'string' ? body : JSON.stringify(body),
              headers: { 'content-type': 'application/json' },
            }
          : {}),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text === '' ? undefined : (JSON.parse(text) as unknown);
      } catch {
        // keep the text
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
  };
}

/** Polls until the version leaves GENERATING (the emulator's generation is asynchronous); its status then. */
export async function waitForVersion(parsers: ParsersClient, id: string, version: number): Promise<string> {
  let status = 'GENERATING';
  await until(
    `parser ${id} version ${version} is no longer GENERATING`,
    async () => (status = (await parsers.get(id, version)).status) !== 'GENERATING',
  );
  return status;
}
