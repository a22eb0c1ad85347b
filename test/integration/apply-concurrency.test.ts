import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiClients } from '../../src/api/create-clients.js';
import { applyPlan } from '../../src/apply/apply-plan.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { TestWorkspace } from '../helpers/workspace.js';

let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());

/** Wraps every client method to count the calls in flight at once. */
function counting(clients: ApiClients): { clients: ApiClients; max: () => number } {
  let inFlight = 0;
  let max = 0;
  const wrap = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, key, receiver) {
        const value = Reflect.get(object, key, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          inFlight++;
          max = Math.max(max, inFlight);
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
          } finally {
            inFlight--;
          }
        };
      },
    });
  return {
    clients: { parsers: wrap(clients.parsers), projects: wrap(clients.projects), close: clients.close },
    max: () => max,
  };
}

it.each([1, 3])('--concurrency %i: never more calls in flight than that', async (concurrency) => {
  h.emulator.reset();
  h.emulator.setFaults({ latencyMs: 5 });
  const ws = await TestWorkspace.create(h);
  const files: Record<string, string> = {};
  for (let i = 0; i < 8; i++) {
    files[`p${i}.yaml`] =
      `kind: Parser\nname: p${i}\nurls: [https://books.example/catalogue/page-1.html]\nfields:\n  title: { description: Heading, selector: h1 }\n`;
    files[`j${i}.yaml`] =
      `kind: Project\nname: j${i}\nprojectType: urls\nprojectInput: { type: list, list: [a] }\nscheduledAt: "2099-01-01T00:00:00Z"\n`;
  }
  await ws.write(files);
  const plan = await ws.plan();
  const { clients, max } = counting(ws.clients);
  const result = await applyPlan({
    plan,
    clients,
    backend: ws.backend,
    state: await ws.state(),
    concurrency,
    pollMinMs: 5,
    pollMaxMs: 10,
  });
  expect(result.results.every((r) => r.ok)).toBe(true);
  expect(max()).toBe(concurrency);
  h.emulator.setFaults({ latencyMs: 0 });
});
