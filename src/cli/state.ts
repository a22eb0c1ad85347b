import { readFile } from 'node:fs/promises';
import { stable } from '../plan/plan-context.js';
import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { checkStateFormat, emptyState, stateShapeProblem } from '../state/model.js';
import { whileHolding } from '../state/backend.js';
import type { StateBackend } from '../state/backend.js';
import type { State } from '../state/model.js';
import { parseStateJson, SAVE_AS_UTF8 } from '../state/state-text.js';
import { openState, using } from '../workspace/open-workspace.js';
import type { RunStatus } from './exit-codes.js';
import type { RunCommand } from './io.js';
import {
  addLockFlags,
  addStateFlags,
  environmentOf,
  openStateFromFlags,
  stateOptions,
} from './shared-flags.js';
import type { EnvironmentFlags } from './shared-flags.js';
import { renderJson } from '../output/render-json.js';

interface StateFlags extends EnvironmentFlags {
  state?: string;
  workspace?: string;
  force?: boolean;
  lockTimeout?: string;
}

/** `state pull` and `state push`: move state between backends (a file and a database, or two databases). */
export function registerState(program: Command, run: RunCommand): void {
  const state = program.command('state').description('move state between backends');
  addStateFlags(
    state.command('pull').description('print the state of a backend as JSON (redirect it to a file)'),
  ).action(async (flags: StateFlags) =>
    run(async (ctx) => {
      const state = await using(openStateFromFlags(ctx, flags), ({ backend }) => backend.read());
      ctx.print(renderJson(state));
      return 'ok';
    }),
  );
  const push = state
    .command('push')
    .description(
      'write a state JSON file into a backend (refused for a lower serial, another lineage, or the same serial with other content)',
    )
    .argument('<file>', 'a state JSON file (from state pull, or .scrapeform/state.json)');
  addStateFlags(push).option(
    '--force',
    'push even over a higher serial, another lineage, a diverged state of the same serial, or a state no command can read',
  );
  addLockFlags(push).action(async (file: string, flags: StateFlags) =>
    run(async (ctx) => {
      // Where to push is checked before the file is read: a bad --state reads and writes nothing.
      const where = stateOptions(ctx, flags, environmentOf(ctx, flags));
      const incoming = await readPushedState(file);
      return using(openState(where), async ({ backend }): Promise<RunStatus> => {
        const lock = await backend.lock('state push');
        return whileHolding(lock, async (): Promise<RunStatus> => {
          const current = await readReplaced(backend, file, flags.force === true, ctx.log);
          const problems: string[] = [];
          // A file without a lineage (written by hand, or pulled from a backend never written) takes the
          // backend's: the write would otherwise give it a new random one, and every saved plan and copy of the
          // backend's state would then be of "another lineage".
          const lineage = incoming.lineage !== '' ? incoming.lineage : current.lineage;
          if (current.lineage !== '' && incoming.lineage !== '' && current.lineage !== incoming.lineage) {
            problems.push(`its lineage ${incoming.lineage} differs from the backend's ${current.lineage}`);
          }
          if (incoming.serial < current.serial)
            problems.push(`its serial ${incoming.serial} is lower than the backend's ${current.serial}`);
          // The same serial with other content: both were written from one state by different runs (a copy
          // applied elsewhere), and pushing would drop what the backend's run recorded.
          if (incoming.serial === current.serial && !sameContent(incoming, current))
            problems.push(
              `its serial ${incoming.serial} is the backend's, but its content differs (the two diverged from one state)`,
            );
          if (problems.length > 0 && flags.force !== true) {
            throw new ScrapeformError(
              'state.push-refused',
              `refusing to push ${file}: ${problems.join('; ')}`,
              {
                hint: 'pull first to see what is there; --force overwrites it',
              },
            );
          }
          if (incoming.lineage === '' && current.lineage !== '')
            ctx.log(`${file} has no lineage: the backend keeps its own (${current.lineage})`);
          // Stored one above the higher of the two serials (nextState): the file pushed is then a lower serial than
          // the backend, and pushing the same copy again after later applies is refused instead of rolling them back.
          const written = await backend.write({
            ...incoming,
            lineage,
            serial: Math.max(incoming.serial, current.serial),
          });
          const count = Object.keys(incoming.resources).length;
          ctx.print(
            `Pushed ${count} ${count === 1 ? 'object' : 'objects'} to ${backend.location} (serial ${written.serial}).`,
          );
          return 'ok';
        });
      });
    }),
  );
}

/**
 * The file to push, checked as the backends check what they read (checkStateFormat), before the lock is taken: a
 * file they would refuse (no lineage, `resources: null`) is never written, where it would fail every later command.
 */
async function readPushedState(file: string): Promise<State> {
  let parsed: ReturnType<typeof parseStateJson>;
  try {
    parsed = parseStateJson(await readFile(file));
  } catch (error) {
    parsed = { problem: (error as Error).message, notUtf8: false };
  }
  if ('problem' in parsed) {
    throw new ScrapeformError('state.push-unreadable', `cannot read ${file}: ${parsed.problem}`, {
      hint: parsed.notUtf8 ? SAVE_AS_UTF8 : PUSH_HINT,
    });
  }
  const data = parsed.data;
  try {
    return checkStateFormat(data, file);
  } catch (error) {
    if (!(error instanceof ScrapeformError) || error.code !== 'state.corrupt') throw error;
    throw new ScrapeformError(
      'state.push-unreadable',
      `${file} is not a scrapeform state (${stateShapeProblem(data)}): nothing was pushed`,
      { hint: PUSH_HINT },
    );
  }
}

/**
 * The state the push replaces. One no command can read (state.corrupt) is replaced only with --force: the hint of
 * state.corrupt is to restore a backup, and in PostgreSQL a push is the only way in. With nothing to compare, the
 * file is written as it is. A state of a newer scrapeform is refused even so: pushing would downgrade it.
 */
async function readReplaced(
  backend: StateBackend,
  file: string,
  force: boolean,
  log: (text: string) => void,
): Promise<State> {
  try {
    return await backend.read();
  } catch (error) {
    if (!(error instanceof ScrapeformError) || error.code !== 'state.corrupt') throw error;
    if (!force)
      throw new ScrapeformError('state.corrupt', error.message, {
        hint: `to put ${file} in its place, push it again with --force`,
      });
    log(`${error.message}: --force replaces it with ${file}`);
    return emptyState('');
  }
}

const PUSH_HINT = 'push a file written by state pull, or a .scrapeform/state.json';

/**
 * Whether two states record the same objects, pending creates and parsers being deleted, whatever order their keys
 * were written in.
 */
function sameContent(a: State, b: State): boolean {
  return (
    stable({ resources: a.resources, intents: a.intents ?? {}, deleting: a.deleting ?? {} }) ===
    stable({ resources: b.resources, intents: b.intents ?? {}, deleting: b.deleting ?? {} })
  );
}
