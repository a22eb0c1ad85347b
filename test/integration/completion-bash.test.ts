import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../helpers/child-cli.js';
import { RUN_SHELL_TESTS } from '../helpers/zsh.js';

const exec = promisify(execFile);

/*
 * What readline itself does with the candidates (a `/` after a folder, a name with a space escaped) happens only at a
 * real TAB, not when a test calls _scrapeform. So these type into an interactive bash on a terminal (zsh's zpty
 * gives one; CI installs zsh), where `scrapeform` is a function printing the words it got, one `<word>` each: the
 * line as completed, then run, shows what the command would have been given.
 */

/**
 * Starts `bash -i` in $3, runs $1, types $2 (TABs and the final Enter included) and prints what the terminal got. With
 * $4 set, one more TAB before the Enter: a second TAB in a row lists the candidates.
 */
const DRIVER = `zmodload zsh/zpty
zpty b "cd \${(q)3} && PS1='> ' TERM=dumb bash --norc --noprofile -i"
zpty -w b "$1; echo RE''ADY"
out=''
for i in {1..200}; do
  while zpty -r -t b line; do out+=$line; done
  [[ $out == *READY* ]] && break
  sleep 0.05
done
[[ $out == *READY* ]] || { print -r -- "setup did not finish: $out"; exit 1; }
for key in \${(ps:\\t:)2}; do
  zpty -n -w b "$key"$'\\t'
  sleep 0.3
done
[[ -n $4 ]] && { zpty -n -w b $'\\t'; sleep 0.3; }
zpty -n -w b $'\\n'
out=''
for i in {1..400}; do
  sleep 0.05
  while zpty -r -t b line; do out+=$line; done
  [[ $out == *'<'*'>'* ]] && break
done
print -r -- "$out"
zpty -d b
`;

