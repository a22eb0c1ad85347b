import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import type { State } from '../state/model.js';
import { openState, using } from '../workspace/open-workspace.js';
import type { RunStatus } from './exit-codes.js';
import type { RunCommand } from './io.js';
import { addLockFlags, environmentOf, openStateFromFlags, stateOptions } from './shared-flags.js';

interface StateFlags {
  env?: string;
  state?: string;
  workspace?: string;
  force?: boolean;
  lockTimeout?: string;
}

/** `state pull` and `state push`: move state between backends (a file and a database, or two databases). */
export function registerState(program: Command, run: RunCommand): void {
  const state = program.command('state').description('move state between backends');
  state
    .command('pull')
    .description('print the state of a backend as JSON (redirect it to a file)')
    .option('--env <name>', 'the environment of scrapeform.yaml whose state to use')
    .option('--state <path-or-url>', 'state file, or a postgres:// URL')
    .option(
      '--workspace <name>',
      'the workspace: .scrapeform/NAME/state.json, or its own table in PostgreSQL',
    )
    .action(async (flags: StateFlags) =>
      run(async (ctx) => {
        const state = await using(openStateFromFlags(ctx, flags), ({ backend }) => backend.read());
        ctx.print(JSON.stringify(state, null, 2));
        return 'ok';
      }),
    );
  const push = state
    .command('push')
    .description('write a state JSON file into a backend (refused for a lower serial or another lineage)')
    .argument('<file>', 'a state JSON file (from state pull, or .scrapeform/state.json)')
    .option('--env <name>', 'the environment of scrapeform.yaml whose state to use')
    .option('--state <path-or-url>', 'state file, or a postgres:// URL')
    .option(
      '--workspace <name>',
      'the workspace: .scrapeform/NAME/state.json, or its own table in PostgreSQL',
    )
    .option('--force', 'push even over a higher serial or another lineage');
  addLockFlags(push).action(async (file: string, flags: StateFlags) =>
    run(async (ctx) => {
      // Where to push is checked before the file is read: a bad --state reads and writes nothing.
      const where = stateOptions(ctx, flags, environmentOf(ctx, flags));
      let incoming: State;
      try {
        incoming = JSON.parse(await readFile(file, 'utf8')) as State;
      } catch (error) {
        throw new ScrapeformError(
          'state.push-unreadable',
          `cannot read ${file}: ${(error as Error).message}`,
        );
      }
      if (
        incoming.format_version !== 1 ||
        typeof incoming.serial !== 'number' ||
        typeof incoming.resources !== 'object'
      ) {
        throw new ScrapeformError('state.push-unreadable', `${file} is not a scrapeform state`);
      }
      return using(openState(where), async ({ backend }): Promise<RunStatus> => {
        const lock = await backend.lock('state push');
        try {
          const current = await backend.read();
          const problems: string[] = [];
          if (current.lineage !== '' && incoming.lineage !== '' && current.lineage !== incoming.lineage) {
            problems.push(`its lineage ${incoming.lineage} differs from the backend's ${current.lineage}`);
          }
          if (incoming.serial < current.serial)
            problems.push(`its serial ${incoming.serial} is lower than the backend's ${current.serial}`);
          if (problems.length > 0 && flags.force !== true) {
            throw new ScrapeformError(
              'state.push-refused',
              `refusing to push ${file}: ${problems.join('; ')}`,
              {
                hint: 'pull first to see what is there; --force overwrites it',
              },
            );
          }
          const written = await backend.write({
            ...incoming,
            serial: Math.max(incoming.serial, current.serial),
          });
          const count = Object.keys(incoming.resources).length;
          ctx.print(
            `Pushed ${count} ${count === 1 ? 'object' : 'objects'} to ${backend.location} (serial ${written.serial}).`,
          );
          return 'ok';
        } finally {
          await lock.release();
        }
      });
    }),
  );
}
