import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { BUILT_CLI, emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import type { ChildRun } from '../helpers/child-cli.js';
import type { State } from '../../src/state/model.js';
import { heldByLiveProcess } from '../helpers/state.js';
import { until } from '../helpers/until.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = BUILT_CLI;
const KEY = 'crash-test-key';

let emulator: RunningEmulator;
let dir: string;

function env(): NodeJS.ProcessEnv {
  return emulatorEnv(emulator.url, KEY);
}

function run(args: string[]): Promise<ChildRun> {
  return runBuiltCli(args, { cwd: dir, env: env() });
}

/**
 * Starts the CLI and kills it with SIGKILL as soon as `when` holds: no cleanup, no state save, lock left behind.
 * A run that ends on its own first (its moment missed, say on a stalled machine) fails the test: no kill was tested.
 */
async function killWhen(args: string[], what: string, when: () => Promise<boolean>): Promise<void> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: env(), stdio: 'ignore' });
  const exited = new Promise((resolve) => child.on('close', resolve));
  try {
    await until(what, async () => child.exitCode !== null || (await when()));
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
  expect(child.exitCode, `the CLI ended on its own before the moment to kill it came (${what})`).toBeNull();
}

/** `apply --auto-approve` as a child process: its stderr so far, and its exit code once it ends. */
function applyInBackground(extra: string[] = []): {
  child: ChildProcess;
  stderr: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(process.execPath, [BIN, 'apply', '--auto-approve', ...extra], { cwd: dir, env: env() });
  // A test that fails (a wait that timed out) leaves no run behind, waiting out its lock or its generation.
  onTestFinished(() => void child.kill('SIGKILL'));
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, stderr: () => stderr, exited };
}

async function stateText(): Promise<string> {
  return readFile(path.join(dir, '.scrapeform/state.json'), 'utf8').catch(() => '');
}

/** The quickstart applied, then its parser's manifest changed so that the next apply replaces it; the parser's id. */
async function appliedThenReplacing(): Promise<string> {
  expect((await run(['apply', '--auto-approve'])).code).toBe(0);
  const oldId = [...emulator.parsers.parsers.keys()][0] ?? '';
  const file = path.join(dir, 'books-product.yaml');
  await writeFile(
    file,
    (await readFile(file, 'utf8'))
      .replace('  - https://books.example/catalogue/tipping-the-velvet_999/index.html\n', '')
      .replace('lifecycle:\n  prevent_destroy: true\n', ''),
  );
  return oldId;
}

async function expectConverged(): Promise<void> {
  const applied = await run(['apply', '--auto-approve', '--allow-destroy']);
  expect(applied.code, applied.stderr).toBe(0);
  expect(applied.stderr).toMatch(/took over the lock of .* that process no longer runs|^/);
  const plan = await run(['plan', '--detailed-exitcode']);
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  const names = [...emulator.parsers.parsers.values()].map((p) => p.name);
  expect(names).toEqual(['books-product']);
  expect([...emulator.projects.projects.values()].map((p) => p.name)).toEqual(['nightly-book-pages']);
}

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
});
afterAll(async () => emulator.close());
beforeEach(async () => {
  emulator.reset();
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-crash-'));
  await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
});

