import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStateBackend } from '../../src/state/file-backend.js';
import type { State } from '../../src/state/model.js';
import { BUILT_CLI, runBuiltCli } from '../helpers/child-cli.js';
import { stateOf } from '../helpers/state.js';

/** The built CLI in `cwd`, as a user runs it there (relative state paths and scrapeform.yaml are read from it). */
function runScrapeform(args: string[], { cwd }: { cwd: string }) {
  return runBuiltCli(args, { cwd, env: { PATH: process.env.PATH ?? '', CI: 'true', NO_COLOR: '1' } });
}

async function folder(): Promise<string> {
  return mkdtemp(path.join(tmpdir(), 'scrapeform-state-commands-'));
}

describe('force-unlock', () => {
  it('refuses the lock of a run still running on this machine unless --force; LOCK_ID breaks only that lock', async () => {
    const cwd = await folder();
    const file = path.join(cwd, '.scrapeform/state.json');
    const backend = new FileStateBackend(file);
    const lock = await backend.lock('apply');
    const { info } = lock;
    const who = `${info.holder} (pid ${process.pid}, apply, since ${info.started}, lock id ${info.id})`;

    const refused = await runScrapeform(['force-unlock'], { cwd });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: the state .scrapeform/state.json is locked by ${who}, which is still running on this machine: nothing was broken\n  hint: wait for it to finish, or stop it; to break the lock of a run that is still running, add --force\n`,
    });
    const otherId = await runScrapeform(['force-unlock', 'not-this-lock', '--force'], { cwd });
    expect(otherId.code).toBe(1);
    expect(otherId.stderr).toBe(
      `error: the state .scrapeform/state.json is locked by ${who}, not by lock not-this-lock: nothing was broken\n  hint: check that it is the lock you meant, then run scrapeform force-unlock ${info.id}\n`,
    );
    expect(JSON.parse(await readFile(`${file}`.concat('.lock'), 'utf8'))).toEqual(info);

    const broken = await runScrapeform(['force-unlock', info.id ?? '', '--force'], { cwd });
    expect(broken).toEqual({ code: 0, stdout: `Broke the lock of ${who}.\n`, stderr: '' });
    // The run that held it cannot write over what another run writes now.
    await expect(backend.write(stateOf({}))).rejects.toMatchObject({ code: 'state.lock-lost' });
    await lock.release();
  });

  it('a lock file that names no holder (half written) is said to be broken, not "was not locked"', async () => {
    const cwd = await folder();
    await mkdir(path.join(cwd, '.scrapeform'));
    const lockFile = path.join(cwd, '.scrapeform/state.json.lock');
    await writeFile(lockFile, '{"holder":');
    // apply and the others call it locked, and send the user to force-unlock.
    await writeFile(path.join(cwd, 'pushed.json'), JSON.stringify(stateOf({})));
    const locked = await runScrapeform(['state', 'push', 'pushed.json'], { cwd });
    expect([locked.code, locked.stderr.split('\n')[0]]).toEqual([
      1,
      'error: the state .scrapeform/state.json is locked by another run',
    ]);

    const otherId = await runScrapeform(['force-unlock', 'not-this-lock'], { cwd });
    expect(otherId).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'error: the state .scrapeform/state.json is locked by a lock file that names no holder (empty, half written, or not a lock), not by lock not-this-lock: nothing was broken\n  hint: check that no run is active, then run scrapeform force-unlock without an id\n',
    });
    expect(existsSync(lockFile)).toBe(true);
    expect(await runScrapeform(['force-unlock'], { cwd })).toEqual({
      code: 0,
      stdout: 'Broke the lock of a lock file that names no holder (empty, half written, or not a lock).\n',
      stderr: '',
    });
    expect(existsSync(lockFile)).toBe(false);
  });

  it('a lock message names the id force-unlock takes', async () => {
    const cwd = await folder();
    const lock = await new FileStateBackend(path.join(cwd, '.scrapeform/state.json')).lock('apply');
    await writeFile(path.join(cwd, 'pushed.json'), JSON.stringify(stateOf({})));
    const locked = await runScrapeform(['state', 'push', 'pushed.json'], { cwd });
    expect(locked.stderr).toContain(`lock id ${lock.info.id}`);
    expect(locked.stderr).toContain(`scrapeform force-unlock ${lock.info.id}`);
    await lock.release();
  });
});

describe('state push', () => {
  it('keeps the parsers being deleted: pushed, pulled back as they were; differing only in them, the same serial is refused', async () => {
    const cwd = await folder();
    const backendFile = path.join(cwd, 'backend.json');
    const pushed = path.join(cwd, 'pushed.json');
    const deleting = { 'p-1': { name: 'books', since: '2026-01-02T03:04:05.000Z' } };
    await writeFile(pushed, JSON.stringify({ ...stateOf({}), serial: 3, deleting }));
    const done = await runScrapeform(['state', 'push', pushed, '--state', backendFile], { cwd });
    expect(done.code, done.stderr).toBe(0);
    const pulled = await runScrapeform(['state', 'pull', '--state', backendFile], { cwd });
    expect(pulled.code, pulled.stderr).toBe(0);
    const state = JSON.parse(pulled.stdout) as State;
    expect(state.deleting).toEqual(deleting);

    await writeFile(pushed, JSON.stringify({ ...state, deleting: {} }));
    const refused = await runScrapeform(['state', 'push', pushed, '--state', backendFile], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('but its content differs (the two diverged from one state)');
  });

  it('refuses a state of the same serial with other content unless --force', async () => {
    const cwd = await folder();
    const backendFile = path.join(cwd, 'backend.json');
    const pushed = path.join(cwd, 'pushed.json');
    const project = (name: string): State['resources'][string] => ({
      kind: 'Project',
      id: 1,
      name,
      definition: { name },
    });
    await writeFile(
      backendFile,
      JSON.stringify({ ...stateOf({ 'project.one': project('one') }), serial: 3 }),
    );
    await writeFile(pushed, JSON.stringify({ ...stateOf({ 'project.two': project('two') }), serial: 3 }));

    const refused = await runScrapeform(['state', 'push', pushed, '--state', backendFile], { cwd });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error: refusing to push ${pushed}: its serial 3 is the backend's, but its content differs (the two diverged from one state)\n  hint: pull first to see what is there; --force overwrites it\n`,
    );
    expect(Object.keys((JSON.parse(await readFile(backendFile, 'utf8')) as State).resources)).toEqual([
      'project.one',
    ]);

    // The same content (keys in another order) is no divergence.
    await writeFile(
      pushed,
      JSON.stringify({
        resources: { 'project.one': { definition: { name: 'one' }, name: 'one', id: 1, kind: 'Project' } },
        lineage: 'L',
        serial: 3,
        format_version: 1,
      }),
    );
    expect((await runScrapeform(['state', 'push', pushed, '--state', backendFile], { cwd })).code).toBe(0);

    await writeFile(pushed, JSON.stringify({ ...stateOf({ 'project.two': project('two') }), serial: 4 }));
    await writeFile(
      backendFile,
      JSON.stringify({ ...stateOf({ 'project.one': project('one') }), serial: 4 }),
    );
    const forced = await runScrapeform(['state', 'push', pushed, '--state', backendFile, '--force'], { cwd });
    expect(forced).toEqual({
      code: 0,
      stdout: `Pushed 1 object to ${backendFile} (serial 5).\n`,
      stderr: '',
    });
  });

  it('writes a pushed serial above the one pushed, so the same copy pushed again later is refused', async () => {
    const cwd = await folder();
    const backendFile = path.join(cwd, 'backend.json');
    const project = (name: string, id: number): State['resources'][string] => ({
      kind: 'Project',
      id,
      name,
      definition: { name },
    });
    await writeFile(backendFile, JSON.stringify({ ...stateOf({}), lineage: 'L', serial: 3 }));
    await writeFile(
      path.join(cwd, 'copy.json'),
      JSON.stringify({ ...stateOf({ 'project.a': project('a', 1) }), lineage: 'L', serial: 10 }),
    );
    expect(await runScrapeform(['state', 'push', 'copy.json', '--state', backendFile], { cwd })).toEqual({
      code: 0,
      stdout: `Pushed 1 object to ${backendFile} (serial 11).\n`,
      stderr: '',
    });
    // Applies record another object (serials 12 and 13); the old copy pushed again must not roll them back.
    const backend = new FileStateBackend(backendFile);
    const lock = await backend.lock('apply');
    const read = await backend.read();
    const once = await backend.write({
      ...read,
      resources: { ...read.resources, 'project.b': project('b', 2) },
    });
    await backend.write(once);
    await lock.release();
    const again = await runScrapeform(['state', 'push', 'copy.json', '--state', backendFile], { cwd });
    expect(again).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: refusing to push copy.json: its serial 10 is lower than the backend's 13\n  hint: pull first to see what is there; --force overwrites it\n`,
    });
    const kept = JSON.parse(await readFile(backendFile, 'utf8')) as State;
    expect([kept.serial, Object.keys(kept.resources).sort()]).toEqual([13, ['project.a', 'project.b']]);
  });
});

