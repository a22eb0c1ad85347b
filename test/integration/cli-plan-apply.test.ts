import { cp, mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { digestOf } from '../../src/plan/save-plan.js';
import type { RunningEmulator } from '../../src/emulator/server.js';
import { emulatorEnv, runBuiltCli } from '../helpers/child-cli.js';
import type { ChildRun } from '../helpers/child-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** The key, chosen so that any leak into output, state or plan files is unmistakable. */
const KEY = 'sk_SENTINEL_cli_9f8e7d';

let emulator: RunningEmulator;
let dir: string;
const outputs: string[] = [];

/** Runs the built CLI as a child process, as CI and users do: no terminal, CI set. */
async function scrapeform(args: string[], env: Record<string, string> = {}): Promise<ChildRun> {
  const run = await runBuiltCli(args, { cwd: dir, env: emulatorEnv(emulator.url, KEY, env) });
  outputs.push(run.stdout, run.stderr);
  return run;
}

function sentCalls(): string[] {
  return emulator.requestLog
    .filter((e) => e.method !== 'GET')
    .map((e) => `${e.method} ${e.path.split('?')[0] ?? ''}`);
}

beforeAll(async () => {
  emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 30 });
});
afterAll(async () => {
  await emulator.close();
  // The key must appear nowhere: stdout, stderr of every run above.
  expect(outputs.join('\n')).not.toContain(KEY);
});
beforeEach(async () => {
  emulator.reset();
  dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-cli-'));
  await cp(path.join(ROOT, 'examples/quickstart'), dir, { recursive: true });
});

