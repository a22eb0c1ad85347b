import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ScrapeformError } from '../../src/errors.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { checkStateFormat } from '../../src/state/model.js';
import { runScrapeform } from '../helpers/cli.js';

async function failure(
  run: () => Promise<unknown>,
): Promise<{ code: string; message: string; hint?: string }> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ScrapeformError)
      return { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('a state that cannot be read says why', () => {
  it('a state path that is a folder is a user error naming the folder', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-state-'));
    const folder = path.join(dir, 'state');
    await mkdir(folder);
    expect(await failure(() => new FileStateBackend(folder).read())).toEqual({
      code: 'state.not-a-file',
      message: `the state path ${folder} is a folder, not a file`,
      hint: `point --state (or SCRAPEFORM_STATE) at a file inside it, such as ${path.join(folder, 'state.json')}`,
    });
    const cli = await runScrapeform(['state', 'pull', '--state', folder]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toBe(
      `error: the state path ${folder} is a folder, not a file\n  hint: point --state (or SCRAPEFORM_STATE) at a file inside it, such as ${path.join(folder, 'state.json')}\n`,
    );
  });

  it('a state file from a newer scrapeform says so, and names both format versions', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-state-'));
    const file = path.join(dir, 'state.json');
    await writeFile(file, JSON.stringify({ format_version: 2, serial: 4, lineage: 'l', resources: {} }));
    expect(await failure(() => new FileStateBackend(file).read())).toEqual({
      code: 'state.newer-format',
      message: `the state in the file ${file} was written by a newer scrapeform (state format_version 2; this scrapeform reads format_version 1)`,
      hint: 'upgrade scrapeform to the version that wrote it (npm install scrapeform@latest); do not edit the state by hand',
    });
  });

  it('a database state row from a newer scrapeform gets the same message (the check both backends share)', async () => {
    const location = 'postgres://db/x (workspace default)';
    expect(
      await failure(async () => checkStateFormat({ format_version: 3, serial: 1, lineage: 'l' }, location)),
    ).toMatchObject({
      code: 'state.newer-format',
      message: `the state in ${location} was written by a newer scrapeform (state format_version 3; this scrapeform reads format_version 1)`,
    });
  });

  it('a file that is JSON but not a state is still called not a scrapeform state', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-state-'));
    const file = path.join(dir, 'state.json');
    await writeFile(file, JSON.stringify({ format_version: 0, serial: 'x' }));
    expect(await failure(() => new FileStateBackend(file).read())).toEqual({
      code: 'state.corrupt',
      message: `the state in the file ${file} is not a scrapeform state (format_version 0)`,
      hint: 'restore it from a backup',
    });
  });
});

describe('a state at the highest serial is not written past it', () => {
  it('a write that would pass 2,147,483,646 is refused, saying so, and the file stays readable as it was', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-state-'));
    const file = path.join(dir, 'state.json');
    const text = JSON.stringify({ format_version: 1, serial: 2_147_483_646, lineage: 'l', resources: {} });
    await writeFile(file, text);
    const backend = new FileStateBackend(file);
    const state = await backend.read();
    expect(await failure(() => backend.write(state))).toEqual({
      code: 'state.serial-limit',
      message: `the state in ${file} would pass serial 2147483646, the highest a state can hold: it was not written`,
      hint: 'a serial this high comes from a pushed copy: lower "serial" in that copy, or where the state is kept (in PostgreSQL, the serial column and the state\'s "serial"), then run the command again',
    });
    expect(await readFile(file, 'utf8')).toBe(text);
    expect((await new FileStateBackend(file).read()).serial).toBe(2_147_483_646);
  });

  it('state push of a copy at the highest serial is refused, onto a state at it or onto none, and nothing is written', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-state-'));
    const file = path.join(dir, 'state.json');
    const copy = path.join(dir, 'copy.json');
    const text = JSON.stringify({ format_version: 1, serial: 2_147_483_646, lineage: 'l', resources: {} });
    await writeFile(copy, text);
    const onNone = await runScrapeform(['state', 'push', copy, '--state', file]);
    expect(onNone.code).toBe(1);
    expect(onNone.stderr).toContain(
      `error: the state in ${file} would pass serial 2147483646, the highest a state can hold: it was not written\n`,
    );
    await expect(readFile(file)).rejects.toThrow(/ENOENT/);
    await writeFile(file, text);
    const cli = await runScrapeform(['state', 'push', copy, '--state', file]);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toBe('');
    expect(cli.stderr).toContain(
      `error: the state in ${file} would pass serial 2147483646, the highest a state can hold: it was not written\n`,
    );
    expect(await readFile(file, 'utf8')).toBe(text);
  });
});

describe('a state file saved by a Windows editor or shell', () => {
  const state = { format_version: 1, serial: 4, lineage: 'l', resources: {} };

  it('is read with a UTF-8 byte order mark and CRLF line ends, by every command and by state push', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-state-'));
    const file = path.join(dir, 'state.json');
    const text = `\uFEFF${JSON.stringify(state, null, 2).replace(/\n/g, '\r\n')}\r\n`;
    await writeFile(file, text);
    const backend = new FileStateBackend(file);
    expect(await backend.read()).toEqual(state);
    expect((await backend.write(await backend.read())).serial).toBe(5);

    const copy = path.join(dir, 'copy.json');
    await writeFile(copy, text.replace('"serial": 4', '"serial": 5'));
    const pushed = await runScrapeform(['state', 'push', copy, '--state', path.join(dir, 'other.json')]);
    expect(pushed.stderr).toBe('');
    expect(pushed.stdout).toBe(`Pushed 0 objects to ${path.join(dir, 'other.json')} (serial 6).\n`);
    expect(pushed.code).toBe(0);
  });

  it('in UTF-16 (Windows PowerShell\'s ">") is refused naming the encoding, by reads and by state push; nothing is written', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-state-'));
    const file = path.join(dir, 'state.json');
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(`${JSON.stringify(state, null, 2)}\r\n`, 'utf16le'),
    ]);
    await writeFile(file, bytes);
    const hint =
      'save it as UTF-8 (Windows PowerShell 5 writes UTF-16 with ">": pipe to Out-File -Encoding utf8 instead)';
    expect(await failure(() => new FileStateBackend(file).read())).toEqual({
      code: 'state.corrupt',
      message: `the state file ${file} is not valid JSON: the file is UTF-16 (little-endian), not UTF-8`,
      hint,
    });
    const other = path.join(dir, 'other.json');
    const pushed = await runScrapeform(['state', 'push', file, '--state', other]);
    expect(pushed).toMatchObject({
      code: 1,
      stdout: '',
      stderr: `error: cannot read ${file}: the file is UTF-16 (little-endian), not UTF-8\n  hint: ${hint}\n`,
    });
    await expect(readFile(other)).rejects.toThrow(/ENOENT/);
  });
});
