import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../helpers/child-cli.js';
import { RUN_SHELL_TESTS } from '../helpers/zsh.js';

const exec = promisify(execFile);

/**
 * Types `input` (TAB included) once into an interactive zsh started with `zsh -f -i` in a folder holding one file,
 * after `setup` ran, and returns what the terminal showed after the keys: the completion list or the completed line.
 */
const DRIVER = `zmodload zsh/zpty
zpty z "cd \${(q)3} && PS1='> ' TERM=dumb zsh -f -i"
zpty -w z "unsetopt zle_bracketed_paste; $1"
zpty -w z "echo RE''ADY"
out=''
for i in {1..200}; do
  while zpty -r -t z line; do out+=$line; done
  [[ $out == *READY* ]] && break
  sleep 0.05
done
[[ $out == *READY* ]] || { print -r -- "setup did not finish: $out"; exit 1; }
zpty -n -w z "$2"
out=''
for i in {1..40}; do
  sleep 0.05
  while zpty -r -t z line; do out+=$line; done
done
print -r -- "$out"
zpty -d z
`;

describe.skipIf(!RUN_SHELL_TESTS)('zsh completion, run in a real zsh', () => {
  let dir: string;
  let work: string;
  let fpathDir: string;
  let bin: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-zsh-'));
    work = path.join(dir, 'work');
    fpathDir = path.join(dir, 'functions');
    bin = path.join(dir, 'bin');
    await Promise.all([mkdir(work), mkdir(fpathDir), mkdir(bin)]);
    await writeFile(path.join(work, 'somefile.txt'), '');
    await writeFile(path.join(bin, 'scrapeform'), `#!/bin/sh\nexec node '${BUILT_CLI}' "$@"\n`);
    await chmod(path.join(bin, 'scrapeform'), 0o755);
    await writeFile(path.join(dir, 'drive.zsh'), DRIVER);
    const script = (await exec('node', [BUILT_CLI, 'completion', 'zsh'])).stdout;
    await writeFile(path.join(fpathDir, '_scrapeform'), script);
  });
  const typeInto = async (setup: string, input: string, cwd = work): Promise<string> =>
    (await exec('zsh', ['-f', path.join(dir, 'drive.zsh'), `PATH=${bin}:$PATH; ${setup}`, input, cwd]))
      .stdout;

  it('installed in $fpath, the first TAB after "scrapeform " lists the commands', async () => {
    const shown = await typeInto(
      `fpath=(${fpathDir} $fpath); autoload -Uz compinit; compinit -u -D`,
      'scrapeform \t',
    );
    expect(shown).toContain('validate');
    expect(shown).toContain('force-unlock');
    expect(shown).not.toContain('somefile.txt');
  });

  it('sourced before compinit ran (from .zshrc), TAB completes commands and flags, not files', async () => {
    const setup = 'source <(scrapeform completion zsh)';
    const commands = await typeInto(setup, 'scrapeform \t');
    expect(commands).toContain('validate');
    expect(commands).not.toContain('somefile.txt');
    expect(await typeInto(setup, 'scrapeform plan --detailed\t')).toContain(
      'scrapeform plan --detailed-exitcode',
    );
  });

  it('a command that takes no path completes no file; completion its shells; a path-taking command files', async () => {
    const setup = `fpath=(${fpathDir} $fpath); autoload -Uz compinit; compinit -u -D`;
    /** The line as the TAB left it (the terminal's last newline aside). */
    const typed = async (keys: string): Promise<string> =>
      (await typeInto(setup, keys)).replace(/\r?\n$/, '');
    // Nothing to complete: the line stays as typed, and the terminal bell rings.
    for (const line of ['scrapeform status some', 'scrapeform doctor some', 'scrapeform state pull some']) {
      expect(await typed(`${line}\t`), line).toBe(`${line}\u0007`);
    }
    expect(await typed('scrapeform completion z\t')).toBe('scrapeform completion zsh ');
    expect(await typed('scrapeform completion bash some\t')).toBe('scrapeform completion bash some\u0007');
    expect(await typed('scrapeform validate some\t')).toBe('scrapeform validate somefile.txt ');
    expect(await typed('scrapeform state push some\t')).toBe('scrapeform state push somefile.txt ');
  });

  it('a command taking one path completes a file for that one only; [paths...] for every argument', async () => {
    const setup = `fpath=(${fpathDir} $fpath); autoload -Uz compinit; compinit -u -D`;
    const typed = async (keys: string): Promise<string> =>
      (await typeInto(setup, keys)).replace(/\r?\n$/, '');
    for (const line of [
      'scrapeform show plan.json some',
      'scrapeform show --json plan.json some',
      'scrapeform state push state.json some',
      'scrapeform state push --env prod state.json some',
    ]) {
      expect(await typed(`${line}\t`), line).toBe(`${line}\u0007`);
    }
    expect(await typed('scrapeform show some\t')).toBe('scrapeform show somefile.txt ');
    expect(await typed('scrapeform state push --state s.json some\t')).toBe(
      'scrapeform state push --state s.json somefile.txt ',
    );
    expect(await typed('scrapeform validate a.yaml some\t')).toBe('scrapeform validate a.yaml somefile.txt ');
  });

  it('past a subcommand (state push), TAB completes its own flags; before it, the subcommands', async () => {
    const setup = `fpath=(${fpathDir} $fpath); autoload -Uz compinit; compinit -u -D`;
    expect(await typeInto(setup, 'scrapeform state push --fo\t')).toContain('scrapeform state push --force');
    expect(await typeInto(setup, 'scrapeform state pull --wor\t')).toContain(
      'scrapeform state pull --workspace',
    );
    expect(await typeInto(setup, 'scrapeform state pus\t')).toContain('scrapeform state push');
  });

  it('a flag value: --env the environments of scrapeform.yaml, --only its values, --out files, none for a broken file', async () => {
    const project = path.join(dir, 'project');
    const broken = path.join(dir, 'broken');
    await Promise.all([mkdir(project), mkdir(broken)]);
    await writeFile(
      path.join(project, 'scrapeform.yaml'),
      'kind: Config\nenvironments:\n  staging: {}\n  production: { workspace: prod }\n',
    );
    await writeFile(path.join(project, 'somefile.txt'), '');
    await writeFile(path.join(broken, 'scrapeform.yaml'), 'kind: Config\nenvironments: [staging\n');
    await writeFile(path.join(broken, 'somefile.txt'), '');
    const setup = `fpath=(${fpathDir} $fpath); autoload -Uz compinit; compinit -u -D`;
    const envs = await typeInto(setup, 'scrapeform plan --env \t', project);
    expect(envs).toContain('staging');
    expect(envs).toContain('production');
    expect(envs).not.toContain('somefile.txt');
    expect(await typeInto(setup, 'scrapeform apply --env prod\t', project)).toContain(
      'scrapeform apply --env production',
    );
    const none = await typeInto(setup, 'scrapeform plan --env \t', broken);
    expect(none).not.toContain('somefile.txt');
    expect(none).not.toMatch(/error|staging/);
    expect(await typeInto(setup, 'scrapeform doctor --only pa\t', project)).toContain(
      'scrapeform doctor --only parsers',
    );
    expect(await typeInto(setup, 'scrapeform plan --out some\t', project)).toContain(
      'scrapeform plan --out somefile.txt',
    );
  });
  it('past global options (--chdir DIR, --no-color): the command and its flags; --env reads DIR/scrapeform.yaml', async () => {
    const root = path.join(dir, 'chdir');
    await mkdir(path.join(root, 'infra'), { recursive: true });
    await writeFile(
      path.join(root, 'infra', 'scrapeform.yaml'),
      'kind: Config\nenvironments:\n  staging: {}\n  production: { workspace: prod }\n',
    );
    await writeFile(path.join(root, 'scrapeform.yaml'), 'kind: Config\nenvironments:\n  here: {}\n');
    await writeFile(path.join(root, 'somefile.txt'), '');
    const setup = `fpath=(${fpathDir} $fpath); autoload -Uz compinit; compinit -u -D`;
    expect(await typeInto(setup, 'scrapeform --chdir infra plan --detailed\t', root)).toContain(
      'scrapeform --chdir infra plan --detailed-exitcode',
    );
    expect(await typeInto(setup, 'scrapeform --no-color --chdir infra state push --fo\t', root)).toContain(
      'scrapeform --no-color --chdir infra state push --force',
    );
    expect(await typeInto(setup, 'scrapeform --chdir=infra valid\t', root)).toContain(
      'scrapeform --chdir=infra validate',
    );
    expect(await typeInto(setup, 'scrapeform --chdir inf\t', root)).toContain('scrapeform --chdir infra/');
    expect(await typeInto(setup, 'scrapeform --chd\t', root)).toContain('scrapeform --chdir');
    const envs = await typeInto(setup, 'scrapeform --chdir infra plan --env \t', root);
    expect(envs).toContain('staging');
    expect(envs).toContain('production');
    expect(envs).not.toMatch(/here|somefile/);
    expect(await typeInto(setup, 'scrapeform --chdir=infra apply --env prod\t', root)).toContain(
      'scrapeform --chdir=infra apply --env production',
    );
    const none = await typeInto(setup, 'scrapeform --chdir missing plan --env \t', root);
    expect(none).not.toMatch(/here|staging|somefile|error/);
  });

  it('a value written --flag=value is completed as --flag value is, as bash does', async () => {
    const project = path.join(dir, 'equals');
    await mkdir(project);
    await writeFile(
      path.join(project, 'scrapeform.yaml'),
      'kind: Config\nenvironments:\n  staging: {}\n  production: { workspace: prod }\n',
    );
    await writeFile(path.join(project, 'somefile.txt'), '');
    const setup = `fpath=(${fpathDir} $fpath); autoload -Uz compinit; compinit -u -D`;
    expect(await typeInto(setup, 'scrapeform plan --env=st\t', project)).toContain(
      'scrapeform plan --env=staging',
    );
    expect(await typeInto(setup, 'scrapeform state pull --env=prod\t', project)).toContain(
      'scrapeform state pull --env=production',
    );
    expect(await typeInto(setup, 'scrapeform doctor --only=pa\t', project)).toContain(
      'scrapeform doctor --only=parsers',
    );
    expect(await typeInto(setup, 'scrapeform plan --out=some\t', project)).toContain(
      'scrapeform plan --out=somefile.txt',
    );
  });

  it('past --chdir DIR, files and folders are offered from DIR, where the command reads them', async () => {
    const root = path.join(dir, 'chdir-files');
    await mkdir(path.join(root, 'infra', 'vars'), { recursive: true });
    await writeFile(path.join(root, 'infra', 'solo.yaml'), '');
    await writeFile(path.join(root, 'somefile.txt'), '');
    const setup = `fpath=(${fpathDir} $fpath); autoload -Uz compinit; compinit -u -D`;
    expect(await typeInto(setup, 'scrapeform --chdir infra plan --out so\t', root)).toContain(
      'scrapeform --chdir infra plan --out solo.yaml',
    );
    expect(await typeInto(setup, 'scrapeform --chdir=infra validate so\t', root)).toContain(
      'scrapeform --chdir=infra validate solo.yaml',
    );
    expect(await typeInto(setup, 'scrapeform --chdir infra import --out v\t', root)).toContain(
      'scrapeform --chdir infra import --out vars/',
    );
    const none = await typeInto(setup, 'scrapeform --chdir missing plan --out so\t', root);
    expect(none).not.toMatch(/somefile|error/);
  });
});
