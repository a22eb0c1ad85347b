// Bash's completion of paths (a flag's file or folder, a command's own paths), used by completion.ts's bash script.

/**
 * Bash: the files (`-f`) or folders (`-d`) for the word typed, from the folder of a `--chdir DIR` before the command,
 * where the command reads the paths it is given (`.` without one; a DIR that is not there offers nothing).
 */
export const BASH_PATHS = (kind: '-f' | '-d', dir = '"${chdir:-.}"'): string =>
  `_scrapeform_paths ${kind} ${dir}`;

/**
 * Bash's helper behind BASH_PATHS. One name a line, not split at spaces. The word is read as typed, with one level of
 * quotes or its backslashes taken off. CDPATH off: `cd` would print the folder. The names are read with mapfile, not
 * `( $(…) )`: that expanded `[`, `*` and `?` in a name as a pattern against the current folder. Whether a name is a
 * folder is judged in DIR, where the command reads it, and marked: `D` a folder, `d` one the current folder lacks,
 * `F` not a folder though the current folder has a folder so named, `f` neither. `compopt -o filenames` has readline
 * escape the names it inserts (a space, a quote) and end a folder with "/" and no space, so that the next TAB goes
 * into it; but readline looks for that folder in the current folder: a `d` gets its "/" here (and no space). An `F`
 * would get a wrong "/" (and be listed with one), so then the names are escaped here instead, as the word was typed
 * (after an open quote, or with backslashes), and every folder of DIR gets its "/".
 */
export const BASH_PATHS_FUNCTION = `_scrapeform_paths() {
  local word="$cur" here="$PWD" open='' line name conflict=0
  case "$word" in
    \\'*) word="\${word#\\'}"; [[ "$word" == *\\' ]] && word="\${word%\\'}" || open="'" ;;
    \\"*) word="\${word#\\"}"; [[ "$word" == *\\" ]] && word="\${word%\\"}" || open='"' ;;
    *) word="\${word//\\\\/}" ;;
  esac
  local -a found
  mapfile -t found < <(CDPATH= cd -- "$2" 2>/dev/null && compgen "$1" -- "$word" | while IFS= read -r name; do
    if [[ "$name" == [/~]* ]]; then printf 'f%s\\n' "$name"
    elif [[ -d "$name" ]]; then [[ -d "$here/$name" ]] && printf 'D%s\\n' "$name" || printf 'd%s\\n' "$name"
    else [[ -d "$here/$name" ]] && printf 'F%s\\n' "$name" || printf 'f%s\\n' "$name"
    fi
  done)
  for line in "\${found[@]}"; do [[ "$line" == F* ]] && conflict=1; done
  COMPREPLY=()
  for line in "\${found[@]}"; do
    name="\${line:1}"
    if [ "$conflict" = 0 ]; then
      [[ "$line" == d* ]] && name="\${name%/}/"
    else
      [[ "$line" == [dD]* ]] && name="\${name%/}/"
      case "$open" in
        \\') name="\${name//\\'/\\'\\\\\\'\\'}" ;;
        \\") name="\${name//\\\\/\\\\\\\\}"; name="\${name//\\"/\\\\\\"}"; name="\${name//\\$/\\\\\\$}"; name="\${name//\\\`/\\\\\\\`}" ;;
        *) printf -v name '%q' "$name" ;;
      esac
    fi
    COMPREPLY+=("$name")
  done
  [ "$conflict" = 0 ] && compopt -o filenames 2>/dev/null
  [[ \${#COMPREPLY[@]} -eq 1 && "\${COMPREPLY[0]}" == */ ]] && compopt -o nospace 2>/dev/null
}`;
