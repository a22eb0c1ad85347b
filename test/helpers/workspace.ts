import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyPlan } from '../../src/apply/apply-plan.js';
import type { ApplyResult } from '../../src/apply/apply-model.js';
import type { ApiClients } from '../../src/api/create-clients.js';
import { loadManifests } from '../../src/manifest/load-manifests.js';
import { buildPlan } from '../../src/plan/build-plan.js';
import { refreshState } from '../../src/plan/refresh-state.js';
import type { PlanOptions } from '../../src/plan/build-plan.js';
import type { LiveSnapshot, Plan } from '../../src/plan/model.js';
import { parsePlanFile } from '../../src/plan/plan-file.js';
import { renderSavedPlan } from '../../src/output/render-saved-plan.js';
import { renderPlanJson } from '../../src/output/render-plan-json.js';
import type { LiveProject } from '../../src/api/live.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import type { State } from '../../src/state/model.js';
import { readLive } from '../../src/workspace/read-live.js';
import { EMULATOR_KEY } from './emulator.js';
import type { EmulatorHarness } from './emulator.js';
import { emulatorEnv, runBuiltCli } from './child-cli.js';
import type { ChildRun } from './child-cli.js';

/** A manifests folder and a state file in a temporary directory, planned and applied in-process against an emulator. */
export class TestWorkspace {
  readonly backend: FileStateBackend;
  readonly clients: ApiClients;

  private constructor(
    readonly dir: string,
    readonly h: EmulatorHarness,
    /** `cli` plans and applies through the built CLI as a child process, as users and CI do. */
    readonly mode: 'library' | 'cli' = 'library',
  ) {
    this.backend = new FileStateBackend(path.join(dir, '.scrapeform', 'state.json'));
    this.clients = { parsers: h.parsers, projects: h.projects, close: async () => undefined };
  }

  static async create(h: EmulatorHarness, mode: 'library' | 'cli' = 'library'): Promise<TestWorkspace> {
    return new TestWorkspace(await mkdtemp(path.join(tmpdir(), 'scrapeform-ws-')), h, mode);
  }

  private async cli(args: string[]): Promise<ChildRun> {
    return runBuiltCli([...args, '--state', this.backend.location], {
      cwd: this.dir,
      env: emulatorEnv(this.h.emulator.url, EMULATOR_KEY),
    });
  }

  private static cliError(run: ChildRun): Error {
    const message = /^error: (.*)$/m.exec(run.stderr)?.[1] ?? run.stderr;
    return new Error(message);
  }

  /** Replaces the manifests with these files (name -> YAML). */
  async write(files: Record<string, string>): Promise<void> {
    await rm(path.join(this.dir, 'manifests'), { recursive: true, force: true });
    await mkdir(path.join(this.dir, 'manifests'), { recursive: true });
    for (const [name, text] of Object.entries(files))
      await writeFile(path.join(this.dir, 'manifests', name), text);
  }

  async state(): Promise<State> {
    return this.backend.read();
  }

  async plan(options: PlanOptions = {}): Promise<Plan> {
    if (this.mode === 'cli') {
      const selection = [
        ...(options.targets ?? []).flatMap((t) => ['--target', t]),
        ...(options.excludes ?? []).flatMap((t) => ['--exclude', t]),
      ];
      const run = await this.cli(['plan', 'manifests', '--json', ...selection]);
      if (run.code !== 0) throw TestWorkspace.cliError(run);
      return parsePlanFile(run.stdout, 'the output of plan --json');
    }
    const loaded = await loadManifests({ paths: [path.join(this.dir, 'manifests')], env: {} });
    if (!loaded.valid) throw new Error(`invalid manifests: ${JSON.stringify(loaded.diagnostics)}`);
    const state = await this.backend.read();
    const live = await readLive(this.clients, loaded, state);
    return buildPlan({ parsers: loaded.parsers, projects: loaded.projects, state, live, options });
  }

