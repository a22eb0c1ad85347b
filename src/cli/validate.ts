import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadManifests } from '../manifest/load-manifests.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import { countDiagnostics, renderDiagnostics } from '../output/render-diagnostics.js';
import type { RunStatus } from './exit-codes.js';
import type { CommandContext, RunCommand } from './io.js';

export function registerValidate(program: Command, run: RunCommand): void {
  program
    .command('validate')
    .description('check manifests offline (no API key needed)')
    .argument('[paths...]', 'manifest files or folders (default: the current folder)')
    .option('--json', 'print the diagnostics as JSON on stdout')
    .action(async (paths: string[], options: { json?: boolean }) =>
      run((ctx) => validate(ctx, paths, options.json === true)),
    );
}

async function validate(ctx: CommandContext, paths: string[], json: boolean): Promise<RunStatus> {
  const loaded = await loadManifests({ paths, env: ctx.io.env });
  if (json) {
    ctx.print(
      JSON.stringify(
        {
          valid: loaded.valid,
          files: loaded.files,
          parsers: loaded.parsers.map((p) => p.address),
          projects: loaded.projects.map((p) => p.address),
          diagnostics: loaded.diagnostics,
        },
        null,
        2,
      ),
    );
    return loaded.valid ? 'ok' : 'error';
  }
  await reportDiagnostics(ctx, loaded);
  if (!loaded.valid) return 'error';
  ctx.print(
    `${ctx.stdoutColors.green('Valid:')} ${plural(loaded.files.length, 'file')}, ${plural(loaded.parsers.length, 'parser')}, ${plural(loaded.projects.length, 'project')}.`,
  );
  if (loaded.files.length === 0)
    ctx.log(ctx.colors.yellow(`warning: no *.yaml or *.yml files under ${paths.join(', ') || '.'}`));
  return 'ok';
}

/** Prints diagnostics to stderr, with code frames on a terminal. Shared by every command that loads manifests. */
export async function reportDiagnostics(ctx: CommandContext, loaded: LoadedManifests): Promise<void> {
  if (loaded.diagnostics.length === 0) return;
  const sources = new Map<string, string>();
  if (ctx.io.stderrIsTTY) {
    for (const file of new Set(loaded.diagnostics.map((d) => d.file))) {
      try {
        sources.set(file, await readFile(file, 'utf8'));
      } catch {
        // A frame is a nicety; the diagnostic itself already names the place.
      }
    }
  }
  ctx.log(renderDiagnostics(loaded.diagnostics, { colors: ctx.colors, sources }));
  ctx.log(countDiagnostics(loaded.diagnostics));
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
