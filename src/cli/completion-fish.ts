import { environments, quote } from './completion-model.js';
import type { CompletionEntry, ValueKind } from './completion-model.js';

/** `scrapeform completion fish`: the commands, their flags and values, and the program's options before them. */
export function fishScript(
  entries: readonly CompletionEntry[],
  globals: CompletionEntry['options'],
  valued: readonly string[],
): string {
  const top = entries.filter((e) => !e.name.includes(' '));
  const lines = [
    '# fish completion for scrapeform; load with: scrapeform completion fish | source',
    FISH_GLOBALS.replace('VALUED', valued.join(' ') || "''"),
    'complete -c scrapeform -f',
    ...globals.map(
      (o) =>
        `complete -c scrapeform -n '__scrapeform_before_command' -l '${o.flag.slice(2)}'${o.value ? fishValue(o.value) : ''} -d '${quote(o.description)}'`,
    ),
    ...top.map(
      (e) =>
        `complete -c scrapeform -n '__scrapeform_globals >/dev/null' -a '${e.name}' -d '${quote(e.description)}'`,
    ),
  ];
  for (const e of entries) {
    const [parent = '', child] = e.name.split(' ');
    // A subcommand until one is written: `state push <TAB>` is push's paths, not the subcommands again.
    if (child !== undefined) {
      lines.push(
        `complete -c scrapeform -n '__scrapeform_command ${parent} ""' -a '${child}' -d '${quote(e.description)}'`,
      );
    }
    // Its own arguments (paths, from DIR, as bash and zsh offer them; a word set for the first): `-f` above turned
    // fish's files off, and a command whose arguments are no paths (`status`, `run <address>`) keeps them off.
    const candidates = fishCandidates(e.argument);
    if (candidates !== undefined) {
      const first = e.argument.kind === 'words' ? ' ""' : '';
      lines.push(`complete -c scrapeform -n '__scrapeform_command ${e.name}${first}' -a ${candidates}`);
    }
    for (const o of e.options) {
      lines.push(
        `complete -c scrapeform -n '__scrapeform_command ${e.name}' -l '${o.flag.slice(2)}'${o.value ? fishValue(o.value) : ''} -d '${quote(o.description)}'`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A value's candidates, as `complete -a` takes them; none for a duration, a number, a name. */
function fishCandidates(value: ValueKind): string | undefined {
  switch (value.kind) {
    case 'env':
      return `'(${environments('(__scrapeform_globals)')})'`;
    case 'words':
      return `'${value.words.join(' ')}'`;
    case 'file':
      return "'(__scrapeform_paths)'";
    case 'dir':
      return "'(__scrapeform_paths -/)'";
    case 'none':
      return undefined;
  }
}

/** A flag's value: required (`-x`, which also keeps files off), with its candidates. */
function fishValue(value: ValueKind): string {
  const candidates = fishCandidates(value);
  return candidates === undefined ? ' -x' : ` -x -a ${candidates}`;
}

/**
 * The program's options before the command (--chdir DIR, --no-color) are not the command. `__scrapeform_globals`
 * prints DIR (where --env reads scrapeform.yaml; `.` without one), or with --command the words from the command on,
 * and returns 0 while the command is still to come, 1 past it, 2 while the value of such an option (VALUED) is typed.
 * `__scrapeform_command NAME [SUB]` is true when NAME is the command, and SUB the next word past it that is no flag
 * ("": none written yet). fish's __fish_seen_subcommand_from matched a word anywhere on the line (`validate show`
 * got show's flags), and __fish_use_subcommand takes DIR of `--chdir DIR` for the command.
 */
const FISH_GLOBALS = `function __scrapeform_globals
    set -l words (commandline -opc)
    set -e words[1]
    set -l dir .
    set -l found 0
    while set -q words[1]
        switch $words[1]
            case VALUED
                if not set -q words[2]
                    set found 2
                    break
                end
                test $words[1] = --chdir; and set dir $words[2]
                set -e words[1]
            case '--chdir=*'
                set dir (string replace -- --chdir= '' $words[1])
            case '-*'
            case '*'
                set found 1
                break
        end
        set -e words[1]
    end
    if test "$argv[1]" = --command
        set -q words[1]; and printf '%s\\n' $words
    else
        string replace -r -- '^~' $HOME $dir
    end
    return $found
end
function __scrapeform_command
    set -l words (__scrapeform_globals --command | string match -v -- '-*')
    for i in (seq (count $argv))
        test "$argv[$i]" = "$words[$i]"; or return 1
    end
end
# The files (folders with -/) for the token typed, from DIR: the command reads the paths it is given there.
function __scrapeform_paths
    set -l dir (__scrapeform_globals)/
    # --out=VALUE is one token: the value is what follows "=".
    set -l token (string replace -r -- '^--[^=]*=' '' (commandline -ct))
    if test $dir = ./; or string match -q -r -- '^[/~]' $token
        set dir ''
    end
    set -l found (complete -C"__scrapeform_no_such_command "(string escape -- $dir)$token)
    # With no argument past the pattern, string reads its stdin, the terminal here: it is not called without one.
    set -q found[1]; and test "$argv[1]" = -/; and set found (string match -r -- '.*/$' $found)
    set -q found[1]; and string replace -- $dir '' $found
end
function __scrapeform_before_command
    __scrapeform_globals >/dev/null
    test $status -ne 1
end`;