describe('state push onto a state no command can read', () => {
  // The hint of state.corrupt is to restore a backup; in PostgreSQL, push is the only way in, and it read the broken
  // state first and failed on it, --force or not.
  it('is refused naming the way out; --force puts the file in its place', async () => {
    const cwd = await folder();
    const backendFile = path.join(cwd, 'backend.json');
    await writeFile(backendFile, '{"format_version":1,"serial":7,"lin');
    const backup = {
      ...stateOf({ 'project.a': { kind: 'Project', id: 7, name: 'a', definition: {} } }),
      serial: 6,
    };
    await writeFile(path.join(cwd, 'backup.json'), JSON.stringify(backup));

    const refused = await runScrapeform(['state', 'push', 'backup.json', '--state', backendFile], { cwd });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `error: the state file ${backendFile} is not valid JSON: Unterminated string in JSON at position 35\n  hint: to put backup.json in its place, push it again with --force\n`,
    });
    expect(await readFile(backendFile, 'utf8')).toBe('{"format_version":1,"serial":7,"lin');

    const forced = await runScrapeform(['state', 'push', 'backup.json', '--state', backendFile, '--force'], {
      cwd,
    });
    expect(forced).toEqual({
      code: 0,
      stdout: `Pushed 1 object to ${backendFile} (serial 7).\n`,
      stderr: `the state file ${backendFile} is not valid JSON: Unterminated string in JSON at position 35: --force replaces it with backup.json\n`,
    });
    const written = JSON.parse(await readFile(backendFile, 'utf8')) as State;
    expect([written.serial, written.lineage, Object.keys(written.resources)]).toEqual([
      7,
      backup.lineage,
      ['project.a'],
    ]);
  });

  it('a state of a newer scrapeform is refused even with --force: pushing would downgrade it', async () => {
    const cwd = await folder();
    const backendFile = path.join(cwd, 'backend.json');
    const newer = JSON.stringify({ format_version: 2, serial: 3, lineage: 'L', resources: {} });
    await writeFile(backendFile, newer);
    await writeFile(path.join(cwd, 'backup.json'), JSON.stringify(stateOf({})));
    const forced = await runScrapeform(['state', 'push', 'backup.json', '--state', backendFile, '--force'], {
      cwd,
    });
    expect([forced.code, forced.stderr.split('\n')[0]]).toEqual([
      1,
      `error: the state in the file ${backendFile} was written by a newer scrapeform (state format_version 2; this scrapeform reads format_version 1)`,
    ]);
    expect(await readFile(backendFile, 'utf8')).toBe(newer);
  });
});

