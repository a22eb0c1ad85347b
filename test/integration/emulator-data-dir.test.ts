import { mkdtemp, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ScrapeformError } from '../../src/errors.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import { until } from '../helpers/until.js';

const newDataDir = (): Promise<string> => mkdtemp(path.join(tmpdir(), 'scrapeform-emulator-'));

describe('POST /_emulator/advance out of range', () => {
  it('refuses to move the clock past the latest date with a 400, and the data dir still starts', async () => {
    const dataDir = await newDataDir();
    const first = await startTestEmulator({ dataDir });
    let offsetBefore: number;
    try {
      offsetBefore = first.emulator.clock.offset;
      for (const body of [{ ms: 1e300 }, { by: '99999999999999d' }]) {
        const refused = await first.raw('POST', '/_emulator/advance', body);
        expect(refused.status).toBe(400);
        expect((refused.body as { error: string }).error).toMatch(/latest date/);
      }
      expect(first.emulator.clock.offset).toBe(offsetBefore);
      expect((await first.raw('GET', '/_emulator/clock')).status).toBe(200);
    } finally {
      await first.emulator.close();
    }
    const second = await startTestEmulator({ dataDir });
    try {
      expect((await second.raw('GET', '/_emulator/clock')).status).toBe(200);
      expect((await second.raw('GET', '/parsers?api_key=test-key-7c1e')).status).toBe(200);
    } finally {
      await second.emulator.close();
    }
  });
});

describe('a state file the emulator cannot read', () => {
  const stateFile = async (text: string): Promise<string> => {
    const dataDir = await newDataDir();
    await writeFile(path.join(dataDir, 'emulator-state.json'), text);
    return dataDir;
  };

  it.each([
    ['cut short', '{"accounts":[{"key":"secret-key-9d2f","credits":5}],"pars'],
    ['empty', ''],
    ['of another shape', '{"version": 99, "things": []}'],
    ['null', 'null'],
    ['with a clock offset no date holds', '{"accounts":[],"parsers":[],"clockOffsetMs":1e300}'],
  ])(
    'refuses one %s with a user error naming the file, rather than crash or start empty',
    async (_, text) => {
      const dataDir = await stateFile(text);
      const error = (await startTestEmulator({ dataDir }).then(
        () => undefined,
        (e: unknown) => e,
      )) as ScrapeformError | undefined;
      expect(error).toMatchObject({ code: 'emulator.state-unreadable' });
      expect(error?.message).toContain(path.join(dataDir, 'emulator-state.json'));
      expect(error?.message).not.toContain('secret-key-9d2f');
    },
  );
});

describe('closing the emulator while a parser generates', () => {
  it('records no outcome: the version is still GENERATING when the data dir starts again, not FAILED', async () => {
    // A page that never answers: the generation is fetching it when the emulator closes.
    const site = net.createServer(() => undefined);
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    const port = (site.address() as net.AddressInfo).port;
    const dataDir = await newDataDir();
    try {
      const first = await startTestEmulator({ dataDir, generationDelayMs: 0 });
      let id: string;
      try {
        const created = await first.raw('POST', '/parsers', {
          api_key: EMULATOR_KEY,
          name: 'slow',
          urls: [`http://127.0.0.1:${port}/page`],
        });
        expect(created.status).toBeLessThan(300);
        id = (created.body as { id: string }).id;
        await until(
          'the generation is fetching the page',
          async () => (await new Promise<number>((r) => site.getConnections((_, n) => r(n)))) > 0,
          { everyMs: 20 },
        );
      } finally {
        await first.emulator.close();
      }
      // Resumed with a long delay: the status read is the one the first emulator saved.
      const second = await startTestEmulator({ dataDir, generationDelayMs: 600_000 });
      try {
        const details = await second.raw('GET', `/parsers/${id}?api_key=${EMULATOR_KEY}`);
        expect(details.body).toMatchObject({ status: 'GENERATING' });
        expect(JSON.stringify(details.body)).not.toContain('retries');
      } finally {
        await second.emulator.close();
      }
    } finally {
      site.close();
    }
  });
});
