import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runScrapeform } from '../../helpers/cli.js';
import { stateOf } from '../../helpers/state.js';
import { serverThatMustNotBeCalled } from '../../helpers/unanswering-server.js';

/**
 * Review: Node fires a timer longer than 2^31 - 1 ms (about 24.8 days) after 1 ms, so `watch --interval 25d` became
 * a loop calling the services without pause. Every duration that waits is refused beyond 24 days, before any call.
 */
const server = serverThatMustNotBeCalled('scrapeform-durations-', 'duration-test-key');
const { seen } = server;
const env = server.env;

describe('durations longer than a timer can wait are usage errors', () => {
  it.each([
    [['watch', '--interval', '25d'], '--interval: 25d is longer than the 24 days a timer can wait'],
    [['apply', '--wait-timeout', '30d'], '--wait-timeout: 30d is longer than the 24 days a timer can wait'],
    [
      ['plan', '--lock-timeout', '2147483648'],
      '--lock-timeout: 2147483648 is longer than the 24 days a timer can wait',
    ],
    [
      ['run', 'project.x', '--wait', '--wait-timeout', '1000d'],
      '--wait-timeout: 1000d is longer than the 24 days a timer can wait',
    ],
  ])('%j', async (argv, message) => {
    seen.length = 0;
    const run = await runScrapeform(argv, { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${message}`);
    expect(seen).toEqual([]);
  });

  it('24 days is still a duration, and an unreadable one says so', async () => {
    const run = await runScrapeform(['watch', '--interval', 'soon'], { env: env() });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: --interval: cannot read "soon" as a duration');
    // The settings for tests were ignored when unreadable (review): a usage error now, before any call.
    for (const [name, value] of [
      ['SCRAPEFORM_POLL_INTERVAL', 'abc'],
      ['SCRAPEFORM_STATE_WRITE_WINDOW', '-5'],
    ] as const) {
      seen.length = 0;
      const bad = await runScrapeform(['apply', '--auto-approve'], {
        env: { ...env(), [name]: value },
      });
      expect([bad.code, bad.stderr.split('\n')[0]]).toEqual([
        1,
        `error: ${name}: cannot read "${value}" as a duration`,
      ]);
      expect(seen).toEqual([]);
    }
    // A wait of nothing: apply made its calls and then failed every wait at once (review).
    for (const argv of [
      ['apply', '--wait-timeout', '0'],
      ['run', 'project.x', '--wait', '--wait-timeout', '0s'],
      ['watch', '--interval', '0ms'],
    ]) {
      seen.length = 0;
      const zero = await runScrapeform(argv, { env: env() });
      expect([zero.code, zero.stderr.split('\n')[0]]).toEqual([
        1,
        `error: ${argv.at(-2)}: ${argv.at(-1)} is too short (at least 1 ms)`,
      ]);
      expect(seen).toEqual([]);
    }
    const state = await runScrapeform(['plan'], {
      env: { ...env(), SCRAPEFORM_STATE_TIMEOUT: '25d' },
    });
    expect(state.stderr).toContain(
      'error: SCRAPEFORM_STATE_TIMEOUT: 25d is longer than the 24 days a timer can wait',
    );
    expect(seen).toEqual([]);
  });
});

describe('run --wait-timeout without --wait', () => {
  it('is refused before the start is sent: the run would start the project and not wait at all', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'scrapeform-run-wait-timeout-'));
    const file = path.join(cwd, '.scrapeform/state.json');
    await mkdir(path.dirname(file), { recursive: true });
    const project = { kind: 'Project', id: 7, name: 'nightly', definition: { name: 'nightly' } } as const;
    await writeFile(file, JSON.stringify(stateOf({ 'project.nightly': project })));
    seen.length = 0;
    const run = await runScrapeform(['run', 'nightly', '--wait-timeout', '10m', '--state', file], {
      env: env(),
    });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'error: --wait-timeout is how long --wait follows the job: pass --wait too\n',
    });
    expect(seen).toEqual([]);
  });
});
