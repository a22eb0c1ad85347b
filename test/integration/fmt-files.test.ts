import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../helpers/child-cli.js';
import { runScrapeform } from '../helpers/cli.js';

const MESSY =
  'kind: Parser\nurls: [https://books.example/a.html]\nname: books # the shop\nfields:\n    title:\n        selector: h1\n        description: Title\n';
const FORMATTED =
  'kind: Parser\nname: books # the shop\nurls: [ https://books.example/a.html ]\nfields:\n  title:\n    description: Title\n    selector: h1\n';

async function folderWith(files: Record<string, string>): Promise<string> {
  const work = await mkdtemp(path.join(tmpdir(), 'scrapeform-fmt-files-'));
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(work, name), text);
  return work;
}

describe('fmt keeps what it does not format', () => {
  it("keeps a file's CRLF line endings and UTF-8 byte order mark; --check passes a file that is formatted with them", async () => {
    const crlf = (text: string): string => text.replace(/\n/g, '\r\n');
    const work = await folderWith({
      'crlf.yaml': crlf(MESSY),
      'bom.yaml': `\uFEFF${MESSY}`,
      'both.yaml': `\uFEFF${crlf(MESSY)}`,
    });
    const check = await runScrapeform(['fmt', '--check', work]);
    expect(check.code).toBe(1);
    const fmt = await runScrapeform(['fmt', work]);
    expect(fmt.code).toBe(0);
    expect(await readFile(path.join(work, 'crlf.yaml'), 'utf8')).toBe(crlf(FORMATTED));
    expect(await readFile(path.join(work, 'bom.yaml'), 'utf8')).toBe(`\uFEFF${FORMATTED}`);
    expect(await readFile(path.join(work, 'both.yaml'), 'utf8')).toBe(`\uFEFF${crlf(FORMATTED)}`);
    // A Windows checkout of formatted manifests: --check failed on every file and fmt rewrote each one whole.
    expect(await runScrapeform(['fmt', '--check', work])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await runScrapeform(['fmt', work])).toEqual({
      code: 0,
      stdout: 'Nothing to format.\n',
      stderr: '',
    });
    for (const name of ['crlf.yaml', 'bom.yaml', 'both.yaml']) {
      expect(await runScrapeform(['validate', path.join(work, name)])).toMatchObject({ code: 0, stderr: '' });
    }
  });

  // Review: read loosely, a Latin-1 byte was written back as U+FFFD, for good, and fmt said it formatted the file.
  it('refuses a file that is not UTF-8 at its first bad byte, and writes no file', async () => {
    const work = await folderWith({ 'messy.yaml': MESSY });
    const latin = Buffer.from(`${MESSY}# caf\xe9 comment\n`, 'latin1');
    await writeFile(path.join(work, 'latin.yaml'), latin);
    const fmt = await runScrapeform(['fmt', work]);
    expect(fmt.code).toBe(1);
    expect(fmt.stdout).toBe('');
    expect(fmt.stderr).toContain(
      `${path.join(work, 'latin.yaml')}:8:6: the file is not valid UTF-8: byte 0xE9 here (Latin-1 or Windows-1252, perhaps)\n  hint: save the file as UTF-8 text\n`,
    );
    expect(fmt.stderr).toContain('1 error; nothing was formatted');
    expect(await readFile(path.join(work, 'latin.yaml'))).toEqual(latin);
    expect(await readFile(path.join(work, 'messy.yaml'), 'utf8')).toBe(MESSY);
    expect((await runScrapeform(['fmt', '--check', work])).code).toBe(1);
  });

  it('writes a file whose lines end in both ways with the ending of its first line', async () => {
    const work = await folderWith({ 'mixed.yaml': MESSY.replace('\n', '\r\n') });
    expect((await runScrapeform(['fmt', work])).code).toBe(0);
    expect(await readFile(path.join(work, 'mixed.yaml'), 'utf8')).toBe(FORMATTED.replace(/\n/g, '\r\n'));
  });
});

describe('fmt writes each file whole or not at all', () => {
  it('leaves a manifest as it was when its write fails midway (a full disk), and says so without a stack', async () => {
    // More than the 1 KiB the child may write (`ulimit -f 1`): the write fails with EFBIG, as on a full disk.
    const fields = Array.from(
      { length: 60 },
      (_, i) => `    f${i}:\n        selector: h${i}\n        description: Field ${i}\n`,
    ).join('');
    const messy = `kind: Parser\nurls: [https://books.example/a.html]\nname: books\nfields:\n${fields}`;
    const work = await folderWith({ 'a.yaml': MESSY.replace('name: books', 'name: a'), 'books.yaml': messy });
    const file = path.join(work, 'books.yaml');
    const run = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        'bash',
        ['-c', 'ulimit -f 1; exec "$0" "$@"', process.execPath, BUILT_CLI, 'fmt', work],
        {
          env: { PATH: process.env.PATH ?? '', CI: 'true' },
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    // The manifest was cut to its first 1024 bytes: the next plan would delete every field cut off.
    expect(await readFile(file, 'utf8')).toBe(messy);
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).toContain(
      `error: cannot write the formatted manifest to ${file}: file too large (EFBIG); the file is unchanged; 1 file before it was formatted\n`,
    );
    expect(await readFile(path.join(work, 'a.yaml'), 'utf8')).toBe(
      FORMATTED.replace('name: books', 'name: a'),
    );
    // No temporary file is left beside it.
    expect((await readdir(work)).sort()).toEqual(['a.yaml', 'books.yaml']);
  });

  it("keeps the file's mode, and a link stays a link to the file it names", async () => {
    const work = await folderWith({ 'books.yaml': MESSY, 'shared.yaml': MESSY });
    await chmod(path.join(work, 'books.yaml'), 0o640);
    await symlink(path.join(work, 'shared.yaml'), path.join(work, 'link.yml'));
    expect(
      (await runScrapeform(['fmt', path.join(work, 'books.yaml'), path.join(work, 'link.yml')])).code,
    ).toBe(0);
    expect(await readFile(path.join(work, 'books.yaml'), 'utf8')).toBe(FORMATTED);
    expect((await stat(path.join(work, 'books.yaml'))).mode & 0o777).toBe(0o640);
    expect(await readFile(path.join(work, 'shared.yaml'), 'utf8')).toBe(FORMATTED);
    expect((await readdir(work)).sort()).toEqual(['books.yaml', 'link.yml', 'shared.yaml']);
    expect((await import('node:fs')).lstatSync(path.join(work, 'link.yml')).isSymbolicLink()).toBe(true);
  });
});