describe('a run killed at any moment is recovered by the next apply, with no duplicates', () => {
  it('killed between the create and the state write (the POST landed, its answer never came)', async () => {
    emulator.setFaults({ responseDelayMs: 5000, responseDelayMethods: ['POST'] });
    // Killed once both creates landed: killed as soon as the parser's did, the project's POST, marked sent a moment
    // before (sent-journal.ts), might not have gone out, and would rightly need --recreate (docs/concepts.md).
    await killWhen(
      ['apply', '--auto-approve'],
      'the parser and the project were created',
      async () => emulator.parsers.parsers.size > 0 && emulator.projects.projects.size > 0,
    );
    // What the POST was about to send is in state (its intent), the answer is not.
    const killed = JSON.parse(await stateText()) as State;
    expect(killed.resources['parser.books-product']).toBeUndefined();
    expect(killed.intents?.['parser.books-product']).toMatchObject({ kind: 'Parser', name: 'books-product' });
    emulator.setFaults({ responseDelayMs: 0 });
    await emulator.idle();
    // The parser that landed is ours with the definition sent: not an adoption of unknown descriptions.
    const plan = await run(['plan']);
    expect(plan.stdout).toContain('parser.books-product: recovered parser');
    expect(plan.stdout).not.toContain('adopt');
    expect(plan.stdout).not.toContain('never seen');
    await expectConverged();
    const recorded = (JSON.parse(await stateText()) as State).resources['parser.books-product'];
    expect(recorded).toMatchObject({ descriptionsKnown: true, version: 0 });
    expect(recorded?.kind === 'Parser' ? recorded.definition?.fields.length : 0).toBe(6);
    const again = await run(['plan']);
    expect(again.stdout + again.stderr).not.toContain('never seen');
  }, 60_000);

  it('a replace killed after its POST acted continues with the parser that landed: no orphan, none hidden', async () => {
    const oldId = await appliedThenReplacing();
    emulator.setFaults({ responseDelayMs: 5000, responseDelayMethods: ['POST'] });
    await killWhen(
      ['apply', '--auto-approve', '--allow-destroy'],
      'the new parser of the replace was created',
      async () => emulator.parsers.parsers.size > 1,
    );
    emulator.setFaults({ responseDelayMs: 0 });
    await emulator.idle();
    const newId = [...emulator.parsers.parsers.keys()].find((id) => id !== oldId) ?? '';
    const plan = await run(['plan', '--show-unmanaged']);
    expect(plan.stdout).toContain(`finishing an interrupted replace: the new parser ${newId} is FINISHED`);
    // Both parsers of that name are accounted for: the new one recovered, the old one being replaced.
    expect(plan.stderr).toContain('No unmanaged objects.');
    await expectConverged();
    // The one that landed replaced the old one: no third parser, none left behind.
    expect([...emulator.parsers.parsers.keys()]).toEqual([newId]);
  }, 60_000);

  it('a parser sharing a managed parser name is shown as drift and as unmanaged, never hidden', async () => {
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    // Made outside scrapeform (or by a run from before intents were recorded): same name, not in state.
    const response = await fetch(`${emulator.url}/parsers`, {
      method: 'POST',
      body: JSON.stringify({
        api_key: KEY,
        name: 'books-product',
        urls: ['https://books.example/catalogue/a-light-in-the-attic_1000/index.html'],
        fields: [{ name: 'title', description: 'Title' }],
      }),
    });
    const orphan = (await response.json()) as { id: string };
    await emulator.idle();
    const plan = await run(['plan', '--show-unmanaged']);
    expect(plan.stdout).toContain(`live parser ${orphan.id} ("books-product"`);
    expect(plan.stderr).toContain(`parser "books-product" (${orphan.id}`);
  });

  it('killed while waiting for a generation after a PATCH', async () => {
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const file = path.join(dir, 'books-product.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace('Stars from 1 to 5', 'Stars from one to five'),
    );
    emulator.setFaults({ generationDelayMs: 600_000 });
    await killWhen(['apply', '--auto-approve'], 'state records a pending generation', async () =>
      (await stateText()).includes('"pending"'),
    );
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await emulator.idle();
    await expectConverged();
  });

  it('a PATCH whose answer was lost (it acted: a new version) is taken as ours: no second PATCH, no second generation', async () => {
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const file = path.join(dir, 'books-product.yaml');
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace(
        '  availability:\n',
        '  upc:\n    description: Universal product code from the product information table\n  availability:\n',
      ),
    );
    const credits = (): number => emulator.accounts.list().find((a) => a.key === KEY)?.credits ?? NaN;
    const patches = (): number => emulator.requestLog.filter((e) => e.method === 'PATCH').length;
    const before = credits();
    // The service acts, then holds its answer past the client's timeout.
    emulator.setFaults({ responseDelayMs: 1500, responseDelayMethods: ['PATCH'] });
    const lost = await run(['apply', '--auto-approve', '--timeout', '300ms']);
    expect(lost.code).toBe(1);
    emulator.setFaults({ responseDelayMs: 0 });
    // The emulator logs the PATCH when its held answer goes out.
    await until('the held answer to the PATCH went out', () => patches() > 0);
    await emulator.idle();
    expect((JSON.parse(await stateText()) as State).resources['parser.books-product']).toMatchObject({
      version: 0,
      patching: { from: 0 },
    });
    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.code, plan.stdout).toBe(0);
    expect(plan.stdout).toContain(
      "parser.books-product: version 1 was made by an apply whose PATCH got no answer; it is taken as that PATCH's, with the definition sent (its fields are the ones sent; not a change made outside scrapeform)",
    );
    expect(plan.stdout).not.toContain('Drift');
    await expectConverged();
    expect(patches()).toBe(1);
    expect(before - credits()).toBe(30_000);
    expect((JSON.parse(await stateText()) as State).resources['parser.books-product']).toMatchObject({
      version: 1,
    });
  });

  it('a swap killed between its two PATCHes (the first acted, its answer lost) is finished by renames, free', async () => {
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const file = path.join(dir, 'books-product.yaml');
    // title and availability trade names (and definitions stay with the data): a swap through temporary names.
    await writeFile(
      file,
      (await readFile(file, 'utf8'))
        .replace(
          '  title:\n    description: Book title from the main heading of the product page\n    type: string\n    selector: h1\n',
          '  availability:\n    description: Book title from the main heading of the product page\n    type: string\n    selector: h1\n    renamed_from: title\n',
        )
        .replace(
          '  availability:\n    description: Stock availability text, such as "In stock (22 available)"\n',
          '  title:\n    description: Stock availability text, such as "In stock (22 available)"\n    renamed_from: availability\n',
        )
        .replace('result: { title: A Light in the Attic', 'result: { availability: A Light in the Attic'),
    );
    const planned = JSON.parse((await run(['plan', '--json'])).stdout) as {
      summary: { regenerations: number };
    };
    expect(planned.summary.regenerations).toBe(0);
    const parser = [...emulator.parsers.parsers.values()][0];
    const latestFields = (): string[] => parser?.versions.at(-1)?.fields.map((f) => f.name) ?? [];
    emulator.setFaults({ responseDelayMs: 5000, responseDelayMethods: ['PATCH'] });
    await killWhen(
      ['apply', '--auto-approve'],
      'the first PATCH of the swap gave temporary names',
      async () => latestFields().some((n) => n.endsWith('__scrapeform_tmp')),
    );
    emulator.setFaults({ responseDelayMs: 0 });
    const credits = emulator.accounts.list()[0]?.credits;
    const plan = await run(['plan', '--json']);
    const halfway = JSON.parse(plan.stdout) as {
      summary: { regenerations: number };
      drift: unknown[];
      warnings: string[];
    };
    expect(halfway.summary.regenerations).toBe(0);
    expect(halfway.drift).toEqual([]);
    // The first PATCH's intent says the version it made is ours, temporary names and all: the renames are finished.
    expect(halfway.warnings.join('\n')).toContain(
      'parser.books-product: version 1 was made by an apply whose PATCH got no answer',
    );
    await expectConverged();
    expect([...latestFields()].sort()).toEqual([
      'availability',
      'price',
      'reviews',
      'reviews.author',
      'reviews.rating',
      'title',
    ]);
    // Only the expect check's parse was charged: no generation (30,000 credits) since the kill.
    expect((credits ?? 0) - (emulator.accounts.list()[0]?.credits ?? 0)).toBeLessThan(30_000);
  }, 60_000);

  it('killed in the middle of a replace (the new parser generating, the old one not deleted yet)', async () => {
    const oldId = await appliedThenReplacing();
    emulator.setFaults({ generationDelayMs: 600_000 });
    await killWhen(
      ['apply', '--auto-approve', '--allow-destroy'],
      'state records a replace under way',
      async () => (await stateText()).includes('"replacing"'),
    );
    expect(emulator.parsers.parsers.size).toBe(2);
    // While the new one generates, plan waits rather than making a third parser.
    const waiting = await run(['plan']);
    expect(waiting.stdout).toContain('a replace is under way');
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await emulator.idle();
    await expectConverged();
    expect(emulator.parsers.parsers.has(oldId ?? '')).toBe(false);
  });

  it('a replace killed while its new parser generated, which then FAILED, is retried without orphaning the original', async () => {
    const oldId = await appliedThenReplacing();
    emulator.setFaults({ generationDelayMs: 600_000, failGenerations: 1 });
    await killWhen(
      ['apply', '--auto-approve', '--allow-destroy'],
      'state records a replace under way',
      async () => (await stateText()).includes('"replacing"'),
    );
    // The new parser's generation FAILS once the run is gone.
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await emulator.idle();
    const failedId = [...emulator.parsers.parsers.keys()].find((id) => id !== oldId) ?? '';
    const plan = await run(['plan']);
    expect(plan.stdout).toContain(`DELETE /parsers/${oldId}`);
    expect(plan.stdout).toContain(`DELETE /parsers/${failedId}`);
    await expectConverged();
    // One parser left: the new one. Neither the original nor the failed one is left behind.
    expect(emulator.parsers.parsers.has(oldId)).toBe(false);
    expect(emulator.parsers.parsers.has(failedId)).toBe(false);
  });

  it('a replace killed mid-generation, its new parser deleted by hand, its manifest deleted: the original goes too', async () => {
    const oldId = await appliedThenReplacing();
    emulator.setFaults({ generationDelayMs: 600_000 });
    await killWhen(
      ['apply', '--auto-approve', '--allow-destroy'],
      'state records a replace under way',
      async () => (await stateText()).includes('"replacing"'),
    );
    emulator.setFaults({ generationDelayMs: null });
    const newId = [...emulator.parsers.parsers.keys()].find((id) => id !== oldId) ?? '';
    emulator.parsers.parsers.delete(newId);
    await rm(path.join(dir, 'books-product.yaml'));
    const plan = await run(['plan']);
    expect(plan.stdout).toContain(`DELETE /parsers/${oldId}`);
    expect(plan.stdout).toContain(`the new parser of an interrupted replace, was deleted outside scrapeform`);
    const applied = await run(['apply', '--auto-approve', '--allow-destroy']);
    expect(applied.code, applied.stderr).toBe(0);
    expect((await run(['plan', '--detailed-exitcode'])).code).toBe(0);
    // Nothing left live and unmanaged.
    expect(emulator.parsers.parsers.size).toBe(0);
  });

  it('killed while creating again a project archived by hand: recovered, not created a second time', async () => {
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    // The next apply reads it: seen since its create, so once archived it is gone (one created and not seen since
    // would need --recreate: F3).
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    const [archived] = [...emulator.projects.projects.keys()];
    emulator.projects.projects.delete(archived ?? 0);
    emulator.setFaults({ responseDelayMs: 5000, responseDelayMethods: ['POST'] });
    await killWhen(
      ['apply', '--auto-approve'],
      'the project was created',
      async () => emulator.projects.projects.size > 0,
    );
    emulator.setFaults({ responseDelayMs: 0 });
    await emulator.idle();
    const plan = await run(['plan']);
    expect(plan.stdout).toContain('recovered project');
    await expectConverged();
  }, 60_000);

  it('killed right after a project create landed: recovered with the definition sent, not adopted', async () => {
    emulator.setFaults({ responseDelayMs: 5000, responseDelayMethods: ['POST'] });
    // Killed once both creates landed (the parser's POST goes out beside the project's). Killed as soon as the
    // project's landed, the parser's POST, marked sent a moment before (sent-journal.ts), might not have gone out:
    // then its create rightly asks for --recreate (docs/concepts.md, Crash safety), and this test does not converge.
    await killWhen(
      ['apply', '--auto-approve'],
      'the project and the parser were created',
      async () => emulator.projects.projects.size > 0 && emulator.parsers.parsers.size > 0,
    );
    emulator.setFaults({ responseDelayMs: 0 });
    await emulator.idle();
    const plan = await run(['plan', '--json']);
    const parsed = JSON.parse(plan.stdout) as { warnings: string[]; summary: { adopt: number } };
    expect(parsed.summary.adopt).toBe(0);
    expect(parsed.warnings.some((w) => w.startsWith('project.nightly-book-pages: recovered project'))).toBe(
      true,
    );
    await expectConverged();
  }, 60_000);
});

