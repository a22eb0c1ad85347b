import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { loadManifests } from '../manifest/load-manifests.js';
import { countDiagnostics, renderDiagnostics } from '../output/render-diagnostics.js';
import type { CommandContext, RunCommand } from './io.js';

/** examples/quickstart in the installed package (two levels up from dist/cli or src/cli). */
const QUICKSTART = fileURLToPath(new URL('../../examples/quickstart', import.meta.url));

export function registerDemo(program: Command, run: RunCommand): void {
  program
    .command('demo')
    .description('a scripted tour of scrapeform on the examples/quickstart manifests')
    .action(async () => run((ctx) => demo(ctx)));
}

/**
 * The tour of what scrapeform does today: validate the quickstart, break it the ways people do, and read the
 * diagnostics. Plan and apply on the embedded emulator join the tour when they land (see README, Status).
 */
async function demo(ctx: CommandContext): Promise<'ok'> {
  const { bold, dim, cyan } = ctx.stdoutColors;
  const workdir = await mkdtemp(path.join(tmpdir(), 'scrapeform-demo-'));
  try {
    await cp(QUICKSTART, workdir, { recursive: true });
    const step = (title: string): void => ctx.print(`\n${bold(cyan(`== ${title}`))}`);
    ctx.print(bold('scrapeform demo') + dim(` (a copy of examples/quickstart in ${workdir})`));

    step('1. Validate the quickstart manifests (offline, no API key)');
    let loaded = await loadManifests({ paths: [workdir], env: {} });
    for (const parser of loaded.parsers) {
      ctx.print(
        `  ${parser.address}: ${parser.urls.length} example URLs, ${parser.fields.length} fields (flattened to the API's dot notation):`,
      );
      for (const field of parser.fields)
        ctx.print(dim(`    ${field.name}${field.type !== undefined ? ` (${field.type})` : ''}`));
    }
    for (const project of loaded.projects) {
      ctx.print(
        `  ${project.address}: ${project.projectType}, ${project.projectInput.type === 'list' ? `${project.projectInput.list.length} inputs` : 'webhook input'}, ${project.scrapingInterval ?? 'once'}`,
      );
    }
    ctx.print(
      loaded.valid
        ? '  valid: nothing would be sent that the services would reject'
        : '  unexpected: the quickstart is invalid',
    );

    step('2. Make the mistakes people make, and read what scrapeform says');
    const parserFile = path.join(workdir, 'books-product.yaml');
    const original = await readFile(parserFile, 'utf8');
    const broken = original
      .replace('scraper_params:', 'scraperParams:')
      .replace('    type: number\n  availability:', '    type: numeric\n  availability:')
      .replace(
        '  - https://books.example/catalogue/tipping-the-velvet_999/index.html',
        '  - books.example/catalogue/tipping-the-velvet_999/index.html',
      );
    await writeFile(parserFile, broken);
    ctx.print(
      dim('  renamed scraper_params to scraperParams, typed price as "numeric", dropped a URL scheme'),
    );
    loaded = await loadManifests({ paths: [workdir], env: {} });
    const rendered = renderDiagnostics(loaded.diagnostics, { colors: ctx.stdoutColors });
    ctx.print(rendered.replaceAll(workdir + path.sep, '').replace(/^/gm, '  '));
    ctx.print(
      `  ${countDiagnostics(loaded.diagnostics)}: every problem of every file at once, each with file:line:col`,
    );

    step('3. What comes next');
    ctx.print('  Editors: `scrapeform schema` prints the JSON Schema behind completion and hover.');
    ctx.print(
      '  Plan, apply and the embedded emulator are being built; this tour grows with them (README, Status).',
    );
    return 'ok';
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}
