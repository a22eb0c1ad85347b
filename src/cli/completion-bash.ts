// The bash completion script, made from the commands (completion.ts) as zsh's and fish's are.

import { BASH_PATHS, BASH_PATHS_FUNCTION } from './completion-bash-paths.js';
import { argumentPositions, environments } from './completion-model.js';
import type { CompletionEntry, ValueKind } from './completion-model.js';

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

type Pairs = readonly (readonly [pattern: string, reply: string])[];

/** Bash `case` arms, the patterns that share a reply in one arm (`'plan --env'|'apply --env') … ;;`). */
function bashArmList(pairs: Pairs, end: string): string[] {
  const arms = new Map<string, string[]>();
  for (const [pattern, reply] of pairs) arms.set(reply, [...(arms.get(reply) ?? []), pattern]);
  return [...arms].map(([reply, patterns]) => `${patterns.join('|')}) ${reply}${end} ;;`);
}

/** The arms as lines of the script's `case`. */
function bashArms(pairs: Pairs, end: string): string {
  return bashArmList(pairs, end)
    .map((arm) => `    ${arm}`)
    .join('\n');
}

/** The arms that complete a flag's value, by `"$cmd $flag"`. */
function bashValueCases(entries: readonly CompletionEntry[]): string {
  const pairs = entries.flatMap((e) =>
    e.options.flatMap((o) => (o.value ? [[`'${e.name} ${o.flag}'`, bashReply(o.value)] as const] : [])),
  );
  return bashArms(pairs, '; return');
}

/**
 * The arms that complete a command's own arguments, by `"$cmd"`, then by how many are written before (`$n`): `show
 * <planfile>` files for the first alone, `validate [paths...]` for every one. A command with none to offer is left to
 * the caller's `*` arm.
 */
function bashArgumentCases(entries: readonly CompletionEntry[]): string {
  const pairs = entries.flatMap((e) => {
    const { fixed, rest } = argumentPositions(e);
    const last = bashReply(rest);
    const positions = fixed.flatMap((k, i) =>
      bashReply(k) === last ? [] : [[String(i), bashReply(k)] as const],
    );
    if (positions.length === 0) return rest.kind === 'none' ? [] : [[`'${e.name}'`, last] as const];
    const arms = [...bashArmList(positions, ''), `*) ${last} ;;`].join(' ');
    return [[`'${e.name}'`, `case "$n" in ${arms} esac`] as const];
  });
  return bashArms(pairs, '');
}

/** `scrapeform completion bash`: `valued` are the program's options that take a value (`--chdir DIR`). */
export function bashScript(
  entries: readonly CompletionEntry[],
  globals: CompletionEntry['options'],
  valued: readonly string[],
): string {
  const top = entries.filter((e) => !e.name.includes(' '));
  const cases = entries
    .map((e) => {
      const valued = e.options.filter((o) => o.takesValue).map((o) => o.flag);
      return `    '${e.name}') opts='${e.options.map((o) => o.flag).join(' ')}' valued='${valued.join(' ')}' ;;`;
    })
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
  local cmd="\${words[1]}" opts='' valued=''
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
  # The command's own arguments written before this one: the words past it that are neither a flag nor the value of
  # one that takes it ($valued: --state FILE, or --env=prod, which bash splits as "--env", "=", "prod").
  local n=0 w value=0
  for w in "\${words[@]:2:cword-2}"; do
    if [ "$w" = '=' ]; then value=1
    elif [ "$value" = 1 ]; then value=0
    elif [[ "$w" == -* ]]; then [[ " $valued " == *" $w "* ]] && value=1
    else n=$((n + 1))
    fi
  done
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
