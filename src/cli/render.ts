import type { Command } from 'commander';
import { narrowedSelects } from '../model/desired.js';
import { loadAllEnvironments, loadManifests } from '../manifest/load-manifests.js';
import { renderManifests } from '../manifest/render-manifests.js';
import type { RunCommand } from './io.js';
import { addEnvironmentFlags, environmentOptions } from './environment-flags.js';
import type { EnvironmentFlags } from './environment-flags.js';
import { reportDiagnostics } from './validate.js';

/** `scrapeform render`: the fully expanded manifests (templates, for_each, variables), offline. */
export function registerRender(program: Command, run: RunCommand): void {
  const command = program
    .command('render')
    .description('print the fully expanded manifests (templates, for_each and variables applied), offline')
    .argument(
      '[paths...]',
      "manifest files or folders (default: the current folder, or the environment's paths)",
    );
  addEnvironmentFlags(command).action(async (paths: string[], flags: EnvironmentFlags) =>
    run(async (ctx) => {
      const options = { paths, env: ctx.io.env, ...environmentOptions(flags) };
      // Without --env every environment is shown in turn, each document saying which it belongs to.
      const loaded =
        flags.env !== undefined
          ? { ...(await loadManifests(options)), environments: undefined }
          : await loadAllEnvironments(options);
      await reportDiagnostics(ctx, loaded);
      if (!loaded.valid) return 'error';
      // Paths named with --env narrow what is shown; every object of the environment was read and checked.
      const kept = narrowedSelects('narrowedTo' in loaded ? loaded.narrowedTo : undefined);
      const shown = (o: { address: string }): boolean => kept(o.address);
      const sets =
        loaded.environments !== undefined && loaded.environments.length > 0
          ? loaded.environments.map((e) => ({ environment: e.name, objects: [...e.parsers, ...e.projects] }))
          : [
              {
                ...(flags.env !== undefined ? { environment: flags.env } : {}),
                objects: [...loaded.parsers, ...loaded.projects].filter(shown),
              },
            ];
      const text = renderManifests(sets);
      if (text !== '') ctx.print(text.replace(/\n$/, ''));
      else ctx.log(ctx.colors.yellow('warning: no manifests to render'));
      return 'ok';
    }),
  );
}
