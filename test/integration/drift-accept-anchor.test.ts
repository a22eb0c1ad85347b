import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator, waitForVersion } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

// Review: child fields shared through a YAML anchor (as docs/manifests.md shows) took drift --accept's edit in every
// place using them: a field added out of band to `reviews` was added to `answers` too, the command said "accepted",
// and the next plan added it to the parser, a paid regeneration with a placeholder description.
let h: EmulatorHarness;
let ws: TestWorkspace;
beforeAll(async () => {
  h = await startTestEmulator({ generationDelayMs: 5 });
});
afterAll(async () => h.emulator.close());
beforeEach(async () => {
  h.emulator.reset();
  ws = await TestWorkspace.create(h);
});

const SHARED = bookParser(`  title: { description: Book title, selector: h1 }
  reviews:
    description: Customer reviews
    fields: &columns
      author: { description: Who wrote it }
  answers:
    description: Answers to questions
    fields: *columns
`);

const run = (args: string[]) =>
  runScrapeform(
    [args[0] ?? '', path.join(ws.dir, 'manifests'), '--state', ws.backend.location, ...args.slice(1)],
    {
      env: emulatorEnv(h.emulator.url, EMULATOR_KEY),
    },
  );

it('an edit that would land in a map an anchor shares is not accepted: manifest and state unchanged, said why', async () => {
  await ws.write({ 'books.yaml': SHARED });
  await ws.converge();
  const parser = String((await ws.state()).resources['parser.books']?.id);
  const added = await h.parsers.update(parser, 0, {
    add_fields: [{ name: 'reviews.date', description: 'When it was written', selector: '.date' }],
  });
  await waitForVersion(h.parsers, parser, added.version);
  const stateBefore = await readFile(ws.backend.location, 'utf8');

  const accepted = await run(['drift', '--accept']);
  expect(accepted.stderr).not.toContain('accepted parser.books');
  expect(accepted.stderr).toContain(
    'parser.books: the edit also changed field answers.date, which did not drift: the edited map is shared with another place (a YAML anchor and its alias, or a merge key), so the edit went there too (edit the manifest by hand); its manifest is left as it was',
  );
  expect(await readFile(path.join(ws.dir, 'manifests', 'books.yaml'), 'utf8')).toBe(SHARED);
  expect(await readFile(ws.backend.location, 'utf8')).toBe(stateBefore);

  // Nothing paid came of it: the plan still shows the drift to revert or accept, and no field added to answers.
  const plan = await run(['plan']);
  expect(plan.stdout).not.toContain('answers.date');
});
