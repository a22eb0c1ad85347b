import { afterEach, describe, expect, it } from 'vitest';
import type { QuirkName } from '../../src/emulator/server.js';
import { startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { TestWorkspace } from '../helpers/workspace.js';

const PAGE_1 = 'https://books.example/catalogue/page-1.html';
const PAGE_2 = 'https://books.example/catalogue/page-2.html';

/** A project with `lifecycle.ignore_changes` on `key` (or none), and the extra lines given. */
function project(list: string[], lines: string, ignored: string | undefined): string {
  return `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [${list.join(', ')}] }
${lines}
${ignored !== undefined ? `lifecycle: { ignore_changes: [${ignored}] }\n` : ''}`;
}

const harnesses: EmulatorHarness[] = [];
afterEach(async () => {
  for (const h of harnesses.splice(0)) {
    await h.emulator.projects.idle();
    await h.emulator.close();
  }
});

async function workspace(quirks: QuirkName[] = []): Promise<TestWorkspace> {
  const h = await startTestEmulator({ quirks });
  harnesses.push(h);
  return TestWorkspace.create(h);
}

/**
 * An update sends only the keys that differ and are not ignored: state records, for an ignored key, what was last
 * sent, never the manifest's value that was not, so taking the key out of ignore_changes plans its update, as an edit
 * of the manifest, not as drift.
 */
describe('lifecycle.ignore_changes', () => {
  it('an ignored key changed in the manifest is not recorded as sent by an update of another key', async () => {
    const ws = await workspace();
    await ws.write({ 'p.yaml': project([PAGE_1], 'scrapingInterval: daily', 'scrapingInterval') });
    await ws.converge();
    // The ignored key changes in the manifest, with another key: only the other one is sent.
    await ws.write({ 'p.yaml': project([PAGE_1, PAGE_2], 'scrapingInterval: hourly', 'scrapingInterval') });
    const { plan } = await ws.converge();
    expect(plan.resource_changes.map((c) => [c.action, c.reasons])).toEqual([
      ['update', ['changed: projectInput']],
    ]);
    const recorded = (await ws.state()).resources['project.nightly'];
    expect(recorded?.kind === 'Project' ? recorded.definition.scrapingInterval : undefined).toBe('daily');
    // Out of ignore_changes: the manifest's value is sent, an edit of the manifest, not one made outside scrapeform.
    await ws.write({ 'p.yaml': project([PAGE_1, PAGE_2], 'scrapingInterval: hourly', undefined) });
    const next = await ws.plan();
    expect(next.resource_changes.map((c) => [c.action, c.reasons])).toEqual([
      ['update', ['changed: scrapingInterval']],
    ]);
    expect(next.drift).toEqual([]);
    await ws.converge();
  });

  it('a service that leaves the key out of its answers: out of ignore_changes, the update is planned', async () => {
    const ws = await workspace(['sparse-projects']);
    await ws.write({
      'p.yaml': project([PAGE_1], 'scrapingInterval: daily\noutput_format: JSON', 'output_format'),
    });
    await ws.converge();
    await ws.write({
      'p.yaml': project([PAGE_1, PAGE_2], 'scrapingInterval: daily\noutput_format: CSV', 'output_format'),
    });
    await ws.converge();
    expect(ws.h.emulator.projects.projects.get(1)?.output_format).toBe('JSON');
    await ws.write({
      'p.yaml': project([PAGE_1, PAGE_2], 'scrapingInterval: daily\noutput_format: CSV', undefined),
    });
    const next = await ws.plan();
    expect(next.resource_changes.map((c) => [c.action, c.reasons])).toEqual([
      ['update', ['changed: output_format']],
    ]);
    await ws.converge();
    expect(ws.h.emulator.projects.projects.get(1)?.output_format).toBe('CSV');
  });
});