  /**
   * The dual check: the same plan built from fixture data instead of the emulator, the live side written from
   * what state says was applied (each parser FINISHED at its recorded version; each project as sent, with the
   * service's defaults). It equals the emulator's plan only when the emulator reports what the model expects.
   */
  async planFromFixture(options: PlanOptions = {}): Promise<Plan> {
    const loaded = await loadManifests({ paths: [path.join(this.dir, 'manifests')], env: {} });
    const state = await this.backend.read();
    const live: LiveSnapshot = { parsers: [], details: {}, projects: [] };
    for (const resource of Object.values(state.resources)) {
      if (resource.kind === 'Parser') {
        live.parsers.push({
          id: resource.id,
          name: resource.name,
          status: 'FINISHED',
          error: null,
          generated_at: null,
          version: resource.version ?? 0,
        });
      } else {
        live.projects.push({
          id: resource.id,
          output_format: 'JSON',
          webhookOutput: null,
          notificationConfig: { notifyOnSuccess: 'never', notifyOnFailure: 'with_every_run' },
          apiParams: {},
          scrapingInterval: 'weekly',
          ...resource.definition,
        } as LiveProject);
      }
    }
    const plan = buildPlan({ parsers: loaded.parsers, projects: loaded.projects, state, live, options });
    // In cli mode the other side is the public plan format read back, which leaves out what only the human and
    // Markdown renderers use (the old parser of a replace): compare like with like.
    return this.mode === 'cli' ? parsePlanFile(renderPlanJson(plan), 'the fixture plan') : plan;
  }

  /** `waitTimeoutMs`: how long each generation is waited for (a short `--wait-timeout`). */
  async applyChanges(
    plan?: Plan,
    options: { noWait?: boolean; waitTimeoutMs?: number } = {},
  ): Promise<ApplyResult> {
    if (this.mode === 'cli') {
      const args = [
        'apply',
        'manifests',
        '--auto-approve',
        '--allow-destroy',
        '--allow-adopt',
        '--json',
        ...(options.noWait === true ? ['--no-wait'] : []),
        ...(options.waitTimeoutMs !== undefined ? ['--wait-timeout', `${options.waitTimeoutMs}ms`] : []),
      ];
      if (plan !== undefined) {
        await writeFile(path.join(this.dir, 'plan.json'), renderSavedPlan(plan));
        args.push('--plan', 'plan.json');
      }
      const run = await this.cli(args);
      if (!run.stdout.trim().startsWith('{')) throw TestWorkspace.cliError(run);
      const output = JSON.parse(run.stdout) as { status: string; results: ApplyResult['results'] };
      return {
        results: output.results,
        state: await this.backend.read(),
        interrupted: output.status === 'interrupted',
      };
    }
    const toApply = plan ?? (await this.plan());
    // As apply does before its calls: what a previous run left (a create it never recorded, a version that
    // finished since) is recorded first.
    const read = await this.backend.read();
    const loaded = await loadManifests({ paths: [path.join(this.dir, 'manifests')], env: {} });
    // The same reads apply makes: only the services the workspace uses (a parsers-only key never meets projects).
    const refreshed = refreshState(read, await readLive(this.clients, loaded, read));
    const state = refreshed !== undefined ? await this.backend.write(refreshed) : read;
    return applyPlan({
      plan: toApply,
      clients: this.clients,
      backend: this.backend,
      state,
      pollMinMs: 5,
      pollMaxMs: 20,
      ...(options.noWait !== undefined ? { noWait: options.noWait } : {}),
      ...(options.waitTimeoutMs !== undefined ? { waitTimeoutMs: options.waitTimeoutMs } : {}),
    });
  }

  /** Plan, apply (everything must succeed), then a second plan must be empty: convergence. */
  async converge(): Promise<{ plan: Plan; result: ApplyResult }> {
    const plan = await this.plan();
    const result = await this.applyChanges(plan);
    const failed = result.results.filter((r) => !r.ok);
    if (failed.length > 0) throw new Error(`apply failed: ${JSON.stringify(failed)}`);
    const second = await this.plan();
    if (second.status !== 'no_changes') {
      throw new Error(
        `the second plan is not empty: ${JSON.stringify(second.resource_changes.map((c) => [c.address, c.action, c.reasons]))}`,
      );
    }
    return { plan, result };
  }
}

export const BOOK_A = 'https://books.example/catalogue/a-light-in-the-attic_1000/index.html';
export const BOOK_B = 'https://books.example/catalogue/tipping-the-velvet_999/index.html';

export function bookParser(fields: string, extra = ''): string {
  return `kind: Parser\nname: books\nurls: [${BOOK_A}, ${BOOK_B}]\n${extra}fields:\n${fields}`;
}

/**
 * parser.books (its title field) with one expect check a page of `urls`, each expecting the title "x", which no
 * page has: every check that runs fails.
 */
export function booksChecking(urls: readonly string[]): string {
  return bookParser(
    '  title: { description: Book title, selector: h1 }\n',
    `expect:\n${urls.map((u) => `  - url: ${u}\n    result: { title: x }\n`).join('')}`,
  );
}

/** A workspace of booksChecking(urls), applied against the emulator of `h`. */
export async function appliedBooksChecking(
  h: EmulatorHarness,
  urls: readonly string[],
): Promise<TestWorkspace> {
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': booksChecking(urls) });
  await ws.applyChanges(await ws.plan());
  return ws;
}
