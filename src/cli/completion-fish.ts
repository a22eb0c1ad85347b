import { argumentPositions, environments, quote } from './completion-model.js';
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
    fishTakesValue(entries),
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
    // Its own arguments by position (paths, from DIR, as bash and zsh offer them; a word set): `-f` above turned
    // fish's files off, and where there is none to offer (`status`, `run <address>`, `show plan.json <TAB>`) they
    // stay off. `N+`: a variadic one, at N and past it.
    const { fixed, rest } = argumentPositions(e);
    const positions = [...fixed.map((k, i) => [String(i), k] as const), [`${fixed.length}+`, rest] as const];
    for (const [at, kind] of positions) {
      const candidates = fishCandidates(kind);
      if (candidates !== undefined)
        lines.push(`complete -c scrapeform -n '__scrapeform_argument ${at} ${e.name}' -a ${candidates}`);
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
 * `__scrapeform_takes_value 'CMD --flag'`: whether that flag of that command takes a value, the next word (`state
 * push --state FILE`: FILE is no argument of push's).
 */
function fishTakesValue(entries: readonly CompletionEntry[]): string {
  const cases = entries
    .map((e) => e.options.filter((o) => o.takesValue).map((o) => `'${e.name} ${o.flag}'`))
    .filter((flags) => flags.length > 0)
    .map((flags) => `        case ${flags.join(' ')}\n            return 0`);
  return [
    'function __scrapeform_takes_value',
    '    switch $argv[1]',
    ...cases,
    '    end',
    '    return 1',
    'end',
  ].join('\n');
}

/**
 * The program's options before the command (--chdir DIR, --no-color) are not the command. `__scrapeform_globals`
 * prints DIR (where --env reads scrapeform.yaml; `.` without one), or with --command the words from the command on,
 * and returns 0 while the command is still to come, 1 past it, 2 while the value of such an option (VALUED) is typed.
 * `__scrapeform_words` prints the words from the command on that are neither a flag nor a flag's value.
 * `__scrapeform_command NAME [SUB]` is true when NAME is the command, and SUB the next of those words past it ("": none
 * written yet). `__scrapeform_argument N NAME` is true when NAME is the command and N of its own arguments are written
 * before the word typed (`N+`: N or more). fish's __fish_seen_subcommand_from matched a word anywhere on the line
 * (`validate show` got show's flags), and __fish_use_subcommand takes DIR of `--chdir DIR` for the command.
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
function __scrapeform_words
    set -l words
    set -l value 0
    for word in (__scrapeform_globals --command)
        if test $value = 1
            set value 0
        else if string match -q -- '-*' $word
            # The flag of the subcommand (state push --state), else of the command (plan manifests --out).
            __scrapeform_takes_value "$words[1] $words[2] $word"; or __scrapeform_takes_value "$words[1] $word"
            and set value 1
        else
            set -a words $word
        end
    end
    set -q words[1]; and printf '%s\\n' $words
end
function __scrapeform_command
    set -l words (__scrapeform_words)
    for i in (seq (count $argv))
        test "$argv[$i]" = "$words[$i]"; or return 1
    end
end
function __scrapeform_argument
    set -l at $argv[1]
    set -e argv[1]
    __scrapeform_command $argv; or return 1
    set -l written (math (count (__scrapeform_words)) - (count $argv))
    if string match -q -- '*+' $at
        test $written -ge (string trim -r -c + -- $at)
    else
        test $written = $at
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
