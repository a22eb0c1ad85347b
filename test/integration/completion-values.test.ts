import { execFile, execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../helpers/child-cli.js';

const exec = promisify(execFile);

const PROJECT = [
  'kind: Config',
  'environments:',
  '  staging:',
  '    state: .scrapeform/staging.json',
  '  prod: { workspace: prod }',
  '',
].join('\n');

/** A folder holding a project file with two environments, a file and a folder; a bin folder with `scrapeform`. */
async function workspace(): Promise<{ project: string; broken: string; bin: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-values-'));
  const project = path.join(dir, 'project');
  const broken = path.join(dir, 'broken');
  const bin = path.join(dir, 'bin');
  await Promise.all([mkdir(path.join(project, 'sub'), { recursive: true }), mkdir(broken), mkdir(bin)]);
  await writeFile(path.join(project, 'scrapeform.yaml'), PROJECT);
  await writeFile(path.join(project, 'somefile.txt'), '');
  await writeFile(path.join(broken, 'scrapeform.yaml'), 'kind: Config\nenvironments: [staging\n  prod: {\n');
  await writeFile(path.join(broken, 'somefile.txt'), '');
  await writeFile(path.join(bin, 'scrapeform'), `#!/bin/sh\nexec node '${BUILT_CLI}' "$@"\n`);
  await chmod(path.join(bin, 'scrapeform'), 0o755);
  return { project, broken, bin };
}

/**
 * The candidates bash offers for the last word, sorted, and what the completion printed to stderr. `typed` are the
 * words as bash hands them over (quotes included, as the line had them).
 */
async function bashOffers(
  script: string,
  bin: string,
  cwd: string,
  typed: string[],
): Promise<{ shown: string; stderr: string }> {
  const { stdout, stderr } = await exec(
    'bash',
    [
      '-c',
      `source ${script}; COMP_WORDS=(${typed.join(' ')}); COMP_CWORD=${typed.length - 1}; _scrapeform; printf '%s\\n' "\${COMPREPLY[@]}" | sort | tr '\\n' ' '`,
    ],
    { cwd, env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` } },
  );
  return { shown: stdout.trim(), stderr };
}

/** Plain words, each as one bash word. */
const quoted = (words: string[]): string[] => words.map((w) => `'${w}'`);

describe('bash completion of flag values, run in a real bash', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let script: string;
  beforeAll(async () => {
    ws = await workspace();
    script = path.join(path.dirname(ws.bin), 'completion.bash');
    await writeFile(script, (await exec('node', [BUILT_CLI, 'completion', 'bash'])).stdout);
  });
  const complete = (cwd: string, words: string[]) => bashOffers(script, ws.bin, cwd, quoted(words));

  it('--env offers the environments of scrapeform.yaml, not files', async () => {
    expect(await complete(ws.project, ['scrapeform', 'plan', '--env', ''])).toEqual({
      shown: 'prod staging',
      stderr: '',
    });
    expect((await complete(ws.project, ['scrapeform', 'apply', '--env', 'st'])).shown).toBe('staging');
    expect((await complete(ws.project, ['scrapeform', 'state', 'pull', '--env', 'p'])).shown).toBe('prod');
  });

  it('__complete env reads scrapeform.yaml alone: no manifest, state, client or emulator module is loaded', async () => {
    const hook = path.join(path.dirname(ws.bin), 'modules.cjs');
    const loaded = path.join(path.dirname(ws.bin), 'modules.json');
    await writeFile(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(Object.keys(require.cache))));\n`,
    );
    const { stdout } = await exec('node', ['--require', hook, BUILT_CLI, '__complete', 'env'], {
      cwd: ws.project,
    });
    expect(stdout).toBe('staging\nprod\n');
    const modules = JSON.parse(await readFile(loaded, 'utf8')) as string[];
    expect(modules.some((m) => m.includes('complete-values'))).toBe(true);
    expect(modules.filter((m) => /load-manifests|emulator|[\\/](pg|undici)[\\/]|state/.test(m))).toEqual([]);
  });

  it('a broken scrapeform.yaml offers nothing for --env and prints nothing', async () => {
    expect(await complete(ws.broken, ['scrapeform', 'plan', '--env', ''])).toEqual({ shown: '', stderr: '' });
  });

  it('a flag with a fixed set of values offers those; a file flag files; a folder flag folders', async () => {
    expect((await complete(ws.project, ['scrapeform', 'doctor', '--only', ''])).shown).toBe(
      'parsers projects',
    );
    expect((await complete(ws.project, ['scrapeform', 'import', '--only', 'pa'])).shown).toBe('parsers');
    expect((await complete(ws.project, ['scrapeform', 'plan', '--out', ''])).shown).toBe(
      'scrapeform.yaml somefile.txt sub',
    );
    expect((await complete(ws.project, ['scrapeform', 'import', '--out', ''])).shown).toBe('sub');
    // A value that is neither (a duration) is not a file name.
    expect((await complete(ws.project, ['scrapeform', 'plan', '--timeout', ''])).shown).toBe('');
    // Past the value, the command's paths and flags as before.
    expect((await complete(ws.project, ['scrapeform', 'plan', '--env', 'prod', 'some'])).shown).toBe(
      'somefile.txt',
    );
  });

  it('a command that takes no path offers no file; completion its shells; one that takes paths keeps them', async () => {
    // Names, ids, a URL, nothing at all: no file name fits there (and none past the one shell completion takes).
    for (const words of [
      ['status', ''],
      ['doctor', ''],
      ['run', ''],
      ['parse', 'parser.x', ''],
      ['cancel', ''],
      ['force-unlock', 'so'],
      ['state', 'pull', ''],
      ['version', ''],
      ['completion', 'bash', ''],
    ]) {
      expect(await complete(ws.project, ['scrapeform', ...words]), words.join(' ')).toEqual({
        shown: '',
        stderr: '',
      });
    }
    expect(await complete(ws.project, ['scrapeform', 'completion', ''])).toEqual({
      shown: 'bash fish zsh',
      stderr: '',
    });
    expect((await complete(ws.project, ['scrapeform', 'completion', 'z'])).shown).toBe('zsh');
    for (const command of ['validate', 'render', 'plan', 'apply', 'drift', 'watch', 'test', 'fmt', 'show']) {
      expect((await complete(ws.project, ['scrapeform', command, ''])).shown, command).toBe(
        'scrapeform.yaml somefile.txt sub',
      );
    }
    expect((await complete(ws.project, ['scrapeform', 'state', 'push', 'so'])).shown).toBe('somefile.txt');
    // Their flags stay, and so do a flag's files.
    expect((await complete(ws.project, ['scrapeform', 'status', '--env', ''])).shown).toBe('prod staging');
    expect((await complete(ws.project, ['scrapeform', 'status', '--state', 'some'])).shown).toBe(
      'somefile.txt',
    );
    expect((await complete(ws.project, ['scrapeform', 'status', '--j'])).shown).toBe('--json');
  });

  it('a command taking one path offers files for that one only; [paths...] for every argument', async () => {
    expect((await complete(ws.project, ['scrapeform', 'show', 'so'])).shown).toBe('somefile.txt');
    for (const words of [
      ['show', 'plan.json', ''],
      ['show', 'plan.json', 'so'],
      ['state', 'push', 'state.json', ''],
      ['show', '--json', 'plan.json', 'so'],
    ]) {
      expect(await complete(ws.project, ['scrapeform', ...words]), words.join(' ')).toEqual({
        shown: '',
        stderr: '',
      });
    }
    expect((await complete(ws.project, ['scrapeform', 'validate', 'a.yaml', 'b.yaml', 'so'])).shown).toBe(
      'somefile.txt',
    );
    expect((await complete(ws.project, ['scrapeform', 'fmt', '--check', 'a.yaml', ''])).shown).toBe(
      'scrapeform.yaml somefile.txt sub',
    );
  });

  it("a flag's value is not counted as an argument: the one path is still to come past it", async () => {
    for (const words of [
      ['state', 'push', '--env', 'prod', 'so'],
      ['state', 'push', '--state', 's.json', 'so'],
      ['state', 'push', '--lock-timeout', '5m', '--force', 'so'],
      // --env=prod, as bash splits it.
      ['state', 'push', '--env', '=', 'prod', 'so'],
      ['--chdir', 'project', 'state', 'push', '--workspace', 'ci', 'so'],
    ]) {
      const cwd = words[0] === '--chdir' ? path.dirname(ws.project) : ws.project;
      expect(await complete(cwd, ['scrapeform', ...words]), words.join(' ')).toEqual({
        shown: 'somefile.txt',
        stderr: '',
      });
    }
    // Past the value and the path, nothing.
    for (const words of [
      ['state', 'push', '--env', 'prod', 'a.json', ''],
      ['state', 'push', '--env', '=', 'prod', 'a.json', ''],
      ['show', '--json', 'plan.json', ''],
    ]) {
      expect(await complete(ws.project, ['scrapeform', ...words]), words.join(' ')).toEqual({
        shown: '',
        stderr: '',
      });
    }
  });
});

