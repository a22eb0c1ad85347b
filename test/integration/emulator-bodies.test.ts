import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

let h: EmulatorHarness;
const q = `api_key=${EMULATOR_KEY}`;
const nested = (levels: number): string => '['.repeat(levels) + ']'.repeat(levels);
const projectBody = (apiParams: string): string =>
  `{"name":"deep","projectInput":{"type":"list","list":["http://127.0.0.1:1/"]},"apiParams":{"a":${apiParams}}}`;

beforeAll(async () => {
  h = await startTestEmulator();
});
afterEach(() => {
  h.emulator.reset();
});
afterAll(async () => {
  await h.emulator.close();
});

describe('request bodies the emulator refuses', () => {
  it('answers 400 to a project body nested 100,000 levels deep, stores nothing, and lists stay readable', async () => {
    const created = await h.raw('POST', `/api/projects?${q}`, projectBody(nested(100_000)));
    expect(created).toMatchObject({
      status: 400,
      body: { error: 'the request body nests arrays or objects more than 990 levels deep' },
    });
    const list = await h.raw('GET', `/api/projects?${q}`);
    expect(list).toMatchObject({ status: 200, body: [] });
  });

  it('answers 400 to a parser body nested too deep, before charging or storing anything', async () => {
    const before = h.emulator.accounts.list();
    const body = `{"api_key":"${EMULATOR_KEY}","name":"deep","urls":["http://127.0.0.1:1/"],"notes":${nested(5000)}}`;
    const created = await h.raw('POST', '/parsers', body);
    expect(created.status).toBe(400);
    expect(h.emulator.accounts.list()).toEqual(before);
    expect((await h.raw('GET', `/parsers?${q}`)).body).toEqual([]);
  });

  it('takes a body nested up to the limit, whose lists the CLI can still read', async () => {
    // 990 levels in all: the object, apiParams, its key "a", and 987 arrays.
    const created = await h.raw('POST', `/api/projects?${q}`, projectBody(nested(987)));
    expect(created.status).toBe(201);
    const listed = await h.projects.list();
    expect(listed).toHaveLength(1);
  });
});
