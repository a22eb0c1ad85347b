import { describe, expect, it } from 'vitest';
import type { ApiClients } from '../../../src/api/create-clients.js';
import type { ChangeResult } from '../../../src/apply/apply-model.js';
import type { ResourceChange } from '../../../src/plan/model.js';
import { recordResultDiffs } from '../../../src/workspace/result-diffs.js';

describe('the result-diff reads and Ctrl-C', () => {
  it("pass apply's signal to both reads, so Ctrl-C calls off a read under way instead of waiting for it", async () => {
    const seen: (AbortSignal | undefined)[] = [];
    const clients = {
      parsers: {
        get: async (_id: string, version: number, signal?: AbortSignal) => {
          seen.push(signal);
          return { exampleResult: [{ url: 'u', result: { title: `v${version}` } }] };
        },
      },
    } as unknown as ApiClients;
    const controller = new AbortController();
    const recorder = recordResultDiffs(clients, { parsers: [] }, controller.signal);
    const change = {
      kind: 'Parser',
      action: 'update',
      address: 'parser.a',
      id: 'a',
      baseVersion: 1,
      regenerates: true,
    } as unknown as ResourceChange;
    const done = { address: 'parser.a', ok: true, status: 'FINISHED', version: 2, id: 'a' } as ChangeResult;
    const direct = <T>(work: () => Promise<T>): Promise<T> => work();
    await recorder.hooks.beforeFirstCall?.(change, direct);
    await recorder.hooks.afterFinished?.(change, done, direct);
    expect(seen).toEqual([controller.signal, controller.signal]);
    expect(recorder.diffs().map((d) => [d.address, d.from.version, d.to.version])).toEqual([
      ['parser.a', 1, 2],
    ]);
  });
});