describe('bash completion after global options (--chdir DIR, --no-color) and of --flag=value, run in a real bash', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let root: string;
  let script: string;
  beforeAll(async () => {
    ws = await workspace();
    root = path.dirname(ws.bin);
    script = path.join(root, 'completion.bash');
    await writeFile(script, (await exec('node', [BUILT_CLI, 'completion', 'bash'])).stdout);
  });
  /** As bash splits the line: `--env=st` is the three words `--env`, `=`, `st` (`=` is in COMP_WORDBREAKS). */
  const complete = (cwd: string, words: string[]) => bashOffers(script, ws.bin, cwd, quoted(words));

  it('past --chdir DIR the command is found: its flags, its subcommands, the commands themselves', async () => {
    expect((await complete(root, ['scrapeform', '--chdir', 'project', 'plan', '--detailed'])).shown).toBe(
      '--detailed-exitcode',
    );
    expect((await complete(root, ['scrapeform', '--chdir', 'project', 'val'])).shown).toBe('validate');
    expect(
      (await complete(root, ['scrapeform', '--no-color', '--chdir', 'project', 'state', 'pu'])).shown,
    ).toBe('pull push');
    expect(
      (await complete(root, ['scrapeform', '--chdir', '=', 'project', 'state', 'push', '--fo'])).shown,
    ).toBe('--force');
    // The value of --chdir is a folder; before the command, the program's own options.
    expect((await complete(root, ['scrapeform', '--chdir', ''])).shown).toBe('bin broken project');
    expect((await complete(root, ['scrapeform', '--chdir', '=', 'pro'])).shown).toBe('project');
    expect((await complete(root, ['scrapeform', '--ch'])).shown).toBe('--chdir');
  });

  it('--env after --chdir DIR offers the environments of DIR/scrapeform.yaml; a missing DIR nothing', async () => {
    expect(await complete(root, ['scrapeform', '--chdir', 'project', 'plan', '--env', ''])).toEqual({
      shown: 'prod staging',
      stderr: '',
    });
    expect(
      (await complete(root, ['scrapeform', '--chdir', '=', 'project', 'state', 'pull', '--env', 'p'])).shown,
    ).toBe('prod');
    expect(await complete(root, ['scrapeform', '--chdir', 'missing', 'plan', '--env', ''])).toEqual({
      shown: '',
      stderr: '',
    });
    // The project folder's own file is not read in place of DIR's.
    expect(await complete(ws.project, ['scrapeform', '--chdir', '../broken', 'plan', '--env', ''])).toEqual({
      shown: '',
      stderr: '',
    });
  });

  it('past --chdir DIR, files and folders are offered from DIR, where the command reads them', async () => {
    // root holds bin, broken, project and completion.bash; project holds scrapeform.yaml, somefile.txt and sub.
    expect(await complete(root, ['scrapeform', '--chdir', 'project', 'plan', '--out', 'so'])).toEqual({
      shown: 'somefile.txt',
      stderr: '',
    });
    // A folder only DIR has ends in "/" here (readline would not find it to add one: completion-bash.test.ts).
    expect(
      (await complete(root, ['scrapeform', '--chdir', '=', 'project', 'validate', '--var-file', ''])).shown,
    ).toBe('scrapeform.yaml somefile.txt sub/');
    expect((await complete(root, ['scrapeform', '--chdir', 'project', 'import', '--out', ''])).shown).toBe(
      'sub/',
    );
    expect((await complete(root, ['scrapeform', '--chdir', 'project', 'validate', 'so'])).shown).toBe(
      'somefile.txt',
    );
    // A DIR that is not there offers nothing, and no file of the current folder.
    expect(await complete(root, ['scrapeform', '--chdir', 'missing', 'plan', '--out', ''])).toEqual({
      shown: '',
      stderr: '',
    });
  });

  it('a name with [, * or ? is offered as it is, not read as a pattern against the current folder', async () => {
    const infra = path.join(root, 'infra');
    await mkdir(infra, { recursive: true });
    await writeFile(path.join(infra, 'a[1].yaml'), '');
    await writeFile(path.join(infra, 'a*.yaml'), '');
    // In the current folder, what those names would match as patterns.
    await writeFile(path.join(root, 'a1.yaml'), '');
    await writeFile(path.join(root, 'ab.yaml'), '');
    expect((await complete(root, ['scrapeform', '--chdir', 'infra', 'validate', 'a'])).shown).toBe(
      'a*.yaml a[1].yaml',
    );
  });

  it('--chdir DIR written quoted or with backslashes reads DIR/scrapeform.yaml, as zsh and fish do', async () => {
    await mkdir(path.join(root, 'my project'), { recursive: true });
    await writeFile(path.join(root, 'my project', 'scrapeform.yaml'), PROJECT);
    // The words as bash hands them over: DIR as typed, quotes and backslashes included.
    for (const typed of [`"'my project'"`, `'"my project"'`, `'my\\ project'`]) {
      const offered = await bashOffers(script, ws.bin, root, [
        'scrapeform',
        '--chdir',
        typed,
        'plan',
        '--env',
        "''",
      ]);
      expect({ typed, ...offered }).toEqual({ typed, shown: 'prod staging', stderr: '' });
    }
  });

  it('--flag=value completes the value as --flag value does', async () => {
    expect(await complete(ws.project, ['scrapeform', 'plan', '--env', '='])).toEqual({
      shown: 'prod staging',
      stderr: '',
    });
    expect((await complete(ws.project, ['scrapeform', 'apply', '--env', '=', 'st'])).shown).toBe('staging');
    expect((await complete(ws.project, ['scrapeform', 'doctor', '--only', '=', 'pa'])).shown).toBe('parsers');
    expect((await complete(ws.project, ['scrapeform', 'plan', '--timeout', '=', ''])).shown).toBe('');
  });
});

