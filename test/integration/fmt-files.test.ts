import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
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

  it('writes a file whose lines end in both ways with the ending of its first line', async () => {
    const work = await folderWith({ 'mixed.yaml': MESSY.replace('\n', '\r\n') });
    expect((await runScrapeform(['fmt', work])).code).toBe(0);
    expect(await readFile(path.join(work, 'mixed.yaml'), 'utf8')).toBe(FORMATTED.replace(/\n/g, '\r\n'));
  });
});