describe('state pull into a full disk', () => {
  // `state pull > backup.json` is how a state is backed up and moved (docs/ci.md): a backup cut short by a full disk
  // exited 0, and a script went on to rely on a file that held nothing.
  it.runIf(existsSync('/dev/full'))('exits 1 and says the output was not written', async () => {
    const cwd = await folder();
    const backendFile = path.join(cwd, 'backend.json');
    await writeFile(backendFile, JSON.stringify({ ...stateOf({}), lineage: 'L', serial: 4 }));
    const full = await open('/dev/full', 'w');
    try {
      const ran = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BUILT_CLI, 'state', 'pull', '--state', backendFile], {
          cwd,
          env: { PATH: process.env.PATH ?? '', CI: 'true', NO_COLOR: '1' },
          stdio: ['ignore', full.fd, 'pipe'],
        });
        let stderr = '';
        child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(ran).toEqual({
        code: 1,
        stderr:
          'error: the output could not be written (ENOSPC: no space left on device, write): what stdout got is incomplete\n  hint: free space where stdout goes (or write it elsewhere), then run the command again\n',
      });
    } finally {
      await full.close();
    }
  });

  it('exits 1 when stdout is a file past the size this process may write (ulimit -f), not 0 with the file cut short', async () => {
    // Node's stream for a file wrote once and dropped what a short write left: the backup held 1 KiB, exit 0.
    const cwd = await folder();
    const backendFile = path.join(cwd, 'backend.json');
    const resources = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `project.p${i}`,
        { kind: 'Project' as const, id: i + 1, name: `p${i}`, definition: { name: `p${i}` } },
      ]),
    );
    await writeFile(backendFile, JSON.stringify({ ...stateOf(resources), lineage: 'L', serial: 4 }));
    const backup = path.join(cwd, 'backup.json');
    const ran = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        'bash',
        [
          '-c',
          'ulimit -f 1; exec "$0" "$@" > "$BACKUP"',
          process.execPath,
          BUILT_CLI,
          'state',
          'pull',
          '--state',
          backendFile,
        ],
        {
          cwd,
          env: { PATH: process.env.PATH ?? '', CI: 'true', NO_COLOR: '1', BACKUP: backup },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(ran).toEqual({
      code: 1,
      stderr:
        'error: the output could not be written (EFBIG: file too large, write): what stdout got is incomplete\n  hint: free space where stdout goes (or write it elsewhere), then run the command again\n',
    });
    expect((await readFile(backup)).length).toBe(1024);
  });
});

