import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Plan } from '../../src/plan/model.js';
import { runScrapeform } from '../helpers/cli.js';
import { emulatorEnv } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';
import { bookParser, TestWorkspace } from '../helpers/workspace.js';

/**
 * Versions only go up: a replica lagging behind a free rename (version 1, answered 200 and recorded ready) shows
 * version 0 in the list and the latest details, and answers 404 for version 1 by its number (lagging-list with
 * versionLagMs, detailsLagMs and notFoundMs). That is lag, never drift: nothing is sent for the parser on its
 * strength, and once the service shows version 1 again, the next change is based on it as usual.
 */
const GENERATION = 30_000;
const LAG = 600_000;
const SUBTITLE = '  subtitle: { description: Subtitle shown under the title }\n';
const PRICE = '  price: { description: Price including tax, type: number }\n';
const RENAMED = '  headline: { description: Subtitle shown under the title, renamed_from: subtitle }\n';
const HINT_DROPPED = '  headline: { description: Subtitle shown under the title }\n';
const AUTHOR = '  author: { description: Author name }\n';

let h: EmulatorHarness | undefined;
afterEach(async () => {
  await h?.emulator.close();
  h = undefined;
});

function credits(harness: EmulatorHarness): number {
  return harness.emulator.accounts.list().find((a) => a.key === EMULATOR_KEY)?.credits ?? NaN;
}

function patches(harness: EmulatorHarness): string[] {
  return harness.emulator.requestLog
    .filter((e) => e.method === 'PATCH')
    .map((e) => e.path.split('?')[0] ?? '');
}

describe('a replica lagging behind a free rename (lagging-list: versionLagMs, detailsLagMs, notFoundMs)', () => {
  it('plan, apply, drift and status send nothing and say why; once caught up, the next change is based on version 1', async () => {
    h = await startTestEmulator({});
    const harness = h;
    const ws = await TestWorkspace.create(harness);
    const cli = (args: string[]): ReturnType<typeof runScrapeform> =>
      runScrapeform([...args, '--state', ws.backend.location], {
        env: emulatorEnv(harness.emulator.url, EMULATOR_KEY),
      });
    await ws.write({ 'books.yaml': bookParser(SUBTITLE + PRICE) });
    await ws.converge();
    // The rename is made well after the create, so only it is still behind when the replica lags.
    harness.emulator.clock.advance(3_600_000);
    await ws.write({ 'books.yaml': bookParser(RENAMED + PRICE) });
    const { plan: rename } = await ws.converge();
    expect(rename.summary.regenerations).toBe(0);
    const recorded = (await ws.state()).resources['parser.books'];
    if (recorded?.kind !== 'Parser') throw new Error('not recorded');
    expect(recorded).toMatchObject({ version: 1 });
    expect(recorded).not.toHaveProperty('pending');
    const id = recorded.id;

    harness.emulator.quirks.set(['lagging-list'], {
      listLagMs: 0,
      versionLagMs: LAG,
      detailsLagMs: LAG,
      notFoundMs: LAG,
    });
    expect((await harness.parsers.list()).map((p) => p.version)).toEqual([0]);
    expect((await harness.raw('GET', `/parsers/${id}/1?api_key=${EMULATOR_KEY}`)).status).toBe(404);
    expect((await harness.raw('GET', `/parsers/${id}?api_key=${EMULATOR_KEY}`)).body).toMatchObject({
      version: 0,
    });
    // The hint is satisfied; DESIGN allows dropping it.
    await ws.write({ 'books.yaml': bookParser(HINT_DROPPED + PRICE) });
    const before = credits(harness);
    const warning = `parser.books: the service shows version 0 of parser ${id}, below version 1 that state records (versions only go up: an answer lagging behind, not a change made outside scrapeform); nothing is planned for it until the service shows version 1 again`;

    const plan = await cli(['plan', path.join(ws.dir, 'manifests'), '--json']);
    expect(plan.code).toBe(0);
    const planned = JSON.parse(plan.stdout) as Plan;
    expect(planned.status).toBe('no_changes');
    expect(planned.drift).toEqual([]);
    expect(planned.warnings).toEqual([warning]);
    expect(plan.stderr).not.toContain('outside scrapeform;');
    // The human plan says nothing is planned and why: "No changes." over the warning reads as all in line.
    const human = await cli(['plan', path.join(ws.dir, 'manifests')]);
    expect(human.code).toBe(0);
    expect(human.stdout.split('\n')[0]).toBe(
      'No changes planned: 1 parser lags behind state (see the warning); plan again later.',
    );
    expect(human.stdout + human.stderr).toContain(warning);

    const reportFile = path.join(ws.dir, 'apply-report.md');
    const apply = await cli([
      'apply',
      path.join(ws.dir, 'manifests'),
      '--auto-approve',
      '--markdown-report',
      reportFile,
    ]);
    expect(apply.code).toBe(0);
    expect(apply.stderr + apply.stdout).toContain(warning);
    // The report posted on the merged pull request does not say the services matched while a parser lags.
    expect(await readFile(reportFile, 'utf8')).toBe(
      '### scrapeform apply\n\nNo changes planned: 1 parser lags behind state (see the warning); plan again later.\n',
    );
    expect(patches(harness)).toHaveLength(1);
    expect(credits(harness)).toBe(before);
    expect((await ws.state()).resources['parser.books']).toMatchObject({ version: 1 });

    const drift = await cli(['drift', path.join(ws.dir, 'manifests'), '--json']);
    expect(drift.code).toBe(0);
    const report = JSON.parse(drift.stdout) as { status: string; drift: unknown[]; warnings: string[] };
    expect(report).toMatchObject({ status: 'no_drift', drift: [] });
    expect(report.warnings).toEqual([
      `parser.books: the service shows version 0 of parser ${id}, below version 1 that state records (versions only go up: an answer lagging behind, not a change made outside scrapeform); not drift: run drift again once the service shows version 1 again`,
    ]);

    const status = await cli(['status', '--json']);
    expect(status.code).toBe(0);
    expect(
      (JSON.parse(status.stdout) as { status: string; drift: boolean }[]).map((r) => [r.status, r.drift]),
    ).toEqual([['LAGGING (shows version 0, below version 1 that state records: not visible yet)', false]]);

    // The replica catches up: a field added now is one PATCH based on version 1, one generation paid.
    harness.emulator.clock.advance(LAG);
    expect((await ws.plan()).status).toBe('no_changes');
    await ws.write({ 'books.yaml': bookParser(HINT_DROPPED + PRICE + AUTHOR) });
    const caughtUp = await ws.plan();
    expect(caughtUp.warnings).toEqual([]);
    expect(caughtUp.drift).toEqual([]);
    expect(
      caughtUp.resource_changes.map((c) => [
        c.action,
        c.kind === 'Parser' && c.action === 'update' ? c.baseVersion : null,
      ]),
    ).toEqual([['update', 1]]);
    // No more lag, so apply's wait sees the version it makes at once.
    harness.emulator.quirks.set([]);
    const { plan: added } = await ws.converge();
    expect(added.summary.regenerations).toBe(1);
    expect(patches(harness).at(-1)).toBe(`/parsers/${id}/1`);
    expect(before - credits(harness)).toBe(GENERATION);
    expect((await ws.plan()).status).toBe('no_changes');
  }, 30_000);
});
