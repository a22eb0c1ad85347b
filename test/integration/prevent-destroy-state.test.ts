import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../helpers/cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const parser = (prevent: boolean): string => `kind: Parser
name: books
urls:
  - https://books.example/catalogue/a-light-in-the-attic_1000/index.html
fields:
  title: { description: Book title from the main heading, selector: h1 }
lifecycle: { prevent_destroy: ${String(prevent)} }
`;

const project = (prevent: boolean): string => `kind: Project
name: nightly
projectType: urls
projectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }
scrapingInterval: daily
lifecycle: { prevent_destroy: ${String(prevent)} }
`;

/** Issue 15: deleting the manifest of a protected object does not lift its protection; applying false does. */
describe('prevent_destroy is remembered in state', () => {
  let h: EmulatorHarness;
  let dir: string;
  const manifests = (): string => path.join(dir, 'manifests');
  beforeAll(async () => {
    h = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-protect-'));
    await mkdir(manifests());
  });
  afterAll(async () => {
    await h.emulator.close();
  });
  const run = async (command: string, extra: string[] = []) =>
    runScrapeform([command, manifests(), '--state', path.join(dir, 'state.json'), ...extra], {
      env: {
        SCRAPERAPI_API_KEY: EMULATOR_KEY,
        SCRAPEFORM_PARSER_URL: h.emulator.url,
        SCRAPEFORM_PIPELINE_URL: h.emulator.url,
        SCRAPEFORM_POLL_INTERVAL: '10ms',
      },
    });
  const sent = (): string[] => h.emulator.requestLog.filter((e) => e.method !== 'GET').map((e) => e.method);

  it('refuses to delete or archive an object whose manifest is gone, then deletes it once false was applied', async () => {
    await writeFile(path.join(manifests(), 'books.yaml'), parser(true));
    await writeFile(path.join(manifests(), 'nightly.yaml'), project(true));
    const created = await run('apply', ['--auto-approve']);
    expect(created.code, created.stderr).toBe(0);
    const state = JSON.parse(await readFile(path.join(dir, 'state.json'), 'utf8')) as {
      resources: Record<string, { preventDestroy?: boolean }>;
    };
    expect(state.resources['parser.books']?.preventDestroy).toBe(true);
    expect(state.resources['project.nightly']?.preventDestroy).toBe(true);

    await rm(path.join(manifests(), 'books.yaml'));
    await rm(path.join(manifests(), 'nightly.yaml'));
    h.emulator.requestLog.length = 0;
    const refused = await run('plan');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'parser.books: no manifest declares it any more, but it was applied with lifecycle.prevent_destroy, so it is not deleted; to remove it, declare it again with lifecycle.prevent_destroy: false, apply, then delete its manifest',
    );
    expect(refused.stderr).toContain(
      'project.nightly: no manifest declares it any more, but it was applied with lifecycle.prevent_destroy, so it is not archived;',
    );
    const applyRefused = await run('apply', ['--auto-approve', '--allow-destroy']);
    expect(applyRefused.code).toBe(1);
    expect(sent()).toEqual([]);

    // Declared again with false and applied: nothing to change live, but state records the lifted protection.
    await writeFile(path.join(manifests(), 'books.yaml'), parser(false));
    await writeFile(path.join(manifests(), 'nightly.yaml'), project(false));
    const lifted = await run('apply', ['--auto-approve']);
    expect(lifted.code, lifted.stderr).toBe(0);
    expect(lifted.stdout).toContain('No changes.');
    expect(sent()).toEqual([]);

    await rm(path.join(manifests(), 'books.yaml'));
    await rm(path.join(manifests(), 'nightly.yaml'));
    const plan = await run('plan');
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Plan: 1 to delete, 1 to archive');
    const deleted = await run('apply', ['--auto-approve', '--allow-destroy']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(sent()).toEqual(['DELETE', 'DELETE']);
    const after = await run('plan', ['--detailed-exitcode']);
    expect([after.code, after.stdout.trim()]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
  });
});
