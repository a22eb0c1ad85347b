import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { runScrapeform } from '../helpers/cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BROKEN = path.join(ROOT, 'test/fixtures/broken');

describe('scrapeform validate', () => {
  it('exits 0 on the examples and prints its summary on stdout only', async () => {
    const run = await runScrapeform(['validate', path.join(ROOT, 'examples')]);
    const multiEnv = path.join(ROOT, 'examples', 'multi-env');
    // examples/multi-env is a project of its own (scrapeform.yaml): skipped with a warning, read on its own below.
    expect(run).toEqual({
      code: 0,
      stdout: 'Valid: 5 files, 4 parsers, 3 projects.\n',
      stderr: `${path.join(multiEnv, 'scrapeform.yaml')}: warning: skipped ${multiEnv}: it holds its own scrapeform.yaml, so it is another project\n  hint: read it on its own: scrapeform validate ${multiEnv} (or --chdir ${multiEnv})\n1 warning\n`,
    });
    const project = await runScrapeform(['validate', multiEnv]);
    expect(project).toEqual({
      code: 0,
      stdout: 'Valid: 8 files, staging: 4 parsers, 1 project; prod: 10 parsers, 3 projects.\n',
      stderr: '',
    });
  });

  it('exits 1 and reports problems on stderr, leaving stdout empty', async () => {
    const run = await runScrapeform(['validate', path.join(BROKEN, 'unknown-top-key.yaml')]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `${path.join(BROKEN, 'unknown-top-key.yaml')}:4:1 scraperParams: unknown key "scraperParams"\n  hint: did you mean "scraper_params"?\n1 error\n`,
    );
  });

  it('--json prints the diagnostics as data on stdout', async () => {
    const run = await runScrapeform(['validate', '--json', path.join(BROKEN, 'too-many-urls.yaml')]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout) as { valid: boolean; diagnostics: unknown[] };
    expect(report.valid).toBe(false);
    expect(report.diagnostics).toEqual([
      {
        severity: 'error',
        code: 'manifest.invalid-value',
        file: path.join(BROKEN, 'too-many-urls.yaml'),
        line: 4,
        column: 3,
        path: 'urls',
        message: 'takes at most 3 example URLs (the service accepts 1 to 3)',
      },
    ]);
  });

  it('warns of a page written twice in urls, at the copy, and exits 0: a warning, in --json too', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-validate-'));
    const file = path.join(dir, 'books.yaml');
    await writeFile(
      file,
      'kind: Parser\nname: books\nurls:\n  - https://books.example/a.html\n  - https://books.example/a.html/\n',
    );
    const message = `the same example page as urls[0] at ${file}:4:5 (https://books.example/a.html): plan counts them as one page`;
    const hint =
      'remove the repeated entry: plan reads the same pages without it, so removing it changes nothing live';
    expect(await runScrapeform(['validate', dir])).toEqual({
      code: 0,
      stdout: 'Valid: 1 file, 1 parser, 0 projects.\n',
      stderr: `${file}:5:5 urls[1]: warning: ${message}\n  hint: ${hint}\n1 warning\n`,
    });
    const run = await runScrapeform(['validate', '--json', dir]);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const report = JSON.parse(run.stdout) as { valid: boolean; diagnostics: unknown[] };
    expect(report.valid).toBe(true);
    expect(report.diagnostics).toEqual([
      {
        severity: 'warning',
        code: 'manifest.repeated-url',
        file,
        line: 5,
        column: 5,
        path: 'urls[1]',
        message,
        hint,
      },
    ]);
    await rm(dir, { recursive: true, force: true });
  });

  it('interpolates from the environment it is given', async () => {
    const file = path.join(BROKEN, 'env-unset.yaml');
    const run = await runScrapeform(['validate', file], { env: { SCRAPEFORM_TEST_UNSET_VAR: 'x' } });
    expect(run.code).toBe(0);
  });
});

describe('scrapeform (program)', () => {
  it('--version prints the package version', async () => {
    const run = await runScrapeform(['--version']);
    expect(run).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('--help lists every command', async () => {
    const run = await runScrapeform(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['validate', 'schema', 'demo']) expect(run.stdout).toContain(`  ${command}`);
  });

  it('an unknown command exits 1 with usage on stderr', async () => {
    const run = await runScrapeform(['plna']);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain("unknown command 'plna'");
  });

  it('schema prints the committed JSON Schema (npm run schemas regenerates it)', async () => {
    const run = await runScrapeform(['schema']);
    const committed = await readFile(path.join(ROOT, 'schemas/scrapeform.schema.json'), 'utf8');
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(committed));
  });

  it('demo runs to the end on the quickstart', async () => {
    const run = await runScrapeform(['demo']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('books-product.yaml:8:1 scraperParams: unknown key "scraperParams"');
    expect(run.stderr).toBe('');
  });

  it('the installed binary runs (npm ci builds dist/ through prepare), and so does the entry of earlier versions', async () => {
    // package.json's bin is the CommonJS bundle; dist/cli/bin.js is kept for anyone who runs it by path.
    for (const entry of ['dist/cli/bin.cjs', 'dist/cli/bin.js']) {
      const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, entry), '--version']);
      expect(stdout, entry).toBe(`${VERSION}\n`);
    }
  });

  it('the binary exits only once all it printed is out, even to a reader slower than the pipe (bin.ts)', async () => {
    // The schema is larger than a pipe's buffer, and the reader starts late: the CLI exits at the end of the
    // command (process.exit), which must not cut what is still to be read.
    const cli = path.join(ROOT, 'dist/cli/bin.cjs');
    const { stdout } = await promisify(execFile)(
      'sh',
      ['-c', `"${process.execPath}" "${cli}" schema | (sleep 0.3; cat)`],
      { maxBuffer: 10_000_000 },
    );
    const committed = await readFile(path.join(ROOT, 'schemas/scrapeform.schema.json'), 'utf8');
    expect(stdout.length).toBeGreaterThan(65_536);
    expect(JSON.parse(stdout)).toEqual(JSON.parse(committed));
  });
});
