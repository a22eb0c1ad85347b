// What the completion scripts are made from, shared by the bash and zsh scripts (completion.ts) and fish's
// (completion-fish.ts).

/**
 * What TAB offers for a flag's value: the environments of scrapeform.yaml (asked of `scrapeform __complete env`),
 * a fixed set of words, files, folders, or nothing (a duration, a number, a name: no file name fits there).
 */
export type ValueKind =
  | { kind: 'env' }
  | { kind: 'words'; words: readonly string[] }
  | { kind: 'file' }
  | { kind: 'dir' }
  | { kind: 'none' };

/**
 * One command as completion sees it: its full name (`state push`), description, long options, and what each of its
 * own arguments is, in order: files (`show <planfile>`), the words of a fixed set (`completion <shell>`), or none to
 * offer (`run <address>`: no file name fits there). `variadic`: the last one repeats (`validate [paths...]`); past the
 * others nothing is offered (`show plan.json <TAB>`).
 */
export interface CompletionEntry {
  name: string;
  description: string;
  arguments: readonly ValueKind[];
  variadic: boolean;
  options: { flag: string; description: string; takesValue: boolean; value?: ValueKind }[];
}

/** A command's arguments by position: those written one each (`fixed`, from 0), and what any later one is. */
export function argumentPositions(e: CompletionEntry): { fixed: readonly ValueKind[]; rest: ValueKind } {
  const last = e.arguments.at(-1);
  return e.variadic && last !== undefined
    ? { fixed: e.arguments.slice(0, -1), rest: last }
    : { fixed: e.arguments, rest: { kind: 'none' } };
}

/**
 * What the shells run at `--env <TAB>`: quiet, whatever happens. `dir` is the shell's expression for the folder of a
 * `--chdir DIR` written before the command (`.` without one): there, not here, is the scrapeform.yaml the command
 * reads.
 */
export const environments = (dir: string): string =>
  `command scrapeform __complete env --chdir ${dir} 2>/dev/null`;

/** Descriptions inside single quotes in the generated script. */
export function quote(text: string): string {
  return text.replace(/'/g, `'\\''`);
}
