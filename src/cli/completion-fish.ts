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
    if (child !== undefined) {
      // Until one of them is written: `state push <TAB>` is push's paths, not the subcommands again.
      const siblings = entries
        .filter((c) => c.name.startsWith(`${parent} `))
        .map((c) => c.name.split(' ')[1]);
      lines.push(
        `complete -c scrapeform -n '__fish_seen_subcommand_from ${parent}; and not __fish_seen_subcommand_from ${siblings.join(' ')}' -a '${child}' -d '${quote(e.description)}'`,
      );
    }
    // Its own paths (manifests, a plan file...), from DIR, as bash and zsh offer them: `-f` above turned fish's off,
    // and a command whose arguments are no paths (`status`, `run <address>`) keeps it off.
    if (e.paths) {
      lines.push(
        `complete -c scrapeform -n '__fish_seen_subcommand_from ${child ?? parent}' -a '(__scrapeform_paths)'`,
      );
    }
    for (const o of e.options) {
      lines.push(
        `complete -c scrapeform -n '__fish_seen_subcommand_from ${child ?? parent}' -l '${o.flag.slice(2)}'${o.value ? fishValue(o.value) : ''} -d '${quote(o.description)}'`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

function fishValue(value: ValueKind): string {
  switch (value.kind) {
    case 'env':
      return ` -x -a '(${environments('(__scrapeform_globals)')})'`;
    case 'words':
      return ` -x -a '${value.words.join(' ')}'`;
    case 'file':
      return " -x -a '(__scrapeform_paths)'";
    case 'dir':
      return " -x -a '(__scrapeform_paths -/)'";
    case 'none':
      return ' -x';
  }
}

/**
 * The program's options before the command (--chdir DIR, --no-color) are not the command. `__scrapeform_globals`
 * prints DIR (where --env reads scrapeform.yaml; `.` without one) and returns 0 while the command is still to come,
 * 1 past it, 2 while the value of such an option (VALUED) is typed.
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
    string replace -r -- '^~' $HOME $dir
    return $found
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
