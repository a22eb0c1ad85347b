import { expect, it } from 'vitest';
import { runScrapeform } from '../../helpers/cli.js';
import { serverThatMustNotBeCalled } from '../../helpers/unanswering-server.js';

/**
 * Review: `watch --notify` with a user name and password in the URL was accepted; fetch refused every post with an
 * error quoting the URL, credentials included, and the watch logged it. It is refused before any call now, and
 * never shown.
 */
const server = serverThatMustNotBeCalled('scrapeform-notify-', 'notify-test-key');

it.each([
  [
    ['--notify', 'https://hookuser:S3cretTok@hooks.example/in'],
    {},
    '--notify must not hold a user name or password (user:secret@)',
  ],
  [
    [],
    { SCRAPEFORM_NOTIFY_URL: 'https://hookuser:S3cretTok@hooks.example/in' },
    '--notify must not hold a user name or password (user:secret@)',
  ],
  [['--notify', 'ftp://S3cretTok.example/in'], {}, '--notify is not an http(s) URL'],
  [['--notify', 'S3cretTok'], {}, '--notify is not an http(s) URL'],
])('watch %j %j: refused before any call, the URL never shown', async (flags, extraEnv, message) => {
  server.seen.length = 0;
  const run = await runScrapeform(['watch', ...flags, '--listen', '127.0.0.1:0'], {
    env: { ...server.env(), ...extraEnv },
  });
  expect(run.code).toBe(1);
  expect(run.stderr.split('\n')[0]).toBe(`error: ${message}`);
  expect(`${run.stdout}${run.stderr}`).not.toContain('S3cretTok');
  expect(server.seen).toEqual([]);
});
