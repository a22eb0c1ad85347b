import { expect } from 'vitest';
import type { DoctorReport } from '../../src/output/render-doctor.js';
import { NOCK_ENV, SENTINEL_KEY, withUnmatched } from './api.js';
import { runScrapeform } from './cli.js';

/**
 * `doctor --json` (with `args`, and `env` over NOCK_ENV) against the answers nock holds: each of them read, nothing
 * asked that nock does not hold, and the key shown nowhere.
 */
export async function runNockDoctor(
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ code: number; report: DoctorReport }> {
  const { result, unmatched } = await withUnmatched(() =>
    runScrapeform(['doctor', '--json', ...args], { env: { ...NOCK_ENV, ...env } }),
  );
  expect(unmatched).toEqual([]);
  expect(result.stdout + result.stderr).not.toContain(SENTINEL_KEY);
  return { code: result.code, report: JSON.parse(result.stdout) as DoctorReport };
}