function hasFish(): boolean {
  try {
    execFileSync('fish', ['-c', 'true'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(!hasFish())('fish completion of flag values, run in a real fish', () => {
  let ws: Awaited<ReturnType<typeof workspace>>;
  let script: string;
  beforeAll(async () => {
    ws = await workspace();
    script = path.join(path.dirname(ws.bin), 'completion.fish');
    await writeFile(script, (await exec('node', [BUILT_CLI, 'completion', 'fish'])).stdout);
  });
  /** The candidates fish offers for `line`, without their descriptions, sorted. */
  const complete = async (cwd: string, line: string): Promise<{ shown: string; stderr: string }> => {
    const { stdout, stderr } = await exec(
      'fish',
      ['--no-config', '-c', `source ${script}; complete -C '${line}' | string replace -r '\\t.*' '' | sort`],
      { cwd, env: { ...process.env, PATH: `${ws.bin}:${process.env.PATH ?? ''}` } },
    );
    return { shown: stdout.trim().split('\n').join(' '), stderr };
  };

  it('past --chdir DIR: the commands, the flags of the command, and --env reads DIR/scrapeform.yaml', async () => {
    const root = path.dirname(ws.bin);
    expect((await complete(root, 'scrapeform --chdir project val')).shown).toBe('validate');
    expect((await complete(root, 'scrapeform --chdir project plan --detailed')).shown).toBe(
      '--detailed-exitcode',
    );
    expect(await complete(root, 'scrapeform --chdir project plan --env ')).toEqual({
      shown: 'prod staging',
      stderr: '',
    });
    expect((await complete(root, 'scrapeform --no-color --chdir=project apply --env st')).shown).toBe(
      'staging',
    );
    expect(await complete(root, 'scrapeform --chdir missing plan --env ')).toEqual({ shown: '', stderr: '' });
    expect((await complete(root, 'scrapeform --chdir pro')).shown).toBe('project/');
  });

  it('past --chdir DIR, files and folders are offered from DIR, where the command reads them', async () => {
    const root = path.dirname(ws.bin);
    expect(await complete(root, 'scrapeform --chdir project plan --out some')).toEqual({
      shown: 'somefile.txt',
      stderr: '',
    });
    expect((await complete(root, 'scrapeform --chdir=project validate --var-file ')).shown).toBe(
      'scrapeform.yaml somefile.txt sub/',
    );
    expect((await complete(root, 'scrapeform --chdir project import --out ')).shown).toBe('sub/');
    expect(await complete(root, 'scrapeform --chdir missing plan --out ')).toEqual({ shown: '', stderr: '' });
    // Without --chdir, the files here, as before.
    expect((await complete(ws.project, 'scrapeform plan --out ')).shown).toBe(
      'scrapeform.yaml somefile.txt sub/',
    );
  });

  it("a command's own paths: files and folders, from DIR past --chdir DIR, as bash and zsh offer them", async () => {
    const root = path.dirname(ws.bin);
    expect(await complete(ws.project, 'scrapeform validate ')).toEqual({
      shown: 'scrapeform.yaml somefile.txt sub/',
      stderr: '',
    });
    expect((await complete(ws.project, 'scrapeform plan --env prod some')).shown).toBe('somefile.txt');
    expect((await complete(ws.project, 'scrapeform state push so')).shown).toBe('somefile.txt');
    expect((await complete(root, 'scrapeform --chdir project validate ')).shown).toBe(
      'scrapeform.yaml somefile.txt sub/',
    );
    expect(await complete(root, 'scrapeform --chdir missing validate ')).toEqual({ shown: '', stderr: '' });
    // Not in place of the commands, the subcommands, a flag's own values or the flags.
    expect((await complete(ws.project, 'scrapeform val')).shown).toBe('validate');
    expect((await complete(ws.project, 'scrapeform state pu')).shown).toBe('pull push');
    expect((await complete(ws.project, 'scrapeform plan --env ')).shown).toBe('prod staging');
    expect((await complete(ws.project, 'scrapeform import --out ')).shown).toBe('sub/');
    expect((await complete(ws.project, 'scrapeform plan --detailed')).shown).toBe('--detailed-exitcode');
  });

  it('a command that takes no path offers no file; one that takes paths keeps them', async () => {
    const root = path.dirname(ws.bin);
    // Names, ids, a URL, a shell: no file name fits there.
    for (const line of [
      'scrapeform status ',
      'scrapeform run ',
      'scrapeform parse parser.x ',
      'scrapeform cancel ',
      'scrapeform force-unlock ',
      'scrapeform state pull ',
      'scrapeform completion bash ',
      'scrapeform --chdir project version ',
    ]) {
      expect(await complete(line.includes('--chdir') ? root : ws.project, line), line).toEqual({
        shown: '',
        stderr: '',
      });
    }
    for (const line of ['validate', 'render', 'plan', 'apply', 'drift', 'watch', 'test', 'fmt', 'show']) {
      expect((await complete(ws.project, `scrapeform ${line} `)).shown, line).toBe(
        'scrapeform.yaml somefile.txt sub/',
      );
    }
    // Their flags stay, and so do a flag's files.
    expect((await complete(ws.project, 'scrapeform status --env ')).shown).toBe('prod staging');
    expect((await complete(ws.project, 'scrapeform status --state some')).shown).toBe('somefile.txt');
  });

  it('a command taking one path offers files for that one only; [paths...] for every argument', async () => {
    expect((await complete(ws.project, 'scrapeform show so')).shown).toBe('somefile.txt');
    for (const line of [
      'scrapeform show plan.json ',
      'scrapeform show plan.json so',
      'scrapeform show --json plan.json so',
      'scrapeform state push state.json ',
    ]) {
      expect(await complete(ws.project, line), line).toEqual({ shown: '', stderr: '' });
    }
    expect((await complete(ws.project, 'scrapeform validate a.yaml b.yaml so')).shown).toBe('somefile.txt');
    // A flag's value is no argument: the one path is still to come.
    expect((await complete(ws.project, 'scrapeform state push --state s.json so')).shown).toBe(
      'somefile.txt',
    );
    expect((await complete(ws.project, 'scrapeform state push --env=prod so')).shown).toBe('somefile.txt');
    expect((await complete(ws.project, 'scrapeform state push --env prod a.json so')).shown).toBe('');
  });

  it('completion offers its shells', async () => {
    expect(await complete(ws.project, 'scrapeform completion ')).toEqual({
      shown: 'bash fish zsh',
      stderr: '',
    });
    expect((await complete(ws.project, 'scrapeform --no-color completion f')).shown).toBe('fish');
  });

  it("a command's completions apply only when it is the command, not a word further on", async () => {
    const root = path.dirname(ws.bin);
    // A folder named as a command, given to --chdir: DIR, not the command.
    await mkdir(path.join(root, 'show'), { recursive: true });
    await writeFile(path.join(root, 'show', 'saved.plan'), '');
    for (const [cwd, line] of [
      [ws.project, 'scrapeform status validate '],
      [ws.project, 'scrapeform validate show --mark'],
      [ws.project, 'scrapeform status plan --detailed'],
      [ws.project, 'scrapeform state pull push '],
      [ws.project, 'scrapeform completion bash state '],
      [root, 'scrapeform --chdir show status '],
      [root, 'scrapeform --chdir=show --no-color status '],
    ] as const) {
      expect(await complete(cwd, line), line).toEqual({ shown: '', stderr: '' });
    }
    // The command's own, and nothing of the word that names another.
    expect((await complete(ws.project, 'scrapeform validate state ')).shown).toBe(
      'scrapeform.yaml somefile.txt sub/',
    );
    expect((await complete(ws.project, 'scrapeform show validate --j')).shown).toBe('--json');
    expect((await complete(ws.project, 'scrapeform state push pull --fo')).shown).toBe('--force');
    expect((await complete(root, 'scrapeform --chdir show show ')).shown).toBe('saved.plan');
    expect((await complete(root, 'scrapeform --chdir show --no-color validate --j')).shown).toBe('--json');
    expect((await complete(ws.project, 'scrapeform state ')).shown).toBe('pull push');
    expect((await complete(ws.project, 'scrapeform --chdir . state push --fo')).shown).toBe('--force');
  });

  it('--env offers the environments; a broken file nothing; --only its values; --out files', async () => {
    expect(await complete(ws.project, 'scrapeform plan --env ')).toEqual({
      shown: 'prod staging',
      stderr: '',
    });
    expect(await complete(ws.broken, 'scrapeform plan --env ')).toEqual({ shown: '', stderr: '' });
    expect((await complete(ws.project, 'scrapeform doctor --only ')).shown).toBe('parsers projects');
    expect((await complete(ws.project, 'scrapeform plan --out some')).shown).toBe('somefile.txt');
    expect((await complete(ws.project, 'scrapeform import --out ')).shown).toBe('sub/');
  });
});
