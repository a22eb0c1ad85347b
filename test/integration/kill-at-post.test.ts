import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { emulatorEnv } from '../helpers/child-cli.js';
import { expectKilledCreateRecovered, NIGHTLY_PROJECT } from '../helpers/kill-at-post.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { TestWorkspace } from '../helpers/workspace.js';

/**
 * A create recorded ahead with the whole plan got its `sent` mark only in the coalesced write after its POST: apply
 * killed as its POST arrived left the intent reading as never sent, and the next apply, the list lagging behind the
 * create (docs/real-services.md, reading 1), made a second project. With state in a file the mark is in the journal
 * beside it before the POST goes out (sent-journal.ts). Here the emulator kills apply the moment the POST reaches it,
 * before any state write could carry the mark.
 */

const harnesses: EmulatorHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    await h.emulator.projects.idle();
    await h.emulator.close();
  }
});

describe('apply killed the moment its create reaches the service, the list lagging behind', () => {
  it('the next apply asks for --recreate instead of creating a second project; once listed, it is recovered', async () => {
    const h = await startTestEmulator({ quirks: ['lagging-list'], quirkSettings: { listLagMs: 600_000 } });
    harnesses.push(h);
    const ws = await TestWorkspace.create(h);
    await ws.write({ 'nightly.yaml': NIGHTLY_PROJECT });
    const env = emulatorEnv(h.emulator.url, EMULATOR_KEY);
    const args = ['apply', 'manifests', '--auto-approve', '--state', ws.backend.location];
    await expectKilledCreateRecovered(
      h,
      { cwd: ws.dir, env, apply: args, plan: ['plan', 'manifests', '--state', ws.backend.location] },
      {
        // No state write came after the POST: the intent as written ahead, its mark in the journal only.
        afterKill: async () => {
          const written = JSON.parse(await readFile(ws.backend.location, 'utf8')) as {
            intents?: Record<string, { sent?: string }>;
          };
          expect(written.intents?.['project.nightly']).toBeDefined();
          expect(written.intents?.['project.nightly']?.sent).toBeUndefined();
          expect(await readFile(`${ws.backend.location}.sent`, 'utf8')).toContain('"project.nightly"');
        },
      },
    );
  });
});
