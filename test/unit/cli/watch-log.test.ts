import { describe, expect, it } from 'vitest';
import { watchEventLines } from '../../../src/cli/watch-log.js';
import { createColors } from '../../../src/output/colors.js';
import type { DriftReport } from '../../../src/plan/drift.js';

const plain = createColors(false);
const forged = 'x\u001b[2K\r\nwatch: no drift (1 managed)\u202e';
const shown = 'x\\u001b[2K\\r\\nwatch: no drift (1 managed)\\u202e';

describe('watch log lines', () => {
  it('print live names and service texts printable: a renamed field cannot forge a log line', () => {
    const free = { calls: 0, regenerations: 0, credits: 0 };
    const report: DriftReport = {
      format_version: 1,
      status: 'drift',
      summary: { objects: 1, drifted: 1, revert: free, accept: free },
      drift: [
        {
          address: 'parser.books',
          kind: 'Parser',
          name: 'books',
          id: 'p-1',
          drift: 'fields',
          message: `field price renamed to ${forged}`,
          changes: [{ change: 'rename', from: 'price', to: forged }],
          revert: { ...free, requests: [] },
          accept: { ...free, possible: true, placeholders: [] },
        },
      ],
      warnings: [forged],
    };
    expect(watchEventLines({ type: 'checked', report }, plain)).toEqual([
      `watch: drift in 1 of 1: parser.books (field price renamed to ${shown})`,
      `warning: ${shown}`,
    ]);
    expect(watchEventLines({ type: 'failed', error: new Error(forged) }, plain)).toEqual([
      `watch: run failed: ${shown}`,
    ]);
    expect(watchEventLines({ type: 'heal-skipped', reason: forged }, plain)).toEqual([
      `watch: not healed: ${shown}`,
    ]);
    expect(
      watchEventLines(
        {
          type: 'heal-left',
          changes: [
            { address: `parser.${forged}`, action: 'delete', reason: 'destructive' },
            { address: 'parser.b', action: 'update', reason: 'regeneration-budget', credits: 30_000 },
            {
              address: `parser.${forged}2`,
              action: 'create',
              reason: 'regeneration-budget',
              credits: 30_000,
            },
          ],
        },
        plain,
      ),
    ).toEqual([
      `watch: not healed, destructive (apply --allow-destroy makes them): parser.${shown} (delete)`,
      `watch: not healed, beyond the regeneration budget (--max-regenerations raises it): parser.b (update, ~30,000 credits), parser.${shown}2 (create, ~30,000 credits)`,
    ]);
  });
});
