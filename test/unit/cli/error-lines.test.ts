import { expect, it } from 'vitest';
import { runScrapeform } from '../../helpers/cli.js';

/**
 * Review: error and hint lines quote paths, names and the services' own texts, and were printed raw: a file name
 * (or a service's error text) holding ESC[2J and a carriage return cleared the screen and overwrote the line.
 * Each line is printed printable now, as the plan prints values; a message's own line breaks stay.
 */
it('an error quoting a hostile name prints it escaped, on its own line', async () => {
  const run = await runScrapeform(['show', 'nope\u001b[2Jx\ry\u202e.json']);
  expect(run.code).toBe(1);
  const [first] = run.stderr.split('\n');
  expect(first).toMatch(/^error: cannot read the saved plan nope\\u001b\[2Jx\\ry\\u202e\.json: ENOENT/);
  for (const raw of ['\u001b', '\r', '\u202e']) expect(run.stderr).not.toContain(raw);
});
