import { Argument } from 'commander';
import type { Command, Option } from 'commander';
import { ScrapeformError } from '../errors.js';
import { bashScript } from './completion-bash.js';
import { fishScript } from './completion-fish.js';
import { argumentPositions, environments, quote } from './completion-model.js';
import type { CompletionEntry, ValueKind } from './completion-model.js';
import type { RunCommand } from './io.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** Flags whose value is one of a fixed set (each command checks it; these are the words it accepts). */
const FLAG_WORDS: Readonly<Record<string, readonly string[]>> = { '--only': ['parsers', 'projects'] };

/** `scrapeform completion bash|zsh|fish`: a completion script made from the commands as they are defined. */
export function registerCompletion(program: Command, run: RunCommand): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    // Its choices are what TAB offers; the action checks the word itself, with the house's usage error, in place of
    // commander's own check (which argParser replaces).
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS).argParser((shell: string) => shell))
    .action(async (shell: string) =>
      run(async (ctx) => {
        if (!(SHELLS as readonly string[]).includes(shell)) {
          throw new ScrapeformError(
            'cli.usage',
            `completion: unknown shell "${shell}"; use ${SHELLS.join(', ')}`,
          );
        }
        ctx.print(completionScript(shell as Shell, commandTree(program), globalOptions(program)));
        return 'ok';
      }),
    );
}

function commandTree(program: Command): CompletionEntry[] {
  const entries: CompletionEntry[] = [];
  const visit = (command: Command, prefix: string): void => {
    // `__complete` is the scripts' own helper, not a command to offer.
    for (const sub of command.commands.filter((c) => !c.name().startsWith('__'))) {
      const name = `${prefix}${sub.name()}`;
      entries.push({
        name,
        description: sub.description(),
        options: longOptions(sub.options),
        ...argumentsOf(sub),
      });
      visit(sub, `${name} `);
    }
  };
  visit(program, '');
  return entries;
}

/** The arguments that name files or folders: `[paths...]`, `<planfile>`, `<file>` (not an address, id, URL...). */
export const PATH_ARGUMENTS: ReadonlySet<string> = new Set(['paths', 'planfile', 'file']);

/**
 * The arguments known to name no file (TAB offers none, or their choices). A command's argument in neither set fails
 * a test (test/unit/cli/completion-arguments.test.ts): whoever adds one decides whether TAB should offer files.
 */
export const NOT_PATH_ARGUMENTS: ReadonlySet<string> = new Set([
  'address',
  'url',
  'job-id',
  'lock-id',
  'kind',
  'shell',
]);

/** What each of a command's own arguments is: paths, one of its choices (`completion <shell>`), or neither. */
function argumentsOf(command: Command): Pick<CompletionEntry, 'arguments' | 'variadic'> {
  const kinds = command.registeredArguments.map((a): ValueKind => {
    if (PATH_ARGUMENTS.has(a.name())) return { kind: 'file' };
    return a.argChoices === undefined ? { kind: 'none' } : { kind: 'words', words: a.argChoices };
  });
  return { arguments: kinds, variadic: command.registeredArguments.at(-1)?.variadic === true };
}

/** The program's own options, written before the command (`--chdir DIR`, `--no-color`...), and `--help`. */
function globalOptions(program: Command): CompletionEntry['options'] {
  return [
    ...longOptions(program.options),
    { flag: '--help', description: 'print the help', takesValue: false },
  ];
}

function longOptions(options: readonly Option[]): CompletionEntry['options'] {
  return options
    .filter((o) => o.long !== undefined)
    .map((o) => {
      const takesValue = o.required || o.optional;
      const flag = o.long as string;
      return { flag, description: o.description, takesValue, ...(takesValue ? { value: valueKind(o) } : {}) };
    });
}

/** From the flag, then the name of its value (`<file>`, `<dir>`, `<path-or-url>`...). */
function valueKind(option: Option): ValueKind {
  const words = FLAG_WORDS[option.long ?? ''];
  if (option.long === '--env') return { kind: 'env' };
  if (words !== undefined) return { kind: 'words', words };
  const name = /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1] ?? '';
  if (name === 'dir') return { kind: 'dir' };
  return ['file', 'path', 'path-or-url'].includes(name) ? { kind: 'file' } : { kind: 'none' };
}

/** Zsh: files of the folder of a `--chdir DIR` before the command (`$chdir`, `.` without one), as bash's. */
const ZSH_FILES = '_files -W "$chdir"';

/**
 * A command's long options as `_arguments` specs: `'--flag[description]'`, and `'--flag=[description]:value:'` when
 * it takes one: the `=` lets the value follow in the same word (`--env=prod`, as commander reads it) or the next.
 */
function zshOptions(e: CompletionEntry): string[] {
  return e.options.map(
    (o) =>
      `'${o.flag}${o.value ? '=' : ''}[${quote(o.description).replace(/[[\]]/g, '')}]${o.value ? zshValue(o.value) : ''}'`,
  );
}

