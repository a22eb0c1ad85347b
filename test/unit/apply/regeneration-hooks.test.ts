import { describe, expect, it } from 'vitest';
import type { ApiClients } from '../../../src/api/create-clients.js';
import type { RegenerationHooks } from '../../../src/apply/apply-model.js';
import { FakeTime, apply, creates, fakeService } from '../../helpers/fake-generations.js';

/** The fake service with every create logged, in the order made, with the time. */
function loggedService(time: FakeTime, options: { generationMs: number; createMs?: number }) {
  const service = fakeService(time, options);
  const log: string[] = [];
  const parsers = service.clients.parsers;
  const create = parsers.create.bind(parsers);
  parsers.create = async (input) => {
    const created = await create(input);
    log.push(`create ${input.name} @${time.now}`);
    return created;
  };
  return { ...service, log, clients: service.clients as ApiClients };
}

/** The time of the first log line that starts with `what`, or -1. */
function at(log: readonly string[], what: string): number {
  const line = log.find((l) => l.startsWith(`${what} @`));
  return line === undefined ? -1 : Number(line.split('@')[1]);
}

function index(log: readonly string[], what: string): number {
  return log.findIndex((l) => l.startsWith(`${what} @`));
}

describe('regeneration hooks: reads around each regeneration, inside apply', () => {
  it('each change reads before its first call; a wave reads while the one before it generates, not up front', async () => {
    const time = new FakeTime();
    const { clients, log } = loggedService(time, { generationMs: 1000 });
    const hooks: RegenerationHooks = {
      beforeFirstCall: async (change, call) => {
        await call(() => time.sleep(10));
        log.push(`before ${change.name} @${time.now}`);
      },
    };
    const result = await apply(time, clients, creates(6), { concurrency: 4, maxGenerating: 2, hooks });
    expect(result.results.every((r) => r.ok)).toBe(true);
    for (const name of ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'])
      expect(index(log, `before ${name}`)).toBeLessThan(index(log, `create ${name}`));
    // The first wave reads at its turn; the second after the first wave's calls went out, while it generates.
    expect(index(log, 'before p2')).toBeGreaterThan(index(log, 'create p1'));
    expect(at(log, 'before p2')).toBeLessThan(1000);
    expect(at(log, 'before p3')).toBeLessThan(1000);
    // The third wave reads once the second has its turn, not at the start.
    expect(at(log, 'before p4')).toBeGreaterThanOrEqual(1000);
    // So the second wave starts as the first finishes, with nothing left to read first.
    expect(at(log, 'create p2')).toBe(at(log, 'create p0') + 1000);
  });

  it('afterFinished runs once the change is FINISHED, without its generation permit: the next one starts', async () => {
    const time = new FakeTime();
    const { clients, log, parsers } = loggedService(time, { generationMs: 1000 });
    const statuses: string[] = [];
    const hooks: RegenerationHooks = {
      afterFinished: async (change, result, call) => {
        statuses.push(`${change.name} ${result.status ?? ''} ${String(result.ok)}`);
        log.push(`after ${change.name} @${time.now}`);
        await call(() => time.sleep(500));
        log.push(`after ${change.name} done @${time.now}`);
      },
    };
    const result = await apply(time, clients, creates(3), { concurrency: 4, maxGenerating: 1, hooks });
    expect(result.results.every((r) => r.ok)).toBe(true);
    expect(statuses).toEqual(['p0 FINISHED true', 'p1 FINISHED true', 'p2 FINISHED true']);
    expect(at(log, 'after p0')).toBeGreaterThanOrEqual(parsers[0]?.finishesAt ?? Infinity);
    // p1's generation started before p0's read was over, and p0 was read while p1 generated.
    expect(at(log, 'create p1')).toBeLessThanOrEqual(at(log, 'after p0'));
    expect(at(log, 'after p0 done')).toBeLessThan(parsers[1]?.finishesAt ?? 0);
  });

  it('the hooks make their calls under --concurrency', async () => {
    const time = new FakeTime();
    const { clients } = loggedService(time, { generationMs: 1000, createMs: 50 });
    let inFlight = 0;
    let most = 0;
    const parsers = clients.parsers;
    const create = parsers.create.bind(parsers);
    parsers.create = async (input) => {
      most = Math.max(most, ++inFlight);
      try {
        return await create(input);
      } finally {
        inFlight--;
      }
    };
    const read = async (): Promise<void> => {
      most = Math.max(most, ++inFlight);
      await time.sleep(100);
      inFlight--;
    };
    const hooks: RegenerationHooks = {
      beforeFirstCall: async (_change, call) => call(read),
      afterFinished: async (_change, _result, call) => call(read),
    };
    const result = await apply(time, clients, creates(4), { concurrency: 1, maxGenerating: 2, hooks });
    expect(result.results.every((r) => r.ok)).toBe(true);
    expect(most).toBe(1);
  });

  it('a hook that throws fails nothing', async () => {
    const time = new FakeTime();
    const { clients } = loggedService(time, { generationMs: 1000 });
    const hooks: RegenerationHooks = {
      beforeFirstCall: async () => {
        throw new Error('no baseline');
      },
      afterFinished: async () => {
        throw new Error('no result');
      },
    };
    const result = await apply(time, clients, creates(3), { concurrency: 4, maxGenerating: 1, hooks });
    expect(result.results.map((r) => [r.address, r.ok, r.status])).toEqual([
      ['parser.p0', true, 'FINISHED'],
      ['parser.p1', true, 'FINISHED'],
      ['parser.p2', true, 'FINISHED'],
    ]);
  });

  it('a change whose read was under way at Ctrl-C never starts: skipped, and nothing is sent for it', async () => {
    const time = new FakeTime();
    const { clients, log } = loggedService(time, { generationMs: 1000 });
    const controller = new AbortController();
    void time.sleep(100).then(() => controller.abort());
    const hooks: RegenerationHooks = {
      beforeFirstCall: async (_change, call) => {
        await call(() => time.sleep(300));
      },
    };
    const result = await apply(time, clients, creates(1), {
      concurrency: 4,
      maxGenerating: 1,
      hooks,
      signal: controller.signal,
    });
    expect(log.filter((l) => l.startsWith('create'))).toEqual([]);
    expect(result.results.map((r) => [r.address, r.ok, r.skipped])).toEqual([['parser.p0', false, true]]);
  });

  it('after Ctrl-C no hook starts', async () => {
    const time = new FakeTime();
    const { clients, log } = loggedService(time, { generationMs: 1000 });
    const controller = new AbortController();
    void time.sleep(500).then(() => controller.abort());
    const hooks: RegenerationHooks = {
      beforeFirstCall: async (change) => void log.push(`before ${change.name} @${time.now}`),
      afterFinished: async (change) => void log.push(`after ${change.name} @${time.now}`),
    };
    const result = await apply(time, clients, creates(3), {
      concurrency: 4,
      maxGenerating: 1,
      hooks,
      signal: controller.signal,
    });
    expect(result.interrupted).toBe(true);
    // p1 read ahead while p0 generated, before Ctrl-C at 500 ms; after it, nothing: not p0's new result, not p2.
    const hooked = log.filter((l) => !l.startsWith('create'));
    expect(hooked.map((l) => l.split(' @')[0])).toEqual(['before p0', 'before p1']);
    expect(at(log, 'before p1')).toBeLessThan(500);
  });
});