describe.skipIf(!RUN_SHELL_TESTS)('bash completion of paths, typed into a real bash', () => {
  let dir: string;
  let root: string;
  let project: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-bash-'));
    root = path.join(dir, 'root');
    project = path.join(root, 'project');
    await mkdir(path.join(project, 'sub'), { recursive: true });
    await mkdir(path.join(project, 'my dir'));
    await writeFile(path.join(project, 'sub', 'inner.yaml'), '');
    await writeFile(path.join(project, 'my dir', 'x.yaml'), '');
    await writeFile(path.join(project, 'a file.yaml'), '');
    // Files of DIR named as folders of the current folder (root): readline would judge them in the current folder.
    await mkdir(path.join(root, 'saved'));
    await mkdir(path.join(root, 'old plan'));
    await writeFile(path.join(project, 'saved'), '');
    await writeFile(path.join(project, 'old plan'), '');
    await writeFile(
      path.join(dir, 'completion.bash'),
      (await exec('node', [BUILT_CLI, 'completion', 'bash'])).stdout,
    );
    await writeFile(path.join(dir, 'drive.zsh'), DRIVER);
  });
  /** The words `scrapeform` got once `keys` were typed ("\t" a TAB) and Enter pressed, as `<word>` each. */
  const typeInto = async (keys: string, cwd: string): Promise<string> =>
    /(?:<[^>]*>)+/.exec(await terminal(keys, cwd))?.[0] ?? '';
  /** What the terminal showed once `keys` were typed, a second TAB pressed (which lists the candidates), and Enter. */
  const terminal = async (keys: string, cwd: string, list = false): Promise<string> => {
    const setup = `source '${path.join(dir, 'completion.bash')}'; scrapeform() { printf '<%s>' "$@"; echo; }`;
    const args = ['-f', path.join(dir, 'drive.zsh'), setup, keys, cwd, ...(list ? ['list'] : [])];
    return (await exec('zsh', args)).stdout;
  };
  /** The candidates a second TAB listed after `keys`, each separated by one space (as wide as the terminal wants). */
  const listed = async (keys: string, cwd: string): Promise<string[]> =>
    (await terminal(keys, cwd, true))
      .split(/\r?\n/)
      .map((line) => line.trim().split(/\s+/).join(' '))
      .filter((line) => line !== '' && !line.includes('>'));

  it('a folder gets a "/" and no space, so that the next TAB goes into it', async () => {
    expect(await typeInto('scrapeform plan --out su\tin\t', project)).toBe('<plan><--out><sub/inner.yaml>');
    expect(await typeInto('scrapeform validate su\t', project)).toBe('<validate><sub/>');
    expect(await typeInto('scrapeform import --out s\t', project)).toBe('<import><--out><sub/>');
    expect(await typeInto('scrapeform --chdir pro\t', root)).toBe('<--chdir><project/>');
  });

  it("a command that takes no path gets no file name, not even bash's own fallback; completion gets its shells", async () => {
    expect(await typeInto('scrapeform status sa\t', project)).toBe('<status><sa>');
    expect(await typeInto('scrapeform doctor su\t', project)).toBe('<doctor><su>');
    expect(await typeInto('scrapeform --chdir project run su\t', root)).toBe('<--chdir><project><run><su>');
    expect(await typeInto('scrapeform completion z\t', project)).toBe('<completion><zsh>');
    expect(await typeInto('scrapeform completion bash su\t', project)).toBe('<completion><bash><su>');
    // A command that takes paths keeps them.
    expect(await typeInto('scrapeform validate sa\t', project)).toBe('<validate><saved>');
    // Past the one path show takes, no file either.
    expect(await typeInto('scrapeform show saved su\t', project)).toBe('<show><saved><su>');
  });

  it('a name with a space is escaped: it stays one word, and TAB goes on inside a folder so named', async () => {
    expect(await typeInto('scrapeform validate a\t', project)).toBe('<validate><a file.yaml>');
    expect(await typeInto('scrapeform plan --var-file=a\t', project)).toBe('<plan><--var-file=a file.yaml>');
    expect(await typeInto('scrapeform validate my\tx\t', project)).toBe('<validate><my dir/x.yaml>');
    // Typed with a quote, or escaped: the word is read as the command will get it.
    expect(await typeInto("scrapeform validate 'my\tx\t", project)).toBe('<validate><my dir/x.yaml>');
    expect(await typeInto('scrapeform validate "my\tx\t', project)).toBe('<validate><my dir/x.yaml>');
    expect(await typeInto('scrapeform validate my\\ d\tx\t', project)).toBe('<validate><my dir/x.yaml>');
  });

  it('past --chdir DIR, a folder of DIR gets its "/" too, though the current folder has none of that name', async () => {
    expect(await typeInto('scrapeform --chdir project validate su\tin\t', root)).toBe(
      '<--chdir><project><validate><sub/inner.yaml>',
    );
    expect(await typeInto('scrapeform --chdir project plan --out my\tx\t', root)).toBe(
      '<--chdir><project><plan><--out><my dir/x.yaml>',
    );
    expect(await typeInto("scrapeform --chdir project validate 'my\tx\t", root)).toBe(
      '<--chdir><project><validate><my dir/x.yaml>',
    );
  });

  it('past --chdir DIR, a file of DIR is a file, though the current folder has a folder so named', async () => {
    // A space after it, not a "/": the next word starts, and TAB completes it.
    expect(await typeInto('scrapeform --chdir project validate sav\tsu\tin\t', root)).toBe(
      '<--chdir><project><validate><saved><sub/inner.yaml>',
    );
    expect(await typeInto('scrapeform --chdir project validate old\tsu\t', root)).toBe(
      '<--chdir><project><validate><old plan><sub/>',
    );
    // Escaped as typed: after a quote, closed; with backslashes.
    expect(await typeInto("scrapeform --chdir project validate 'old\tsu\t", root)).toBe(
      '<--chdir><project><validate><old plan><sub/>',
    );
    expect(await typeInto('scrapeform --chdir project validate "old\tsu\t', root)).toBe(
      '<--chdir><project><validate><old plan><sub/>',
    );
    expect(await typeInto('scrapeform --chdir=project plan --out sav\tsu\t', root)).toBe(
      '<--chdir=project><plan><--out><saved><sub/>',
    );
    // Listed without a "/", and DIR's folder with one.
    expect(await listed('scrapeform --chdir project validate s\t', root)).toEqual(['saved sub/']);
  });
});