function zshValue(value: ValueKind): string {
  switch (value.kind) {
    case 'env':
      return ':environment:_scrapeform_environments';
    case 'words':
      return `:value:(${value.words.join(' ')})`;
    case 'file':
      return `:file:${ZSH_FILES}`;
    case 'dir':
      return `:folder:${ZSH_FILES} -/`;
    case 'none':
      return ':value:';
  }
}

/**
 * `_arguments` specs for a command without subcommands: its options, then its arguments by position (`'1:file:…'`),
 * and `'*…'` for a variadic one. Past them, and where there is none to offer, `_arguments` completes nothing.
 */
function zshArguments(e: CompletionEntry): string {
  const { fixed, rest } = argumentPositions(e);
  const specs = [...fixed.map((k, i) => [String(i + 1), k] as const), ['*', rest] as const]
    .filter(([, k]) => k.kind !== 'none')
    .map(([at, k]) => `'${at}${zshValue(k)}'`);
  return [...zshOptions(e), ...specs].join(' ');
}

export function completionScript(
  shell: Shell,
  entries: readonly CompletionEntry[],
  globals: CompletionEntry['options'],
): string {
  const top = entries.filter((e) => !e.name.includes(' '));
  /** The global options that take a value (`--chdir`): the word after them is that value, not the command. */
  const valued = globals.filter((o) => o.takesValue).map((o) => o.flag);
  if (shell === 'bash') return bashScript(entries, globals, valued);
  if (shell === 'zsh') {
    const cases = entries
      .filter((e) => !e.name.includes(' '))
      .map((e) => {
        const children = entries.filter((c) => c.name.startsWith(`${e.name} `));
        if (children.length === 0) return `    ${e.name}) _arguments ${zshArguments(e)} ;;`;
        // `state push --<TAB>`: past the subcommand, its own flags, as bash and fish offer them.
        const names = children.map((c) => c.name.split(' ')[1] ?? '');
        return [
          `    ${e.name})`,
          `      if (( CURRENT == 2 )); then`,
          `        _arguments ${[...zshOptions(e), `'1:subcommand:(${names.join(' ')})'`].join(' ')}`,
          `      else`,
          `        local sub=$words[2]`,
          `        shift words`,
          `        (( CURRENT-- ))`,
          `        case $sub in`,
          ...children.map((c, i) => `          ${names[i] ?? ''}) _arguments ${zshArguments(c)} ;;`),
          `        esac`,
          `      fi ;;`,
        ].join('\n');
      })
      .join('\n');
    return `#compdef scrapeform
# zsh completion for scrapeform; save as _scrapeform in a folder of $fpath, or: source <(scrapeform completion zsh)
# --env <TAB>: the environments of the scrapeform.yaml here, or in the folder of a --chdir before the command ($chdir,
# set by _scrapeform); none, and no error, when it is missing or broken.
_scrapeform_environments() {
  local -a environments
  environments=(\${(f)"$(${environments('"${chdir:-.}"')})"})
  compadd -a environments
}
_scrapeform() {
  local -a commands
  commands=(
${top.map((e) => `    '${e.name}:${quote(e.description).replace(/:/g, '\\:')}'`).join('\n')}
  )
  local -a globals
  globals=(
${globals.map((o) => `    '${o.flag}:${quote(o.description).replace(/:/g, '\\:')}'`).join('\n')}
  )
  local chdir=.
  # The program's options before the command (--chdir DIR, --no-color) are not the command: skip them, and keep DIR,
  # where --env reads scrapeform.yaml.
  while (( CURRENT > 2 )) && [[ $words[2] == -* ]]; do
    case $words[2] in
      (${valued.join('|') || "''"})
        if (( CURRENT == 3 )); then _files -/; return; fi
        [[ $words[2] == --chdir ]] && chdir=\${(Q)words[3]}
        shift words
        (( CURRENT-- )) ;;
      (--chdir=*) chdir=\${\${(Q)words[2]}#--chdir=} ;;
    esac
    shift words
    (( CURRENT-- ))
  done
  chdir=\${chdir/#\\~/$HOME}
  # Absolute: _files -W takes no relative folder.
  chdir=\${chdir:a}
  if (( CURRENT == 2 )); then
    if [[ $PREFIX == --chdir=* ]]; then
      compset -P '--chdir='
      _files -/
    elif [[ $PREFIX == -* ]]; then
      _describe 'option' globals
    else
      _describe 'command' commands
    fi
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
${cases}
  esac
}
# Sourced before compinit ran, compdef is not there yet: start the completion system so that the first TAB works.
(( $+functions[compdef] )) || { autoload -Uz compinit && compinit; }
# Autoloaded from $fpath, this file is the body of _scrapeform, run at the first TAB: complete that TAB too.
if [[ $funcstack[1] == _scrapeform ]]; then
  _scrapeform "$@"
else
  compdef _scrapeform scrapeform
fi
`;
  }
  return fishScript(entries, globals, valued);
}
