import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { applyPlan } from '../apply/apply-plan.js';
import { formatDuration } from '../duration.js';
import { startEmulator } from '../emulator/server.js';
import { ScrapeformError } from '../errors.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { renderPlan } from '../output/render-plan.js';
import { countDiagnostics, renderDiagnostics } from '../output/render-diagnostics.js';
import { loadManifests } from '../manifest/load-manifests.js';
import { openWorkspace } from '../workspace/open-workspace.js';
import type { Workspace } from '../workspace/open-workspace.js';
import { planWorkspace } from '../workspace/plan-workspace.js';
import type { CommandContext, RunCommand } from './io.js';
import { renderJson } from '../output/render-json.js';
import { callText } from '../output/call-text.js';

/** examples/quickstart in the installed package. */
const QUICKSTART = path.join(PACKAGE_ROOT, 'examples', 'quickstart');
const DEMO_KEY = 'demo-key';

export function registerDemo(program: Command, run: RunCommand): void {
  program
    .command('demo')
    .description('a scripted tour on the embedded emulator: plan, apply, parse, edit, plan, apply')
    .option('--generation-delay <ms>', 'how long the emulator takes to generate a parser', '1500')
    .action(async (flags: { generationDelay: string }) =>
      run((ctx) => demo(ctx, Number(flags.generationDelay))),
    );
}

/**
 * A real session on a temporary copy of examples/quickstart against the emulator started in this process:
 * everything shown is what the commands do, nothing is canned.
 */
async function demo(ctx: CommandContext, generationDelayMs: number): Promise<'ok'> {
  const { bold, dim, cyan } = ctx.stdoutColors;
  const started = Date.now();
  const workdir = await mkdtemp(path.join(tmpdir(), 'scrapeform-demo-'));
  const emulator = await startEmulator({
    port: 0,
    apiKeys: [DEMO_KEY],
    generationDelayMs: Number.isFinite(generationDelayMs) ? generationDelayMs : 1500,
  });
  const env = {
    SCRAPEFORM_PARSER_URL: emulator.url,
    SCRAPEFORM_PIPELINE_URL: emulator.url,
    SCRAPERAPI_API_KEY: DEMO_KEY,
  };
  let ws: Workspace | undefined;
  const step = (title: string): void => ctx.print(`\n${bold(cyan(`== ${title}`))}`);
  const indent = (text: string): string => text.replace(/^/gm, '  ');
  const open = async (): Promise<Workspace> => {
    await ws?.close();
    ws = await openWorkspace({
      env,
      paths: [workdir],
      statePath: path.join(workdir, '.scrapeform', 'state.json'),
    });
    return ws;
  };
  const applyAll = async (): Promise<void> => {
    const current = await open();
    const { plan, state } = await planWorkspace(current);
    const result = await applyPlan({
      plan,
      clients: current.clients,
      backend: current.backend,
      state,
      pollMinMs: 250,
      pollMaxMs: 1000,
      onEvent: (event) => {
        if (event.type === 'call') ctx.print(dim(`  ${event.address}  ${callText(event)}`));
        if (event.type === 'generation')
          ctx.print(
            `  ${event.address}  ${event.status}  version ${event.version}  ${formatDuration(event.elapsedMs)}`,
          );
      },
    });
    const failed = result.results.filter((r) => !r.ok);
    if (failed.length > 0)
      throw new ScrapeformError(
        'demo.failed',
        `the demo apply failed: ${failed.map((f) => f.error?.message).join('; ')}`,
      );
    ctx.print(`  applied: ${result.results.map((r) => `${r.address} ${r.action}`).join(', ')}`);
  };
  const showPlan = async (): Promise<void> => {
    const { plan } = await planWorkspace(await open());
    ctx.print(indent(renderPlan(plan, ctx.stdoutColors)));
  };

  try {
    await cp(QUICKSTART, workdir, { recursive: true });
    ctx.print(
      bold('scrapeform demo') +
        dim(` on the embedded emulator at ${emulator.url}, in a copy of examples/quickstart (${workdir})`),
    );

    step('1. validate: offline checks, with file:line:col for every mistake');
    const parserFile = path.join(workdir, 'books-product.yaml');
    const original = await readFile(parserFile, 'utf8');
    await writeFile(parserFile, original.replace('scraper_params:', 'scraperParams:'));
    const broken = await loadManifests({ paths: [workdir], env: {} });
    ctx.print(
      indent(
        renderDiagnostics(broken.diagnostics, { colors: ctx.stdoutColors }).replaceAll(
          workdir + path.sep,
          '',
        ),
      ),
    );
    ctx.print(
      dim(
        `  ${countDiagnostics(broken.diagnostics)}; nothing is ever sent while a manifest is invalid. Fixed again.`,
      ),
    );
    await writeFile(parserFile, original);

    step('2. plan: what the first apply will call');
    await showPlan();

    step('3. apply: the calls, then waiting for the parser to generate');
    await applyAll();

    step('4. parse a book page with the new parser');
    const current = await open();
    const parserId = String((await current.backend.read()).resources['parser.books-product']?.id);
    // With the parser's declared scraping parameters, as `scrapeform parse` and `test` send them.
    const parsed = await current.clients.parsers.parse(
      parserId,
      undefined,
      'https://books.example/catalogue/soumission_998/index.html',
      current.manifests.parsers.find((p) => p.address === 'parser.books-product')?.scraperParams,
    );
    ctx.print(indent(renderJson(parsed)));

    step('5. edit: rename availability to stock, sharpen the price description, add the UPC');
    const edited = original
      .replace('  availability:\n', '  stock:\n    renamed_from: availability\n')
      .replace(
        'Price including tax, as a number without currency sign',
        'Price including tax in pounds, as a number without currency sign',
      )
      .replace(
        '  reviews:\n',
        '  upc:\n    description: Universal product code from the product information table\n    selector: td.upc\n  reviews:\n',
      );
    await writeFile(parserFile, edited);
    ctx.print(
      dim('  the plan is one PATCH with only rename_fields, modify_fields and add_fields, and its cost:'),
    );
    await showPlan();

    step('6. apply the edit');
    await applyAll();

    step('7. plan again: nothing left to do');
    await showPlan();
    ctx.print(
      `\n${bold('Done')} in ${formatDuration(Date.now() - started)}. Try it yourself: scrapeform emulator, then plan and apply your own manifests.`,
    );
    return 'ok';
  } finally {
    await ws?.close();
    await emulator.close();
    await rm(workdir, { recursive: true, force: true });
  }
}
