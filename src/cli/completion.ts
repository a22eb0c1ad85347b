import type { Command, Option } from 'commander';
import { ScrapeformError } from '../errors.js';
import type { RunCommand } from './io.js';

const SHELLS = ['bash', 'zsh', 'fish'] as const;
type Shell = (typeof SHELLS)[number];

/** One command as completion sees it: its full name (`state push`), description and long options. */
interface CompletionEntry {
  name: string;
  description: string;
  options: { flag: string; description: string; takesValue: boolean }[];
}

/** `scrapeform completion bash|zsh|fish`: a completion script made from the commands as they are defined. */
export function registerCompletion(program: Command, run: RunCommand): void {
  program
    .command('completion')
    .description('print a shell completion script (bash, zsh or fish)')
    .argument('<shell>', SHELLS.join(' | '))
    .action(async (shell: string) =>
      run(async (ctx) => {
        if (!(SHELLS as readonly string[]).includes(shell)) {
          throw new ScrapeformError(
            'cli.usage',
            `completion: unknown shell "${shell}"; use ${SHELLS.join(', ')}`,
          );
        }
        ctx.print(completionScript(shell as Shell, commandTree(program)));
        return 'ok';
      }),
    );
}

function commandTree(program: Command): CompletionEntry[] {
  const entries: CompletionEntry[] = [];
  const visit = (command: Command, prefix: string): void => {
    for (const sub of command.commands) {
      const name = `${prefix}${sub.name()}`;
      entries.push({ name, description: sub.description(), options: longOptions(sub.options) });
      visit(sub, `${name} `);
    }
  };
  visit(program, '');
  return entries;
}

function longOptions(options: readonly Option[]): CompletionEntry['options'] {
  return options
    .filter((o) => o.long !== undefined)
    .map((o) => ({
      flag: o.long as string,
      description: o.description,
      takesValue: o.required || o.optional,
    }));
}

/** Descriptions inside single quotes in the generated script. */
function quote(text: string): string {
  return text.replace(/'/g, `'\\''`);
}

/** A command's long options as `_arguments` specs: `'--flag[description]'`, `:value:` when it takes one. */
function zshOptions(e: CompletionEntry): string[] {
  return e.options.map(
    (o) => `'${o.flag}[${quote(o.description).replace(/[[\]]/g, '')}]${o.takesValue ? ':value:' : ''}'`,
  );
}

/** `_arguments` specs for a command without subcommands: its options, then files. */
function zshArguments(e: CompletionEntry): string {
  return [...zshOptions(e), `'*:file:_files'`].join(' ');
}

export function completionScript(shell: Shell, entries: readonly CompletionEntry[]): string {
  const top = entries.filter((e) => !e.name.includes(' '));
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
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W '${top.map((e) => e.name).join(' ')}' -- "$cur") )
    return
  fi
  local cmd="\${COMP_WORDS[1]}" opts=''
  if [ "$COMP_CWORD" -eq 2 ]; then
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
  if [ "$COMP_CWORD" -ge 3 ]; then
    case "$cmd \${COMP_WORDS[2]}" in
      ${subcommands}) cmd="$cmd \${COMP_WORDS[2]}" ;;
    esac
  fi
  case "$cmd" in
${cases}
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
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
_scrapeform() {
  local -a commands
  commands=(
${top.map((e) => `    '${e.name}:${quote(e.description).replace(/:/g, '\\:')}'`).join('\n')}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
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
  const lines = [
    '# fish completion for scrapeform; load with: scrapeform completion fish | source',
    'complete -c scrapeform -f',
    ...top.map(
      (e) => `complete -c scrapeform -n '__fish_use_subcommand' -a '${e.name}' -d '${quote(e.description)}'`,
    ),
  ];
  for (const e of entries) {
    const [parent = '', child] = e.name.split(' ');
    if (child !== undefined) {
      lines.push(
        `complete -c scrapeform -n '__fish_seen_subcommand_from ${parent}' -a '${child}' -d '${quote(e.description)}'`,
      );
    }
    for (const o of e.options) {
      lines.push(
        `complete -c scrapeform -n '__fish_seen_subcommand_from ${child ?? parent}' -l '${o.flag.slice(2)}'${o.takesValue ? ' -r' : ''} -d '${quote(o.description)}'`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
