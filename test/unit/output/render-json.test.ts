import { describe, expect, it } from 'vitest';
import { createColors } from '../../../src/output/colors.js';
import { renderJson } from '../../../src/output/render-json.js';
import { renderOutput } from '../../../src/output/render-output.js';

/** What JSON.stringify leaves raw: DEL, a one-byte C1 CSI, NEL, a right-to-left override and a bidi isolate. */
const RAW = 'a\u007fb\u009b31mc\u0085d\u202ee\u2066f';
/** RAW in the JSON text: each of them as a \u escape inside its string. */
const ESCAPED = 'a\\u007fb\\u009b31mc\\u0085d\\u202ee\\u2066f';

describe('renderJson: the JSON every command prints', () => {
  it('writes what JSON.stringify leaves raw as \\u escapes, in keys and values alike', () => {
    const value = { [RAW]: [RAW, 'line\nbreak \u001b[2J', 'quote " and \\ backslash'] };
    expect(renderJson(value)).toBe(
      [
        '{',
        `  "${ESCAPED}": [`,
        `    "${ESCAPED}",`,
        '    "line\\nbreak \\u001b[2J",',
        '    "quote \\" and \\\\ backslash"',
        '  ]',
        '}',
      ].join('\n'),
    );
  });

  it('is valid JSON that reads back as the exact value', () => {
    const value = { [RAW]: [RAW, `\\${RAW}`, 1, null, { nested: RAW }] };
    expect(JSON.parse(renderJson(value))).toEqual(value);
  });

  it('is what the --json renderers print', () => {
    const status = renderOutput(
      'status',
      'json',
      [{ address: 'project.p', id: 5, status: RAW, drift: false }],
      createColors(false),
    );
    expect(status).toContain(`"status": "${ESCAPED}"`);
    expect(JSON.parse(status)).toEqual([{ address: 'project.p', id: 5, status: RAW, drift: false }]);
    const jobs = renderOutput(
      'jobs',
      'json',
      { address: 'project.p', jobs: [{ id: RAW }] },
      createColors(false),
    );
    expect(JSON.parse(jobs)).toEqual([{ id: RAW }]);
    expect(jobs).toBe(`[\n  {\n    "id": "${ESCAPED}"\n  }\n]`);
  });
});
