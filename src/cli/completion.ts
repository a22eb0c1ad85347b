import { Argument } from 'commander';
import type { Command, Option } from 'commander';
import { ScrapeformError } from '../errors.js';
import { BASH_PATHS, BASH_PATHS_FUNCTION } from './completion-bash-paths.js';
import { fishScript } from './completion-fish.js';
import { environments, quote } from './completion-model.js';
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
        argument: argumentValue(sub),
      });
      visit(sub, `${name} `);
    }
  };
  visit(program, '');
  return entries;
}

/** The arguments that name files or folders: `[paths...]`, `<planfile>`, `<file>` (not an address, id, URL...). */
const PATH_ARGUMENTS: ReadonlySet<string> = new Set(['paths', 'planfile', 'file']);

/** What a command's own arguments are: paths, one of its choices (`completion <shell>`), or neither. */
function argumentValue(command: Command): ValueKind {
  if (command.registeredArguments.some((a) => PATH_ARGUMENTS.has(a.name()))) return { kind: 'file' };
  const words = command.registeredArguments[0]?.argChoices;
  return words === undefined ? { kind: 'none' } : { kind: 'words', words };
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

/** What bash offers for a value: `+o default` keeps bash's own fallback (the files here) off where no file fits. */
function bashReply(value: ValueKind): string {
  switch (value.kind) {
    case 'env':
      return `COMPREPLY=( $(compgen -W "$(${environments('"${chdir:-.}"')})" -- "$cur") ); compopt +o default 2>/dev/null`;
    case 'words':
      return `COMPREPLY=( $(compgen -W '${value.words.join(' ')}' -- "$cur") ); compopt +o default 2>/dev/null`;
    case 'file':
      return BASH_PATHS('-f');
    case 'dir':
      return BASH_PATHS('-d');
    case 'none':
      return `COMPREPLY=(); compopt +o default 2>/dev/null`;
  }
}

/** Bash `case` arms, the patterns that share a reply in one arm (`'plan --env'|'apply --env') …`). */
function bashArms(pairs: readonly (readonly [pattern: string, reply: string])[], end: string): string {
  const arms = new Map<string, string[]>();
  for (const [pattern, reply] of pairs) arms.set(reply, [...(arms.get(reply) ?? []), pattern]);
  return [...arms].map(([reply, patterns]) => `    ${patterns.join('|')}) ${reply}${end} ;;`).join('\n');
}

/** The arms that complete a flag's value, by `"$cmd $flag"`. */
function bashValueCases(entries: readonly CompletionEntry[]): string {
  const pairs = entries.flatMap((e) =>
    e.options.flatMap((o) => (o.value ? [[`'${e.name} ${o.flag}'`, bashReply(o.value)] as const] : [])),
  );
  return bashArms(pairs, '; return');
}

/** The arms that complete a command's own arguments, by `"$cmd"`; a fixed set of words only the first (`$n` 0). */
function bashArgumentCases(entries: readonly CompletionEntry[]): string {
  const pairs = entries
    .filter((e) => e.argument.kind !== 'none')
    .map(
      (e) =>
        [
          `'${e.name}'`,
          `${e.argument.kind === 'words' ? '[ "$n" -eq 0 ] && ' : ''}${bashReply(e.argument)}`,
        ] as const,
    );
  return bashArms(pairs, '');
}

/** `_arguments` specs for a command without subcommands: its options, then its arguments (a word set is one). */
function zshArguments(e: CompletionEntry): string {
  const rest =
    e.argument.kind === 'none' ? [] : [`'${e.argument.kind === 'words' ? '1' : '*'}${zshValue(e.argument)}'`];
  return [...zshOptions(e), ...rest].join(' ');
}

export function completionScript(
  shell: Shell,
  entries: readonly CompletionEntry[],
  globals: CompletionEntry['options'],
): string {
  const top = entries.filter((e) => !e.name.includes(' '));
  /** The global options that take a value (`--chdir`): the word after them is that value, not the command. */
  const valued = globals.filter((o) => o.takesValue).map((o) => o.flag);
  if (shell === 'bash') {
    const cases = entries
      .map((e) => `    '${e.name}') opts='${e.options.map((o) => o.flag).join(' ')}' ;;`)
      .join('\n');
    // The second word names a subcommand only if one of that name exists: `plan manifests --out` is plan's flags.
    const subcommands =
      entries
        .filter((e) => e.name.includes(' '))
        .map((e) => `'${e.name}'`)
        .join('|') || "''";
    return `# bash completion for scrapeform; load with: source <(scrapeform completion bash)
_scrapeform() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" flag="\${COMP_WORDS[COMP_CWORD-1]}" chdir='' i=1
  # bash splits --flag=value at "=" (in COMP_WORDBREAKS): "--env", "=", "st". The value is that of the flag before.
  if [[ "$cur" == '=' && "$flag" == --* ]]; then
    cur=''
  elif [[ "$flag" == '=' && "\${COMP_WORDS[COMP_CWORD-2]}" == --* ]]; then
    flag="\${COMP_WORDS[COMP_CWORD-2]}"
  fi
  # The program's options before the command (--chdir DIR, --no-color) are not the command: skip them, and keep DIR,
  # where --env reads scrapeform.yaml.
  while [ "$i" -lt "$COMP_CWORD" ]; do
    case "\${COMP_WORDS[i]}" in
      ${valued.map((f) => `'${f}'`).join('|') || "''"})
        local opt="\${COMP_WORDS[i]}"
        [ "\${COMP_WORDS[i+1]}" = '=' ] && i=$((i + 1))
        # Its value is the word completed: no command yet.
        [ "$((i + 1))" -lt "$COMP_CWORD" ] || { i=$COMP_CWORD; break; }
        [ "$opt" = '--chdir' ] && chdir="\${COMP_WORDS[i+1]}"
        i=$((i + 2)) ;;
      --chdir=*) chdir="\${COMP_WORDS[i]#--chdir=}"; i=$((i + 1)) ;;
      -*) i=$((i + 1)) ;;
      *) break ;;
    esac
  done
  # DIR as typed: one level of quotes, or the backslashes, taken off (never eval'd; DIR is only ever used quoted).
  case "$chdir" in
    \\'*\\'|\\"*\\") chdir="\${chdir:1:\${#chdir}-2}" ;;
    *) chdir="\${chdir//\\\\/}" ;;
  esac
  chdir="\${chdir/#\\~/$HOME}"
  # Past --chdir DIR, bash's own fallback when nothing matched (the files here) would offer names DIR does not have.
  [ -n "$chdir" ] && compopt +o default 2>/dev/null
  if [ "$i" -ge "$COMP_CWORD" ]; then
    if [ "$flag" = '--chdir' ]; then
      ${BASH_PATHS('-d', '.')}
    elif [[ "$cur" == -* ]]; then
      COMPREPLY=( $(compgen -W '${globals.map((o) => o.flag).join(' ')}' -- "$cur") )
    else
      COMPREPLY=( $(compgen -W '${top.map((e) => e.name).join(' ')}' -- "$cur") )
    fi
    return
  fi
  # From here on, the words from the command on, as if no option came before it.
  local -a words=( scrapeform "\${COMP_WORDS[@]:i}" )
  local cword=$((COMP_CWORD - i + 1))
  local cmd="\${words[1]}" opts=''
  if [ "$cword" -eq 2 ]; then
    case "$cmd" in
${entries
  .filter((e) => e.name.includes(' '))
  .reduce<string[]>((lines, e) => {
    const [parent = '', child = ''] = e.name.split(' ');
    const line = lines.find((l) => l.startsWith(`      '${parent}')`));
    if (line === undefined)
      lines.push(`      '${parent}') COMPREPLY=( $(compgen -W '${child}' -- "$cur") ); return ;;`);
    else lines[lines.indexOf(line)] = line.replace(/-W '([^']*)'/, `-W '$1 ${child}'`);
    return lines;
  }, [])
  .join('\n')}
    esac
  fi
  if [ "$cword" -ge 3 ]; then
    case "$cmd \${words[2]}" in
      ${subcommands}) cmd="$cmd \${words[2]}" ;;
    esac
  fi
  # The word before names a flag that takes a value: complete that value (environments, its words, files...).
  case "$cmd $flag" in
${bashValueCases(entries)}
  esac
  case "$cmd" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
    return
  fi
  # The command's own arguments written before this one (the words past it that are no flag).
  local n=0 w
  for w in "\${words[@]:2:cword-2}"; do [[ "$w" == -* ]] || n=$((n + 1)); done
  [[ "$cmd" == *' '* ]] && n=$((n - 1))
  # Paths, a fixed set of words, or nothing (a name, an id: no file, and not bash's own fallback of files either).
  case "$cmd" in
${bashArgumentCases(entries)}
    *) ${bashReply({ kind: 'none' })} ;;
  esac
}
${BASH_PATHS_FUNCTION}
complete -o default -F _scrapeform scrapeform
`;
  }
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