describe('scrapeform plan and apply (CLI, child process, against the emulator)', () => {
  it('plan, apply, plan: exit codes 2, 0, 0 with --detailed-exitcode', async () => {
    const first = await scrapeform(['plan', '--detailed-exitcode']);
    expect(first.code).toBe(2);
    expect(first.stdout).toContain(
      'Plan: 2 to create (1 regeneration, ~30,000 credits; project runs cost credits per page).',
    );
    const applied = await scrapeform(['apply', '--auto-approve']);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Apply complete: 2 applied, 0 failed.');
    expect(applied.stderr).toContain('parser.books-product  FINISHED  version 0');
    expect(applied.stdout).toContain(
      'Expect checks:\n✓ parser.books-product https://books.example/catalogue/a-light-in-the-attic_1000/index.html (version 0)\n1 check passed',
    );
    const second = await scrapeform(['plan', '--detailed-exitcode']);
    expect([second.code, second.stdout.trim()]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
  });

  it('a failing expect check after apply makes the exit code 1 and shows the difference, rolling nothing back', async () => {
    const file = path.join(dir, 'books-product.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('price: 51.77', 'price: 99.99'));
    const run = await scrapeform(['apply', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('Apply complete: 2 applied, 0 failed.');
    expect(run.stdout).toContain('    price: expected 99.99, got 51.77\n1 of 1 checks failed');
    expect((await scrapeform(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('a manifest value that holds the API key is refused where it is, before anything is sent or written', async () => {
    await writeFile(
      path.join(dir, 'keyed.yaml'),
      'kind: Project\nname: keyed\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/1.html] }\nwebhookOutput:\n  url: https://hooks.example/in?token=${SCRAPERAPI_API_KEY}\n',
    );
    for (const command of ['plan', 'apply']) {
      const run = await scrapeform([command, '--auto-approve'].slice(0, command === 'plan' ? 1 : 2));
      expect(run.code).toBe(1);
      // Refused where manifests are read (validate and render too), at the reference.
      expect(run.stderr).toContain(
        'keyed.yaml:6:8 webhookOutput.url: ${SCRAPERAPI_API_KEY} holds an API key: scrapeform writes declared values to state, saved plans and its output, where a key never goes',
      );
      expect(run.stderr).toContain('error: the manifests have errors; nothing was sent');
    }
    expect(emulator.requestLog).toEqual([]);
    await expect(readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')).rejects.toThrow('ENOENT');
  });

  it('without a terminal, apply needs --auto-approve: exit 3 and nothing sent', async () => {
    const run = await scrapeform(['apply']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('error: not applied: approval needed; nothing was sent');
    expect(run.stderr).toContain('hint: without a terminal (or with CI set) pass --auto-approve');
    expect(sentCalls()).toEqual([]);
  });

  it('destructive changes need --allow-destroy: exit 3 and nothing sent, then applied with it', async () => {
    await scrapeform(['apply', '--auto-approve']);
    await rm(path.join(dir, 'nightly-book-pages.yaml'));
    const before = sentCalls().length;
    const refused = await scrapeform(['apply', '--auto-approve']);
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain(
      'error: not applied: the plan has destructive changes (project.nightly-book-pages (archive)); nothing was sent',
    );
    expect(sentCalls().length).toBe(before);
    const allowed = await scrapeform(['apply', '--auto-approve', '--allow-destroy']);
    expect(allowed.code).toBe(0);
    expect(sentCalls().slice(before)).toEqual(['DELETE /api/projects/1']);
  });

  it('adopting a live object found by name needs consent: exit 3 and nothing sent, then --allow-adopt or adopt: true', async () => {
    await scrapeform(['apply', '--auto-approve']);
    // A second state (another directory, another workspace) sees the same names live and would take them over.
    const before = sentCalls().length;
    const refused = await scrapeform(['apply', '--auto-approve', '--allow-destroy', '--state', 'other.json']);
    expect(refused.code).toBe(3);
    // The plan shown before the refusal says what would be taken over.
    expect(refused.stdout).toContain('Plan: 2 to adopt (no regeneration, no credits).');
    expect(refused.stdout).toContain(
      '    ! adopts a live object no state manages: needs --allow-adopt, adopt: true in its manifest, or a confirmation',
    );
    expect(refused.stderr).toContain(
      'error: not applied: the plan has adoptions of live objects no state manages (parser.books-product (adopt), project.nightly-book-pages (adopt)); nothing was sent',
    );
    expect(refused.stderr).toContain(
      'hint: pass --allow-adopt (or set adopt: true in the manifest) to take them over, after checking no other state manages them',
    );
    expect(sentCalls().length).toBe(before);
    const allowed = await scrapeform(['apply', '--allow-adopt', '--state', 'other.json']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain('Apply complete: 2 applied, 0 failed.');

    // adopt: true in the manifest is the consent given in review: a third state adopts the parser without the flag.
    const manifest = path.join(dir, 'books-product.yaml');
    await writeFile(manifest, `${await readFile(manifest, 'utf8')}adopt: true\n`);
    await rm(path.join(dir, 'nightly-book-pages.yaml'));
    const consented = await scrapeform(['apply', '--auto-approve', '--state', 'third.json']);
    expect(consented.code).toBe(0);
    expect(sentCalls().length).toBe(before);
    // Four runs of the CLI: more time than the default on a loaded machine.
  }, 90_000);

  it('plan --json prints only the public plan format on stdout', async () => {
    const run = await scrapeform(['plan', '--json']);
    const plan = JSON.parse(run.stdout) as {
      format_version: number;
      status: string;
      summary: Record<string, number>;
      resource_changes: { requests: unknown[] }[];
    };
    expect([plan.format_version, plan.status]).toEqual([1, 'changes']);
    expect(plan.summary).toEqual({
      create: 2,
      update: 0,
      replace: 0,
      delete: 0,
      archive: 0,
      adopt: 0,
      regenerations: 1,
      estimated_credits: 30_000,
    });
    expect(plan.resource_changes[0]?.requests[0]).toMatchObject({ method: 'POST', path: '/parsers' });
  });

  it('plan --markdown fits a pull-request comment', async () => {
    const run = await scrapeform(['plan', '--markdown']);
    expect(
      run.stdout.startsWith(
        '### scrapeform plan\n\n**Plan: 2 to create (1 regeneration, ~30,000 credits; project runs cost credits per page).**',
      ),
    ).toBe(true);
  });

  it('apply --plan applies a saved plan exactly, and refuses it once a live version moved', async () => {
    const saved = await scrapeform(['plan', '--out', 'plan.json']);
    expect(saved.stderr).toContain('Saved the plan to plan.json');
    const planText = await readFile(path.join(dir, 'plan.json'), 'utf8');
    expect(planText).not.toContain(KEY);
    expect((await scrapeform(['apply', '--plan', 'plan.json', '--auto-approve'])).code).toBe(0);
    // A second saved plan, then someone changes the parser outside scrapeform.
    await writeFile(
      path.join(dir, 'books-product.yaml'),
      (await readFile(path.join(dir, 'books-product.yaml'), 'utf8')).replace(
        'Stars from 1 to 5',
        'Stars from one to five',
      ),
    );
    await scrapeform(['plan', '--out', 'plan2.json']);
    const state = JSON.parse(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')) as {
      resources: Record<string, { id: string }>;
    };
    const id = state.resources['parser.books-product']?.id ?? '';
    await fetch(`${emulator.url}/parsers/${id}/0`, {
      method: 'PATCH',
      body: JSON.stringify({ api_key: KEY, remove_fields: ['availability'] }),
    });
    const refused = await scrapeform(['apply', '--plan', 'plan2.json', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: refusing the saved plan: parser.books-product moved (${id}@0 -> ${id}@1)`,
    );
  });

  it('apply --plan refuses the flags that choose what a plan holds: the saved plan is applied as reviewed', async () => {
    await scrapeform(['plan', '--out', 'plan.json']);
    const refused = await scrapeform([
      'apply',
      '--plan',
      'plan.json',
      '--exclude',
      'parser.books-product',
      '--auto-approve',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: --plan applies a saved plan exactly as reviewed: --exclude cannot change it\n  hint: plan again with --exclude and --out, then apply that file',
    );
    expect(sentCalls()).toEqual([]);
  });

  it('apply --plan refuses an edited plan file, naming the key, and sends nothing', async () => {
    await scrapeform(['plan', '--out', 'plan.json']);
    const file = path.join(dir, 'plan.json');
    const plan = JSON.parse(await readFile(file, 'utf8')) as {
      resource_changes: { requests: { body: { urls: string[] } }[] }[];
    };
    const post = plan.resource_changes[0]?.requests[0];
    if (post !== undefined) post.body.urls = ['https://elsewhere.example/'];
    await writeFile(file, JSON.stringify(plan, null, 2));
    const refused = await scrapeform(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: the saved plan plan.json was edited: resource_changes[0].requests[0] is not what scrapeform plans for the rest of resource_changes[0] (parser.books-product)',
    );
    expect(sentCalls()).toEqual([]);
  });

  it('apply --plan refuses a saved plan edited consistently (body and record alike): its digest no longer matches', async () => {
    const saved = await scrapeform(['plan', '--out', 'plan.json']);
    expect(saved.code).toBe(0);
    const file = path.join(dir, 'plan.json');
    const text = await readFile(file, 'utf8');
    expect(text.trimEnd().split('\n').at(-2)).toMatch(/^ {2}"digest": "sha256:[0-9a-f]{64}"$/);
    // The public JSON of the plan is unchanged: the file is plan --json with the digest as its last key.
    const json = await scrapeform(['plan', '--json']);
    const { digest: _digest, ...content } = JSON.parse(text) as Record<string, unknown>;
    expect(`${JSON.stringify(content, null, 2)}\n`).toBe(json.stdout);
    const plan = JSON.parse(text) as {
      resource_changes: {
        kind: string;
        requests: { body: { projectInput: { list: string[] } } }[];
        record: { definition: { projectInput: { list: string[] } } };
      }[];
    };
    const project = plan.resource_changes.find((c) => c.kind === 'Project');
    const elsewhere = ['https://attacker.example/page.html'];
    if (project?.requests[0] !== undefined) project.requests[0].body.projectInput.list = elsewhere;
    if (project !== undefined) project.record.definition.projectInput.list = elsewhere;
    await writeFile(file, JSON.stringify(plan, null, 2));
    const refused = await scrapeform(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'error: the saved plan plan.json was edited: its content does not match its digest\n',
    );
    expect(sentCalls()).toEqual([]);
  });

  // A parser update --reassert made is taken without a fresh plan's match, but only of the parser a fresh plan sees
  // at its address: one renamed in the file (its digest computed again) would PATCH the parser and record it in state
  // at an address no manifest declares, which the next plan deletes.
  it('apply --plan refuses a --reassert update moved to an address no fresh plan knows, and sends nothing', async () => {
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    const stateFile = path.join(dir, '.scrapeform/state.json');
    const before = await readFile(stateFile, 'utf8');
    const saved = await scrapeform(['plan', '--reassert', 'parser.books-product', '--out', 'plan.json']);
    expect(saved.code, saved.stderr).toBe(0);
    const file = path.join(dir, 'plan.json');
    const { digest: _digest, ...content } = JSON.parse(await readFile(file, 'utf8')) as {
      digest: string;
      resource_changes: { address: string; action: string }[];
    };
    const [update] = content.resource_changes;
    expect([update?.address, update?.action]).toEqual(['parser.books-product', 'update']);
    if (update !== undefined) update.address = 'parser.books-elsewhere';
    await writeFile(file, JSON.stringify({ ...content, digest: digestOf(JSON.stringify(content, null, 2)) }));
    emulator.requestLog.length = 0;

    const refused = await scrapeform(['apply', '--plan', 'plan.json', '--auto-approve']);
    expect(refused.stderr).toContain(
      'error: refusing the saved plan: parser.books-elsewhere: the saved plan updates it, and a fresh plan makes no change to it',
    );
    expect(refused.code).toBe(1);
    expect(sentCalls()).toEqual([]);
    expect(await readFile(stateFile, 'utf8')).toBe(before);
  });

  it('apply --json gives the calls, versions and statuses per object', async () => {
    const run = await scrapeform(['apply', '--auto-approve', '--json']);
    const result = JSON.parse(run.stdout) as {
      status: string;
      results: {
        address: string;
        ok: boolean;
        calls: { method: string }[];
        version?: number;
        status?: string;
      }[];
    };
    expect(result.status).toBe('applied');
    expect(
      result.results.map((r) => [r.address, r.ok, r.calls.map((c) => c.method), r.version, r.status]),
    ).toEqual([
      ['parser.books-product', true, ['POST'], 0, 'FINISHED'],
      ['project.nightly-book-pages', true, ['POST'], undefined, undefined],
    ]);
  });

  it('the key appears nowhere: output, state file, saved plan', async () => {
    await scrapeform(['apply', '--auto-approve']);
    await scrapeform(['plan', '--out', 'p.json', '--json']);
    expect(await readFile(path.join(dir, '.scrapeform/state.json'), 'utf8')).not.toContain(KEY);
    expect(await readFile(path.join(dir, 'p.json'), 'utf8')).not.toContain(KEY);
  });

  it('an invalid manifest: exit 1, the diagnostics, and nothing sent', async () => {
    await writeFile(path.join(dir, 'bad.yaml'), 'kind: Parser\nname: x\nurls: []\n');
    const run = await scrapeform(['apply', '--auto-approve']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('bad.yaml:3:7 urls: needs at least 1 example URL');
    expect(run.stderr).toContain('error: the manifests have errors; nothing was sent');
    expect(emulator.requestLog).toEqual([]);
  });

  it('a missing key names the three ways to give one', async () => {
    const run = await scrapeform(['plan'], { SCRAPERAPI_API_KEY: '' });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'error: no API key: SCRAPERAPI_API_KEY is not set\n  hint: set SCRAPERAPI_API_KEY, or pass --api-key-env NAME (another variable) or --api-key-file PATH\n',
    );
  });

  it('a held lock is a clear error naming the holder; force-unlock breaks it', async () => {
    await mkdir(path.join(dir, '.scrapeform'), { recursive: true });
    await writeFile(
      path.join(dir, '.scrapeform/state.json.lock'),
      JSON.stringify({
        holder: 'ci@runner-7',
        host: 'runner-7',
        pid: 4242,
        started: '2026-11-22T10:00:00.000Z',
        operation: 'apply',
      }),
    );
    const locked = await scrapeform(['apply', '--auto-approve']);
    expect(locked.code).toBe(1);
    expect(locked.stderr).toContain(
      'error: the state .scrapeform/state.json is locked by ci@runner-7 (pid 4242, apply, since 2026-11-22T10:00:00.000Z)',
    );
    const unlocked = await scrapeform(['force-unlock']);
    expect(unlocked.stdout).toBe(
      'Broke the lock of ci@runner-7 (pid 4242, apply, since 2026-11-22T10:00:00.000Z).\n',
    );
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
  });

  it('--show-unmanaged lists live objects in neither state nor manifests, and plan never touches them', async () => {
    await fetch(`${emulator.url}/parsers`, {
      method: 'POST',
      body: JSON.stringify({
        api_key: KEY,
        name: 'someone-elses',
        urls: ['https://books.example/catalogue/page-1.html'],
      }),
    });
    await scrapeform(['apply', '--auto-approve']);
    const run = await scrapeform(['plan', '--show-unmanaged', '--detailed-exitcode']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /Unmanaged \(never touched\):\n {2}parser "someone-elses" \([0-9a-f-]{36}, version 0, (GENERATING|FINISHED)\)/,
    );
  });

  it('a project edited outside scrapeform is shown as drift and put back', async () => {
    await scrapeform(['apply', '--auto-approve']);
    await fetch(`${emulator.url}/api/projects/1?api_key=${KEY}`, {
      method: 'PATCH',
      body: JSON.stringify({ output_format: 'CSV', scrapingInterval: 'weekly' }),
    });
    const plan = await scrapeform(['plan', '--json']);
    const parsed = JSON.parse(plan.stdout) as {
      drift: { address: string; message: string }[];
      resource_changes: { requests: { body: unknown }[] }[];
    };
    expect(parsed.drift).toEqual([
      {
        address: 'project.nightly-book-pages',
        kind: 'Project',
        message: 'edited outside scrapeform: scrapingInterval, output_format',
      },
    ]);
    expect(parsed.resource_changes[0]?.requests[0]?.body).toEqual({
      scrapingInterval: 'daily',
      output_format: 'JSON',
    });
    expect((await scrapeform(['apply', '--auto-approve'])).code).toBe(0);
    expect((await scrapeform(['plan', '--detailed-exitcode'])).code).toBe(0);
  });

  it('after apply --no-wait, the next apply records the version once it finished, and output shows it', async () => {
    const first = await scrapeform(['apply', '--auto-approve', '--no-wait']);
    expect(first.code).toBe(0);
    let out = JSON.parse((await scrapeform(['output', '--json'])).stdout) as {
      parsers: Record<string, { version: number | null }>;
    };
    expect(out.parsers['books-product']?.version).toBeNull();
    await emulator.idle();
    const second = await scrapeform(['apply', '--auto-approve']);
    expect([second.code, second.stdout.split('\n')[0]]).toEqual([
      0,
      'No changes. The live services match the manifests.',
    ]);
    out = JSON.parse((await scrapeform(['output', '--json'])).stdout) as {
      parsers: Record<string, { version: number | null }>;
    };
    expect(out.parsers['books-product']?.version).toBe(0);
  });

  it('state push refuses another lineage or a lower serial unless --force; state pull prints the state', async () => {
    await scrapeform(['apply', '--auto-approve']);
    const pulled = JSON.parse((await scrapeform(['state', 'pull'])).stdout) as {
      serial: number;
      lineage: string;
    };
    await writeFile(path.join(dir, 'other.json'), JSON.stringify({ ...pulled, lineage: 'another-lineage' }));
    const refused = await scrapeform(['state', 'push', 'other.json']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `error: refusing to push other.json: its lineage another-lineage differs from the backend's ${pulled.lineage}`,
    );
    const forced = await scrapeform(['state', 'push', 'other.json', '--force']);
    expect(forced.stdout).toBe(`Pushed 2 objects to .scrapeform/state.json (serial ${pulled.serial + 1}).\n`);
  });

  it('--max-regenerations refuses a plan that costs more (exit 3)', async () => {
    const run = await scrapeform(['plan', '--max-regenerations', '0']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(
      'error: the plan regenerates 1 parser (~30,000 credits), more than --max-regenerations 0',
    );
  });
});
