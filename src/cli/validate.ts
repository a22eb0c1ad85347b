import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { loadAllEnvironments, loadManifests } from '../manifest/load-manifests.js';
import type { LoadedEnvironment, LoadedManifests } from '../manifest/load-manifests.js';
import { sortDiagnostics } from '../manifest/diagnostic.js';
import { mistypedStateLocations } from '../manifest/state-locations.js';
import { countDiagnostics, renderDiagnostics } from '../output/render-diagnostics.js';
import type { RunStatus } from './exit-codes.js';
import type { CommandContext, RunCommand } from './io.js';
import { addEnvironmentFlags, environmentOptions } from './environment-flags.js';
import type { EnvironmentFlags } from './environment-flags.js';
import { renderJson } from '../output/render-json.js';

export function registerValidate(program: Command, run: RunCommand): void {
  const command = program
    .command('validate')
    .description('check manifests offline (no API key needed); without --env, every environment')
    .argument('[paths...]', 'manifest files or folders (default: the current folder)')
    .option('--json', 'print the diagnostics as JSON on stdout');
  addEnvironmentFlags(command).action(
    async (paths: string[], options: EnvironmentFlags & { json?: boolean }) =>
      run((ctx) => validate(ctx, paths, options)),
  );
}

async function validate(
  ctx: CommandContext,
  paths: string[],
  flags: EnvironmentFlags & { json?: boolean },
): Promise<RunStatus> {
  const json = flags.json === true;
  const options = { paths, env: ctx.io.env, ...environmentOptions(flags) };
  // `validate --env NAME` checks one environment; `validate` alone every environment of scrapeform.yaml.
  const read: LoadedManifests & { environments?: LoadedEnvironment[] } =
    flags.env !== undefined ? await loadManifests(options) : await loadAllEnvironments(options);
  // The state each environment would open, checked as the commands that open it do (a mistyped PostgreSQL URL).
  const states = mistypedStateLocations({ paths, env: ctx.io.env, environment: flags.env });
  const loaded =
    states.length === 0
      ? read
      : { ...read, diagnostics: sortDiagnostics([...read.diagnostics, ...states]), valid: false };
  const environments = loaded.environments ?? [];
  if (json) {
    ctx.print(
      renderJson({
        valid: loaded.valid,
        files: loaded.files,
        parsers: [...new Set(loaded.parsers.map((p) => p.address))],
        projects: [...new Set(loaded.projects.map((p) => p.address))],
        ...(environments.length > 0
          ? {
              environments: Object.fromEntries(
                environments.map((e) => [
                  e.name,
                  { parsers: e.parsers.map((p) => p.address), projects: e.projects.map((p) => p.address) },
                ]),
              ),
            }
          : {}),
        diagnostics: loaded.diagnostics,
      }),
    );
    return loaded.valid ? 'ok' : 'error';
  }
  await reportDiagnostics(ctx, loaded);
  if (!loaded.valid) return 'error';
  const counts =
    environments.length > 0
      ? environments
          .map(
            (e) =>
              `${e.name}: ${plural(e.parsers.length, 'parser')}, ${plural(e.projects.length, 'project')}`,
          )
          .join('; ')
      : `${plural(loaded.parsers.length, 'parser')}, ${plural(loaded.projects.length, 'project')}`;
  const chosen = loaded.environment !== undefined ? ` (environment ${loaded.environment.name})` : '';
  ctx.print(
    `${ctx.stdoutColors.green('Valid:')} ${plural(loaded.files.length, 'file')}, ${counts}${chosen}.`,
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