describe('state push of a file the backends would not read', () => {
  const project = { kind: 'Project', id: 7, name: 'a', definition: {} };
  it.each([
    [
      'no lineage',
      { format_version: 1, serial: 3, resources: { 'project.a': project } },
      'it has no lineage',
    ],
    [
      'resources null',
      { format_version: 1, serial: 9, lineage: 'x', resources: null },
      'resources is null, not an object of addresses',
    ],
    [
      'resources an array',
      { format_version: 1, serial: 9, lineage: 'x', resources: [project] },
      'resources is [{"kind":"Project","id":7,"name":"a",..., not an object of addresses',
    ],
    [
      'a resource that is not one',
      { format_version: 1, serial: 9, lineage: 'x', resources: { 'project.a': null } },
      'resources.project.a is null, not a Parser or a Project',
    ],
    [
      'a serial past what a next write can hold',
      { format_version: 1, serial: 2_147_483_647, lineage: 'x', resources: {} },
      'serial is 2147483647, not a whole number from 0 to 2147483646',
    ],
    [
      'a serial no number holds exactly',
      { format_version: 1, serial: 1e300, lineage: 'x', resources: {} },
      'serial is 1e+300, not a whole number from 0 to 2147483646',
    ],
    [
      'intents an array',
      { format_version: 1, serial: 9, lineage: 'x', resources: {}, intents: [] },
      'intents is [], not an object of addresses',
    ],
    [
      'deleting an array',
      { format_version: 1, serial: 9, lineage: 'x', resources: {}, deleting: [] },
      'deleting is [], not an object of parser ids',
    ],
    [
      'a parser being deleted without its time',
      { format_version: 1, serial: 9, lineage: 'x', resources: {}, deleting: { 'p-1': { name: 'books' } } },
      'deleting.p-1 is {"name":"books"}, not a parser being deleted ({"name", "since"})',
    ],
  ])(
    'refuses a file with %s before taking the lock, naming what is wrong; nothing is written',
    async (_, pushed, problem) => {
      const cwd = await folder();
      const backendFile = path.join(cwd, 'backend.json');
      await writeFile(path.join(cwd, 'pushed.json'), JSON.stringify(pushed));
      // A run holding the lock: the file is refused before the lock is asked for, so not with state.locked.
      const lock = await new FileStateBackend(backendFile).lock('apply');
      const refused = await runScrapeform(['state', 'push', 'pushed.json', '--state', backendFile], { cwd });
      expect(refused).toEqual({
        code: 1,
        stdout: '',
        stderr: `error: pushed.json is not a scrapeform state (${problem}): nothing was pushed\n  hint: push a file written by state pull, or a .scrapeform/state.json\n`,
      });
      await lock.release();
      expect((await readdir(cwd)).sort()).toEqual(['pushed.json']);
      // And with the lock free, the same.
      expect(await runScrapeform(['state', 'push', 'pushed.json', '--state', backendFile], { cwd })).toEqual(
        refused,
      );
      expect((await readdir(cwd)).sort()).toEqual(['pushed.json']);
    },
  );

  it('a file with an empty lineage keeps the backend’s lineage, and says so', async () => {
    const cwd = await folder();
    const backendFile = path.join(cwd, 'backend.json');
    await writeFile(backendFile, JSON.stringify({ ...stateOf({}), lineage: 'BACKEND', serial: 4 }));
    await writeFile(
      path.join(cwd, 'pushed.json'),
      JSON.stringify({
        ...stateOf({ 'project.a': { kind: 'Project', id: 7, name: 'a', definition: {} } }),
        lineage: '',
        serial: 6,
      }),
    );
    expect(await runScrapeform(['state', 'push', 'pushed.json', '--state', backendFile], { cwd })).toEqual({
      code: 0,
      stdout: `Pushed 1 object to ${backendFile} (serial 7).\n`,
      stderr: 'pushed.json has no lineage: the backend keeps its own (BACKEND)\n',
    });
    const written = JSON.parse(await readFile(backendFile, 'utf8')) as State;
    expect([written.lineage, Object.keys(written.resources)]).toEqual(['BACKEND', ['project.a']]);
    // What was pushed is read back by every command.
    const pulled = await runScrapeform(['state', 'pull', '--state', backendFile], { cwd });
    expect([pulled.code, (JSON.parse(pulled.stdout) as State).lineage]).toEqual([0, 'BACKEND']);
    const output = await runScrapeform(['output', '--state', backendFile], { cwd });
    expect([output.code, output.stderr]).toEqual([0, '']);
  });
});