describe('interruptions and concurrent runs', () => {
  it('Ctrl-C: no new calls, calls in flight finish, state saved, lock released, exit 130', async () => {
    emulator.setFaults({ generationDelayMs: 600_000 });
    const { child, stderr, exited } = applyInBackground();
    await until('state records a pending generation', async () => (await stateText()).includes('"pending"'));
    child.kill('SIGINT');
    // The wait for generation is not a call: the run stops polling once interrupted... after the next poll.
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    const code = await exited;
    expect(stderr()).toContain(
      'Interrupted: no new calls; calls in flight finish, then state is saved (again to exit at once).',
    );
    expect(code).toBe(130);
    expect(
      await readFile(path.join(dir, '.scrapeform/state.json.lock'), 'utf8').catch(() => 'released'),
    ).toBe('released');
    expect(await stateText()).toContain('books-product');
    await emulator.idle();
    await expectConverged();
  });

  it('a second SIGTERM while a call in flight hangs exits at once (130); the next apply converges', async () => {
    // The service acts and holds its answer for two minutes: the graceful stop would wait for it.
    emulator.setFaults({ responseDelayMs: 120_000, responseDelayMethods: ['POST'] });
    const { child, stderr, exited } = applyInBackground();
    await until('a create landed', () => emulator.parsers.parsers.size + emulator.projects.projects.size > 0);
    child.kill('SIGTERM');
    await until('apply said it was interrupted', () => stderr().includes('Interrupted: no new calls'));
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(stderr()).toContain('Interrupted again: exiting now.');
    emulator.setFaults({ responseDelayMs: 0 });
    await emulator.idle();
    await expectConverged();
  }, 30_000);

  it('SIGTERM while apply reads a service that stopped answering: exit 130 at once, nothing sent, the lock released', async () => {
    emulator.setFaults({ responseDelayMs: 120_000, responseDelayMethods: ['GET'] });
    const { child, stderr, exited } = applyInBackground();
    const lockFile = path.join(dir, '.scrapeform/state.json.lock');
    await until(
      'apply took the state lock',
      async () => (await readFile(lockFile, 'utf8').catch(() => '')) !== '',
    );
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    expect(await exited).toBe(130);
    expect(stderr()).toContain('error: interrupted while reading the services; nothing was sent');
    emulator.setFaults({ responseDelayMs: 0 });
    // Nothing recorded, so nothing sent: every create's intent is written before its POST. (Not read from the
    // emulator's log: an answer an earlier test's killed run left held is logged whenever it goes out.)
    expect(await stateText()).toBe('');
    expect(await readFile(lockFile, 'utf8').catch(() => 'released')).toBe('released');
  }, 30_000);

  it('Ctrl-C while waiting for the lock (--lock-timeout): exit 130 at once, nothing sent, the lock left to its holder', async () => {
    // Held by a live process of this machine (this test's own), so it is not taken over as stale.
    const lockFile = path.join(dir, '.scrapeform/state.json.lock');
    const held = heldByLiveProcess();
    await mkdir(path.dirname(lockFile), { recursive: true });
    await writeFile(lockFile, JSON.stringify(held));
    const { child, stderr, exited } = applyInBackground(['--lock-timeout', '5m']);
    // Within this test's own limit (20 s), so that a failure names what never came.
    await until(
      'apply said it waits for the lock held by ci@elsewhere',
      () => stderr().includes('waiting for the state lock held by ci@elsewhere'),
      { withinMs: 10_000 },
    );
    child.kill('SIGINT');
    // Before the fix the run waited out the five minutes: this test's own timeout fails it.
    expect(await exited).toBe(130);
    expect(stderr()).toContain('error: interrupted while waiting for the state lock: nothing was done');
    expect(JSON.parse(await readFile(lockFile, 'utf8'))).toEqual(held);
    // Nothing was recorded, so nothing was sent: this apply would only create, and every create's intent is written
    // before its POST. (Not read from the emulator's log: an answer an earlier test's killed run left held is logged
    // whenever it goes out.)
    expect(await stateText()).toBe('');
    await rm(lockFile);
  }, 20_000);

  it('a second apply while the first runs fails on the lock, naming the holder', async () => {
    emulator.setFaults({ generationDelayMs: 600_000 });
    const first = spawn(process.execPath, [BIN, 'apply', '--auto-approve'], {
      cwd: dir,
      env: env(),
      stdio: 'ignore',
    });
    const firstDone = new Promise((resolve) => first.on('close', resolve));
    onTestFinished(() => void first.kill('SIGKILL'));
    await until('state records a pending generation', async () => (await stateText()).includes('"pending"'));
    const second = await run(['apply', '--auto-approve']);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(
      /error: the state \.scrapeform\/state\.json is locked by .+ \(pid \d+, apply, since .+\)/,
    );
    emulator.setFaults({ generationDelayMs: null });
    emulator.clock.advance(600_000);
    await firstDone;
    const plan = await run(['plan', '--detailed-exitcode']);
    expect(plan.code).toBe(0);
  });
});
