import { cp, mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  applyWorkspace,
  cancelProjectJob,
  decideApproval,
  importLive,
  listProjectJobs,
  openServices,
  openWorkspace,
  planWorkspace,
  readStatus,
  renderOutput,
  createColors,
  runProject,
  ScrapeformError,
  using,
} from '../../src/index.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/**
 * A program embedding scrapeform drives it through src/index.ts alone, and the library never prints and never
 * exits: every outcome comes back as a value or a thrown error. The CLI stands on these same functions.
 */
describe('the library surface', () => {
  let h: EmulatorHarness;
  let dir: string;
  const writes: string[] = [];
  let exit: ReturnType<typeof vi.spyOn>;
  let stdout: ReturnType<typeof vi.spyOn>;
  let stderr: ReturnType<typeof vi.spyOn>;

  beforeAll(async () => {
    h = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-lib-'));
    await cp(path.join(ROOT, 'examples/quickstart'), path.join(dir, 'manifests'), { recursive: true });
  });
  afterAll(async () => {
    await h.emulator.close();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function watchProcess(): void {
    writes.length = 0;
    stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
      writes.push(`stdout: ${String(chunk)}`);
      return true;
    });
    stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
      writes.push(`stderr: ${String(chunk)}`);
      return true;
    });
    exit = vi.spyOn(process, 'exit').mockImplementation((() => {
      throw new Error('the library called process.exit');
    }) as never);
  }

  const options = () => ({
    env: {
      SCRAPERAPI_API_KEY: EMULATOR_KEY,
      SCRAPEFORM_PARSER_URL: h.emulator.url,
      SCRAPEFORM_PIPELINE_URL: h.emulator.url,
    },
    paths: [path.join(dir, 'manifests')],
    statePath: path.join(dir, '.scrapeform', 'state.json'),
  });

  it('plans, refuses without approval, applies, reports status and jobs, runs and imports without printing or exiting', async () => {
    watchProcess();
    const planned = await using(openWorkspace(options()), (ws) => planWorkspace(ws));
    expect(planned.plan.summary.create).toBe(2);
    expect(decideApproval(planned.plan, {})).toEqual({ kind: 'ask', destructive: [], adopted: [] });
    expect(decideApproval(planned.plan, { autoApprove: true })).toEqual({ kind: 'approved' });

    // Without a way to ask and without --auto-approve, nothing is sent and the refusal is a value to render.
    const refused = await using(openWorkspace(options()), (ws) => applyWorkspace(ws, {})).catch(
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ScrapeformError);
    expect((refused as ScrapeformError).code).toBe('apply.not-approved');
    expect(h.emulator.parsers.parsers.size).toBe(0);

    const shown: string[] = [];
    const applied = await using(openWorkspace(options()), (ws) =>
      applyWorkspace(ws, {
        autoApprove: true,
        pollMinMs: 10,
        pollMaxMs: 20,
        onPlan: (p) => shown.push(p.status),
      }),
    );
    expect(shown).toEqual(['changes']);
    expect(applied.result?.results.every((r) => r.ok)).toBe(true);
    const again = await using(openWorkspace(options()), (ws) => planWorkspace(ws));
    expect(again.plan.status).toBe('no_changes');

    const rows = await using(openServices(options()), (s) => readStatus(s));
    expect(rows.map((r) => r.address)).toEqual(['parser.books-product', 'project.nightly-book-pages']);
    const jobs = await using(openServices(options()), (s) => listProjectJobs(s, 'nightly-book-pages'));
    expect(jobs.address).toBe('project.nightly-book-pages');
    const started = await using(openServices(options()), (s) => runProject(s, 'project.nightly-book-pages'));
    expect(started.job).toBeUndefined();
    const cancel = await using(openServices(options()), (s) =>
      cancelProjectJob(s, 'project.nightly-book-pages', 'no-such-job'),
    ).catch((e: unknown) => e);
    expect((cancel as ScrapeformError).code).toBe('cancel.unknown-job');

    // An object made by hand in the service is imported as a manifest file and recorded in state.
    await h.projects.create({
      name: 'hand-made',
      projectInput: { type: 'list', list: ['https://books.example/x.html'] },
      schedulingEnabled: false,
    });
    const imported = await using(openServices(options()), (s) =>
      importLive(s, { out: path.join(dir, 'imported'), env: {} }),
    );
    expect(imported.map((i) => i.address)).toEqual(['project.hand-made']);
    expect(await readdir(path.join(dir, 'imported'))).toEqual(['project-hand-made.yaml']);

    // Rendering is the caller's choice, and returns text.
    expect(renderOutput('status', 'json', rows, createColors(false))).toContain('"parser.books-product"');

    expect(writes).toEqual([]);
    expect(exit).not.toHaveBeenCalled();
    expect(stdout).not.toHaveBeenCalled();
    expect(stderr).not.toHaveBeenCalled();
  });
});
