import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { NOT_PATH_ARGUMENTS, PATH_ARGUMENTS } from '../../../src/cli/completion.js';
import { COMMAND_MODULES } from '../../../src/cli/main.js';

/** Every command of the real program (hidden ones and subcommands included), as `name <argument>` for each argument. */
async function commandArguments(): Promise<string[]> {
  const program = new Command();
  const run = async (): Promise<void> => {
    throw new Error('no command runs here');
  };
  for (const register of await Promise.all(COMMAND_MODULES.map((m) => m.load()))) register(program, run);
  const found: string[] = [];
  const visit = (command: Command, prefix: string): void => {
    for (const sub of command.commands) {
      const name = `${prefix}${sub.name()}`;
      for (const argument of sub.registeredArguments) found.push(`${name} <${argument.name()}>`);
      visit(sub, `${name} `);
    }
  };
  visit(program, '');
  return found;
}

const argumentName = (entry: string): string => /<([^>]+)>$/.exec(entry)?.[1] ?? '';

describe('completion: which arguments are paths', () => {
  it('every argument of every command is known to be a path (TAB offers files) or known not to be one', async () => {
    const all = await commandArguments();
    // The walk sees the real commands: the one-path ones, a variadic one, and hidden __complete.
    expect(all).toEqual(
      expect.arrayContaining([
        'show <planfile>',
        'state push <file>',
        'validate <paths>',
        '__complete <kind>',
      ]),
    );
    const undecided = all.filter(
      (a) => !PATH_ARGUMENTS.has(argumentName(a)) && !NOT_PATH_ARGUMENTS.has(argumentName(a)),
    );
    expect(
      undecided,
      'add each argument name to PATH_ARGUMENTS or NOT_PATH_ARGUMENTS in src/cli/completion.ts',
    ).toEqual([]);
  });

  it('no name is both a path and not one, and each names an argument of some command', async () => {
    const names = new Set((await commandArguments()).map(argumentName));
    expect([...PATH_ARGUMENTS].filter((n) => NOT_PATH_ARGUMENTS.has(n))).toEqual([]);
    expect([...PATH_ARGUMENTS, ...NOT_PATH_ARGUMENTS].filter((n) => !names.has(n))).toEqual([]);
  });
});
