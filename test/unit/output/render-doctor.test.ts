import { expect, it } from 'vitest';
import { createColors } from '../../../src/output/colors.js';
import { renderOutput } from '../../../src/output/render-output.js';
import type { DoctorReport } from '../../../src/output/render-doctor.js';

/**
 * doctor's messages quote what the services answered (a parser id, a status, an error's body excerpt): a hostile
 * answer prints escaped, on its own line, as a plan prints live values.
 */
it('prints the messages of checks and readings printable', () => {
  const answer = 'p-1\u001b[2J\r\u009b31m\u202eok';
  const report: DoctorReport = {
    ok: false,
    endpoints: { parsers: 'https://aiparser.test', projects: 'https://datapipeline.test' },
    checks: [
      { name: 'parsers.details', status: 'fail', message: `the details of ${answer} are not a JSON object` },
    ],
    readings: [{ name: 'status-spellings', seen: true, message: `statuses beyond the seed's: "${answer}"` }],
    proxy: {
      httpProxy: null,
      httpsProxy: null,
      noProxy: null,
      route: { parsers: 'direct', projects: 'direct' },
    },
    clockSkewMs: null,
  };
  const shown = 'p-1\\u001b[2J\\r\\u009b31m\\u202eok';
  expect(renderOutput('doctor', 'human', report, createColors(false)).split('\n')).toEqual([
    'Checks (read-only: no credits spent)',
    `  ✗ parsers.details  the details of ${shown} are not a JSON object`,
    '',
    'Readings of the real services (docs/real-services.md)',
    `  seen     status-spellings: statuses beyond the seed's: "${shown}"`,
    '',
    'Proxy: parsers direct, projects direct',
    '',
    'scrapeform cannot work with what it saw: fix the checks marked ✗.',
  ]);
});
