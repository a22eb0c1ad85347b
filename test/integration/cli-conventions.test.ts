import { execFile, spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { runScrapeform } from '../helpers/cli.js';
import { BUILT_CLI, emulatorEnv } from '../helpers/child-cli.js';
import { EMULATOR_KEY, startTestEmulator } from '../helpers/emulator.js';
import type { EmulatorHarness } from '../helpers/emulator.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);

describe('conventions users of terraform, gh and kubectl expect', () => {
  let h: EmulatorHarness;
  let dir: string;
  beforeAll(async () => {
    h = await startTestEmulator();
    dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-conv-'));
    await cp(path.join(ROOT, 'examples/quickstart'), path.join(dir, 'manifests'), { recursive: true });
  });
  afterAll(async () => {
    await h.emulator.close();
  });
  const env = (): Record<string, string> => ({
    SCRAPERAPI_API_KEY: EMULATOR_KEY,
    SCRAPEFORM_PARSER_URL: h.emulator.url,
    SCRAPEFORM_PIPELINE_URL: h.emulator.url,
  });

  it('scrapeform version, as text and JSON', async () => {
    const text = await runScrapeform(['version']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`^scrapeform ${VERSION.replace(/\./g, '\\.')} \\(Node\\.js `));
    const json = JSON.parse((await runScrapeform(['version', '--json'])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ version: VERSION, plan_format_version: 1, state_format_version: 1 });
  });

  it('--help shows examples and no "(default: [])" noise on any command', async () => {
    const top = await runScrapeform(['--help']);
    const names = [...top.stdout.matchAll(/^ {2}([a-z][a-z-]*) /gm)]
      .map((m) => m[1] as string)
      .filter((n) => n !== 'help');
    expect(names).toContain('plan');
    for (const name of names) {
      const help = await runScrapeform([name, '--help']);
      expect(help.stdout, name).not.toContain('(default: [])');
      if (!['state', 'help'].includes(name)) expect(help.stdout, name).toContain('Examples:\n  $ ');
    }
    // An example is copied into a shell: its jq filter must reach jq whole (unquoted, the shell took the quotes
    // around "books-product" away and jq failed).
    const output = (await runScrapeform(['output', '--help'])).stdout;
    const filter = /\| jq -r (.*)$/m.exec(output)?.[1] ?? '';
    const { stdout: word } = await exec('sh', ['-c', `printf '%s' ${filter}`]);
    expect(word).toBe('.parsers["books-product"].id');
  });

  it('an empty --state is refused the same way by every command, and nothing is written', async () => {
    for (const args of [
      ['plan', 'manifests'],
      ['output'],
      ['state', 'push', 'x.json'],
      ['status'],
      ['apply', 'manifests'],
    ]) {
      const run = await runScrapeform([...args, '--state', ''], { env: env() });
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr, args.join(' ')).toContain('error: --state is empty\n');
    }
    expect((await readdir(dir)).sort()).toEqual(['manifests']);
    expect(h.emulator.requestLog.filter((r) => !r.path.startsWith('/_emulator'))).toEqual([]);
  });

  it('--target or --exclude naming nothing is an error with a suggestion, not "No changes"', async () => {
    process.chdir(dir);
    const run = await runScrapeform(['plan', 'manifests', '--target', 'parser.books-prodcut'], {
      env: env(),
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'error: --target parser.books-prodcut: no manifest declares it and state does not manage it\n  hint: parser.books-prodcut -> did you mean parser.books-product?',
    );
    const excluded = await runScrapeform(['plan', 'manifests', '--exclude', 'project.nope'], { env: env() });
    expect(excluded.code).toBe(1);
    expect(excluded.stderr).toContain('error: --exclude project.nope: no manifest declares it');
  });

  it('FORCE_COLOR and --color colour a pipe; NO_COLOR still wins', async () => {
    const esc = '\u001b[';
    const plain = await runScrapeform(['validate', path.join(ROOT, 'examples')], {
      env: { NO_COLOR: undefined },
    });
    expect(plain.stdout).not.toContain(esc);
    const forced = await runScrapeform(['validate', path.join(ROOT, 'examples')], {
      env: { FORCE_COLOR: '1' },
    });
    expect(forced.stdout).toContain(esc);
    const flagged = await runScrapeform(['validate', '--color', path.join(ROOT, 'examples')]);
    expect(flagged.stdout).toContain(esc);
    const before = await runScrapeform(['--color', 'validate', path.join(ROOT, 'examples')]);
    expect(before.stdout).toContain(esc);
    const vetoed = await runScrapeform(['validate', '--color', path.join(ROOT, 'examples')], {
      env: { NO_COLOR: '1', FORCE_COLOR: '1' },
    });
    expect(vetoed.stdout).not.toContain(esc);
  });

  it('the colour flags follow a subcommand too (state pull, state push), and the last one written wins', async () => {
    const esc = '\u001b[';
    const state = path.join(dir, 'colour-flags', 'state.json');
    const pulled = await runScrapeform(['state', 'pull', '--no-color', '--state', state], {
      env: { FORCE_COLOR: '1' },
    });
    expect(pulled.stderr).toBe('');
    expect(pulled.code).toBe(0);
    expect(JSON.parse(pulled.stdout)).toMatchObject({ format_version: 1, resources: {} });
    const missing = path.join(dir, 'no-such-backup.json');
    const after = await runScrapeform(['state', 'push', missing, '--color', '--state', state]);
    expect(after.code).toBe(1);
    expect(after.stderr.startsWith(`${esc}31merror:${esc}39m cannot read ${missing}`)).toBe(true);
    // Between the two words it was accepted and ignored.
    const between = await runScrapeform(['state', '--no-color', 'push', missing, '--state', state], {
      env: { FORCE_COLOR: '1' },
    });
    expect(between.code).toBe(1);
    expect(between.stderr.startsWith(`error: cannot read ${missing}`)).toBe(true);
  });

  it('a closed stdout (scrapeform ... | head -1) ends the command quietly', async () => {
    const child = spawn(process.execPath, [BUILT_CLI, 'schema'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    // Read the first chunk, then go away as head does.
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('--chdir runs as if started in that folder; a missing folder is a usage error', async () => {
    const run = await exec(process.execPath, [BUILT_CLI, '--chdir', dir, 'validate', 'manifests'], {
      cwd: ROOT,
    });
    expect(run.stdout).toBe('Valid: 2 files, 1 parser, 1 project.\n');
    const missing = await exec(process.execPath, [
      BUILT_CLI,
      '--chdir',
      path.join(dir, 'nope'),
      'validate',
    ]).catch((e: { code: number; stderr: string }) => e);
    expect(missing).toMatchObject({ code: 1 });
    expect((missing as { stderr: string }).stderr).toContain(
      `error: --chdir: ${path.join(dir, 'nope')} is not a folder`,
    );
  });

  it('shell completion scripts for bash (run for real), zsh and fish name every command and option', async () => {
    const bash = (await runScrapeform(['completion', 'bash'])).stdout;
    const script = path.join(dir, 'completion.bash');
    await writeFile(script, bash);
    const complete = async (words: string[]): Promise<string> =>
      (
        await exec('bash', [
          '-c',
          `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _scrapeform; echo "\${COMPREPLY[@]}"`,
        ])
      ).stdout.trim();
    expect(await complete(['scrapeform', 'pl'])).toBe('plan');
    expect(await complete(['scrapeform', 'plan', '--detailed'])).toBe('--detailed-exitcode');
    expect(await complete(['scrapeform', 'state', 'p'])).toBe('pull push');
    expect(await complete(['scrapeform', 'state', 'push', '--fo'])).toBe('--force');
    // Flags after a path: the path was taken for a subcommand, and nothing was completed.
    expect(await complete(['scrapeform', 'plan', 'manifests', '--detailed'])).toBe('--detailed-exitcode');
    expect(await complete(['scrapeform', 'fmt', 'a.yaml', 'b.yaml', '--ch'])).toBe('--check');
    const zsh = (await runScrapeform(['completion', 'zsh'])).stdout;
    expect(zsh).toContain('#compdef scrapeform');
    expect(zsh).toMatch(/'--detailed-exitcode\[exit 2 [^\]]+\]'/);
    const fish = (await runScrapeform(['completion', 'fish'])).stdout;
    expect(fish).toContain("complete -c scrapeform -n '__scrapeform_command apply' -l 'auto-approve'");
    const bad = await runScrapeform(['completion', 'tcsh']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('error: completion: unknown shell "tcsh"; use bash, zsh, fish');
  });

  it('fmt puts keys in canonical order keeping comments; --check lists what is not formatted; other YAML is left alone', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'scrapeform-fmt-'));
    const messy = [
      '# keep this comment',
      'kind: Parser',
      'fields:',
      '    title:',
      '        selector: h1 # and this one',
      '        description: Title',
      'urls: [https://books.example/a.html]',
      'name: books',
      '',
    ].join('\n');
    const workflow = 'on: push\njobs:\n    build: {}\n';
    await writeFile(path.join(work, 'books.yaml'), messy);
    await writeFile(path.join(work, 'workflow.yml'), workflow);
    const check = await runScrapeform(['fmt', '--check', work]);
    expect(check.code).toBe(1);
    expect(check.stderr).toBe(`Not formatted (run scrapeform fmt):\n  ${path.join(work, 'books.yaml')}\n`);
    expect(await readFile(path.join(work, 'books.yaml'), 'utf8')).toBe(messy);
    const fmt = await runScrapeform(['fmt', work]);
    expect(fmt.stdout).toBe(`formatted ${path.join(work, 'books.yaml')}\n`);
    expect(await readFile(path.join(work, 'books.yaml'), 'utf8')).toBe(
      [
        '# keep this comment',
        'kind: Parser',
        'name: books',
        'urls: [ https://books.example/a.html ]',
        'fields:',
        '  title:',
        '    description: Title',
        '    selector: h1 # and this one',
        '',
      ].join('\n'),
    );
    expect(await readFile(path.join(work, 'workflow.yml'), 'utf8')).toBe(workflow);
    expect((await runScrapeform(['fmt', '--check', work])).code).toBe(0);
    expect((await runScrapeform(['validate', path.join(work, 'books.yaml')])).code).toBe(0);
    // The shipped examples are already formatted.
    expect((await runScrapeform(['fmt', '--check', path.join(ROOT, 'examples')])).code).toBe(0);
  });

  it('fmt of a path that does not exist, or under an ignore file it cannot read, is an error and writes nothing', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'scrapeform-fmt-missing-'));
    const messy = 'kind: Parser\nurls: [https://books.example/a.html]\nname: books\n';
    await writeFile(path.join(work, 'books.yaml'), messy);
    const typo = path.join(work, 'manifest');
    // A CI step `fmt --check manifest/` (the folder is manifests/) passed with nothing checked.
    for (const args of [
      ['fmt', '--check', typo],
      ['fmt', typo, work],
    ]) {
      const run = await runScrapeform(args);
      expect(run).toEqual({ code: 1, stdout: '', stderr: `${typo}: no such file or folder\n1 error\n` });
    }
    expect(await readFile(path.join(work, 'books.yaml'), 'utf8')).toBe(messy);
    // An ignore file that is a folder cannot be read: what it leaves out is not known, so nothing is rewritten.
    await mkdir(path.join(work, '.scrapeformignore'));
    const ignored = await runScrapeform(['fmt', work]);
    expect(ignored.code).toBe(1);
    expect(ignored.stdout).toBe('');
    expect(ignored.stderr).toMatch(
      new RegExp(`^${path.join(work, '.scrapeformignore').replace(/[.]/g, '\\.')}: cannot read file: EISDIR`),
    );
    expect(await readFile(path.join(work, 'books.yaml'), 'utf8')).toBe(messy);
  });

  it('show renders a saved plan in each format, the same as plan printed it', async () => {
    const out = path.join(dir, 'plan.json');
    const planned = await runScrapeform(
      ['plan', path.join(dir, 'manifests'), '--out', out, '--state', path.join(dir, 's.json')],
      {
        env: env(),
      },
    );
    expect(planned.code, planned.stderr).toBe(0);
    const shown = await runScrapeform(['show', out]);
    expect(shown.stdout).toBe(planned.stdout);
    // The saved file is the public plan JSON with its digest as the last key; show --json prints the plan alone.
    const { digest, ...content } = JSON.parse(await readFile(out, 'utf8')) as Record<string, unknown>;
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await runScrapeform(['show', out, '--json'])).stdout).toBe(
      `${JSON.stringify(content, null, 2)}\n`,
    );
    expect((await runScrapeform(['show', out, '--markdown'])).stdout).toContain('scrapeform plan');
  });
});

describe('a child process against the emulator', () => {
  it('keeps the key out of version output', async () => {
    const run = await exec(process.execPath, [BUILT_CLI, 'version', '--json'], {
      env: emulatorEnv('http://127.0.0.1:9', 'secret-canary-key'),
    });
    expect(run.stdout).not.toContain('secret-canary-key');
  });
});
