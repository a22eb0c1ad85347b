import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { tempProjects } from '../helpers/temp-projects.js';
import { BOOK_A } from '../helpers/workspace.js';

/**
 * A plan saved with the key of one account and applied with the key of another: its creates would land in the other
 * account (and a PATCH or DELETE by id reach whatever has that id there). apply --plan refuses before any call; the
 * plan file records the account only as a salted, cut digest of the key, which says nothing of it.
 */
const KEY_A = 'account-a-key-5d0c9e71b2';
const KEY_B = 'account-b-key-83f4a6c0d9';
let h: EmulatorHarness;
beforeAll(async () => {
  h = await startTestEmulator({ apiKeys: [KEY_A, KEY_B], generationDelayMs: 5 });
});
afterAll(async () => {
  await h.emulator.close();
});
beforeEach(() => {
  h.emulator.requestLog.length = 0;
});

const project = tempProjects('scrapeform-plan-account-');
const FILES = {
  'books.yaml': `kind: Parser
name: books
urls: ['${BOOK_A}']
fields:
  title: { description: Title from the main heading, selector: h1 }
`,
};
const cli = (dir: string, key: string) => (args: string[]) =>
  runBuiltCli([...args, '--state', 'state.json'], {
    cwd: dir,
    env: emulatorEnv(h.emulator.url, key),
    exitWithinMs: 30_000,
  });

it('a plan saved with the key of one account is refused with the key of another, before any call', async () => {
  const dir = await project(FILES);
  const saved = await cli(dir, KEY_A)(['plan', '.', '--out', 'plan.json']);
  expect(saved.code, saved.stderr).toBe(0);
  const text = await readFile(path.join(dir, 'plan.json'), 'utf8');
  expect(text).not.toContain(KEY_A);

  h.emulator.requestLog.length = 0;
  const refused = await cli(dir, KEY_B)(['apply', '--plan', 'plan.json', '.', '--auto-approve']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(
    'error: refusing the saved plan: it was made with the API key of another account (its creates would land in this one, and its updates and deletes reach objects by id here); nothing was sent\n',
  );
  expect(refused.stdout + refused.stderr).not.toContain(KEY_B);
  expect(h.emulator.requestLog.filter((r) => r.method !== 'GET')).toEqual([]);
  expect(h.emulator.requestLog).toEqual([]);
  const account = (JSON.parse(text) as { fingerprint: { target: { account?: unknown } } }).fingerprint.target
    .account;
  expect(account).toMatchObject({
    salt: expect.stringMatching(/^[0-9a-f]{32}$/),
    sha256: expect.stringMatching(/^[0-9a-f]{16}$/),
  });

  // With the key it was made with, the same file applies.
  const applied = await cli(dir, KEY_A)(['apply', '--plan', 'plan.json', '.', '--auto-approve']);
  expect(applied.code, applied.stderr).toBe(0);
  expect(h.emulator.requestLog.filter((r) => r.method === 'POST').length).toBe(1);
});

it('two plans saved with one key record it with other salts, so the files cannot be matched up by it', async () => {
  const dir = await project(FILES);
  const account = async (file: string): Promise<{ salt: string; sha256: string }> => {
    const run = await cli(dir, KEY_A)(['plan', '.', '--out', file]);
    expect(run.code, run.stderr).toBe(0);
    const text = await readFile(path.join(dir, file), 'utf8');
    return (JSON.parse(text) as { fingerprint: { target: { account: { salt: string; sha256: string } } } })
      .fingerprint.target.account;
  };
  const one = await account('one.json');
  await writeFile(path.join(dir, 'velvet.yaml'), FILES['books.yaml'].replace('name: books', 'name: velvet'));
  const two = await account('two.json');
  expect(one.salt).not.toBe(two.salt);
  expect(one.sha256).not.toBe(two.sha256);
});