describe('--var-file on the commands that read state without a key', () => {
  it('output, force-unlock, state pull and state push read an environment whose variable comes from a var file', async () => {
    const cwd = await folder();
    await writeFile(
      path.join(cwd, 'scrapeform.yaml'),
      'kind: Config\nvariables:\n  region: { type: string }\nenvironments:\n  staging:\n    state: .scrapeform/staging.json\n',
    );
    await writeFile(path.join(cwd, 'vars.yaml'), 'region: eu\n');
    await mkdir(path.join(cwd, '.scrapeform'));
    await writeFile(path.join(cwd, 'pushed.json'), JSON.stringify(stateOf({})));

    const withoutValue = await runScrapeform(['force-unlock', '--env', 'staging'], { cwd });
    expect(withoutValue.code).toBe(1);
    expect(withoutValue.stderr).toContain('variable "region" has no value in environment "staging"');

    const flags = ['--env', 'staging', '--var-file', 'vars.yaml'];
    expect(await runScrapeform(['state', 'push', 'pushed.json', ...flags], { cwd })).toEqual({
      code: 0,
      stdout: 'Pushed 0 objects to .scrapeform/staging.json (serial 2).\n',
      stderr: '',
    });
    expect(await runScrapeform(['output', ...flags], { cwd })).toEqual({
      code: 0,
      stdout: 'Nothing is managed yet.\n',
      stderr: '',
    });
    const pulled = await runScrapeform(['state', 'pull', ...flags], { cwd });
    expect((JSON.parse(pulled.stdout) as State).serial).toBe(2);
    expect(await runScrapeform(['force-unlock', ...flags], { cwd })).toEqual({
      code: 0,
      stdout: '.scrapeform/staging.json was not locked.\n',
      stderr: '',
    });
  });
});
