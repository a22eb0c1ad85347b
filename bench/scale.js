// bench scale: apply at scale and a fast start (issue 14). Every figure is a whole process (the CLI run as users
// run it, against an emulator in another process), timed from spawn to exit; CPU and peak memory are the CLI
// process's own (bench/report-usage.cjs, preloaded with --require). With BENCH_BASELINE=<folder of a built scrapeform> each row also runs
// that build in the same round, the two taking turns to go first, so both sides see the same machine load. Medians of the rounds.
// Usage: node bench/scale.js [--quick] [--only=startup,creates,updates,steady,journal]   (--quick: one round, smaller runs;
// --only: those sections alone, for working on one row; npm run bench runs them all)
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, connect } from 'node:net';
import { setTimeout as after } from 'node:timers';
import path from 'node:path';
import { bareCreateAndWait, barePosts } from './lib/bare-client.js';

const quick = process.argv.includes('--quick');
const onlyArg = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const only = onlyArg === undefined ? undefined : new Set(onlyArg.split(','));
const section = (name) => only === undefined || only.has(name);
const ROUNDS = quick ? 1 : 3;
/**
 * Rounds of the project creates: each about a second, and the row most moved by the machine's noise, so more of them,
 * and judged by the median of each round's own ratio (the CLI against the bare client process just before it).
 */
const CREATE_ROUNDS = quick ? 1 : 7;
const STARTS = quick ? 5 : 15;
const KEY = 'bench-key';
const root = path.resolve(import.meta.dirname, '..');
const usageHook = path.join(import.meta.dirname, 'report-usage.cjs');
/** The CLI's entry in a build: the CommonJS bundle, or bin.js in a build from before it (package.json's bin). */
const cliOf = (folder) => {
  const bin = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')).bin?.scrapeform;
  return path.join(folder, bin ?? 'dist/cli/bin.js');
};
const builds = [{ label: 'after', bin: cliOf(root) }];
if (process.env.BENCH_BASELINE) {
  builds.unshift({ label: 'before', bin: cliOf(process.env.BENCH_BASELINE) });
}
/**
 * Each build's code cache (dist/cli/code-cache) starts empty: an entry is made by the first run that loads its file,
 * with the functions that run compiled, and never grows after. Left as earlier runs made it, one build's main.cjs
 * entry could hold apply's functions and the other's only those of a `schema` run; emptied, both builds' entries
 * are made by the same commands in the same order (this bench's first rows), as on a fresh install.
 */
for (const build of builds) {
  rmSync(path.join(path.dirname(build.bin), 'code-cache'), { recursive: true, force: true });
}
/**
 * The builds in the order round `n` runs them: turn about, so neither always runs right after the other's heaviest
 * work (the emulator collecting what the run before it made, the machine's caches), which a fixed order charged to
 * the second build every round.
 */
const inTurn = (n) => (n % 2 === 0 ? builds : [...builds].reverse());
/** What "before" is, for the description: BENCH_BASELINE_NAME (a commit), else the folder given. */
const baselineName = process.env.BENCH_BASELINE_NAME ?? process.env.BENCH_BASELINE;
const work = await mkdtemp(path.join(tmpdir(), 'scrapeform-bench-scale-'));
const log = (text) => process.stderr.write(`${text}\n`);

/** Runs a process to its end: wall time, and the CPU and peak RSS it reported about itself. */
async function timed(args, { cwd = work, env = {} } = {}) {
  const usageFile = path.join(work, `usage-${Math.random().toString(36).slice(2)}.json`);
  const started = performance.now();
  const child = spawn(process.execPath, ['--require', usageHook, ...args], {
    cwd,
    env: { PATH: process.env.PATH, BENCH_USAGE_FILE: usageFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise((resolve) => child.on('close', resolve));
  const wallMs = performance.now() - started;
  const usage = JSON.parse(await readFile(usageFile, 'utf8').catch(() => '{}'));
  return { code, wallMs, cpuMs: usage.cpuMs, rssMb: usage.rssMb, stderr, stdout };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

// Emulators this bench started end with it, even when a row throws.
const emulators = new Set();
process.on('exit', () => {
  for (const child of emulators) child.kill();
});

/** An emulator in its own process, so its CPU is not the CLI's. */
async function startEmulator(extra = []) {
  const child = spawn(
    process.execPath,
    [cliOf(root), 'emulator', '--port', '0', '--api-key', KEY, ...extra],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  emulators.add(child);
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.on('close', () => reject(new Error(`the emulator exited: ${out}`)));
  });
  const control = async (what, method = 'GET', body) => {
    const response = await fetch(`${url}/_emulator/${what}`, {
      method,
      ...(body !== undefined
        ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }
        : {}),
    });
    return response.json();
  };
  return {
    url,
    control,
    env: { SCRAPERAPI_API_KEY: KEY, SCRAPEFORM_PARSER_URL: url, SCRAPEFORM_PIPELINE_URL: url, CI: 'true' },
    close: () => child.kill(),
  };
}

const projectYaml = (i, interval = 'hourly') =>
  `kind: Project\nname: j${i}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-1.html] }\nscrapingInterval: ${interval}\nscheduledAt: "2099-01-01T00:00:00Z"\n`;
const parserYaml = (i, revision = 0) =>
  `kind: Parser\nname: p${i}\nurls: [https://books.example/catalogue/page-1.html]\nfields:\n  heading: { description: "Page heading (revision ${revision})", selector: h1 }\n`;

async function workspace(name, files) {
  const dir = path.join(work, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(path.join(dir, file), text);
  return dir;
}

function manifests(count, make) {
  return Object.fromEntries(Array.from({ length: count }, (_, i) => [`m${i}.yaml`, make(i)]));
}

/** One apply of a fresh workspace against a reset emulator: time, CPU, RSS, and the service calls it made. */
async function applyFresh(emulator, build, name, files, args, env = {}) {
  await emulator.control('reset', 'POST');
  const dir = await workspace(name, files);
  await emulator.control('requests', 'DELETE');
  const run = await timed([build.bin, 'apply', '--auto-approve', ...args], {
    cwd: dir,
    env: { ...emulator.env, ...env },
  });
  if (run.code !== 0) throw new Error(`${build.label} apply failed: ${run.stderr.slice(-2000)}`);
  const calls = (await emulator.control('requests')).length;
  return { ...run, calls };
}

/** Whether a build's apply has --max-generating (a baseline may be older). */
async function takesMaxGenerating(build) {
  const help = await timed([build.bin, 'apply', '--help']);
  return help.stdout.includes('--max-generating');
}

const rows = [];
const verdicts = [];
const row = (measure, target, figures, ideal, met) => {
  rows.push([measure, target, figures, ideal, met === undefined ? '-' : met ? 'met' : 'NOT met']);
  log(`${measure}: ${figures} (ideal ${ideal}) ${met === undefined ? '' : met ? 'met' : 'NOT met'}`);
};
const fmt = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);
const side = (values, render) => builds.map((b) => `${b.label} ${render(values[b.label])}`).join(', ');

// 1. Start-up: `--version` and `validate` of one file against a bare `node -e 0`, interleaved.
if (section('startup')) {
  const file = path.join(await workspace('one-file', { 'a.yaml': parserYaml(0) }), 'a.yaml');
  const times = { node: [] };
  for (const b of builds) times[`${b.label} version`] = times[`${b.label} validate`] = undefined;
  for (const b of builds) {
    times[`${b.label} version`] = [];
    times[`${b.label} validate`] = [];
  }
  for (let i = 0; i < STARTS; i++) {
    times.node.push((await timed(['-e', '0'])).wallMs);
    for (const b of inTurn(i)) {
      times[`${b.label} version`].push((await timed([b.bin, '--version'])).wallMs);
      const v = await timed([b.bin, 'validate', file]);
      if (v.code !== 0) throw new Error(`validate failed: ${v.stderr}`);
      times[`${b.label} validate`].push(v.wallMs);
    }
  }
  const node = median(times.node);
  const ratio = (key) => median(times[key]) / node;
  for (const [key, measure, bound] of [
    ['version', '`scrapeform --version`', 2],
    ['validate', '`scrapeform validate` of one file', 3],
  ]) {
    row(
      measure,
      `<= ${bound}x bare node`,
      side(
        Object.fromEntries(builds.map((b) => [b.label, ratio(`${b.label} ${key}`)])),
        (r) => `${r.toFixed(1)}x`,
      ),
      `bare \`node -e 0\`: ${fmt(node)}`,
      ratio(`after ${key}`) <= bound,
    );
  }
}

// 2. Project creates: calls per create, time against the emulator's own rate, CPU growth 300 -> 1,200.
if (section('creates')) {
  const emulator = await startEmulator(['--generation-delay', '100ms', '--credits', '1000000000000']);
  const n = quick ? 500 : 1000;
  const creates = Object.fromEntries(builds.map((b) => [b.label, []]));
  const bare = [];
  const bareProcess = [];
  const cpu = Object.fromEntries(builds.map((b) => [b.label, { small: [], large: [] }]));
  // A round not counted: the emulator's code is compiled by its first requests, which every later client would
  // otherwise be compared with.
  await barePosts(emulator.url, KEY, 'projects', n, 16);
  for (let round = 0; round < CREATE_ROUNDS; round++) {
    await emulator.control('reset', 'POST');
    bare.push(await barePosts(emulator.url, KEY, 'projects', n, 16));
    await emulator.control('reset', 'POST');
    const whole = await timed([
      path.join(import.meta.dirname, 'lib', 'bare-client.js'),
      emulator.url,
      KEY,
      'projects',
      String(n),
      '16',
    ]);
    if (whole.code !== 0) throw new Error(`bare client process failed: ${whole.stderr.slice(-1500)}`);
    bareProcess.push(whole.wallMs);
    for (const b of inTurn(round)) {
      creates[b.label].push(
        await applyFresh(emulator, b, `projects-${b.label}`, manifests(n, projectYaml), [
          '--concurrency',
          '16',
        ]),
      );
      for (const [size, count] of [
        ['small', 300],
        ['large', 1200],
      ]) {
        const r = await applyFresh(emulator, b, `cpu-${b.label}`, manifests(count, projectYaml), []);
        cpu[b.label][size].push(r.cpuMs);
      }
    }
  }
  const bareMs = median(bare);
  const bareProcessMs = median(bareProcess);
  const per = (label) => median(creates[label].map((r) => r.calls / n));
  // Each round's CLI time over the bare client process of the same round: the load of that moment cancels out.
  const ratio = (label) => median(creates[label].map((r, i) => r.wallMs / bareProcess[i]));
  const growth = (label) => median(cpu[label].large) / median(cpu[label].small);
  row(
    'calls per project create',
    '<= 1.05',
    side(Object.fromEntries(builds.map((b) => [b.label, per(b.label)])), (v) => v.toFixed(2)),
    '1 (the POST)',
    per('after') <= 1.05,
  );
  row(
    `${n} project creates, concurrency 16`,
    "<= 2x the emulator's rate",
    side(Object.fromEntries(builds.map((b) => [b.label, b.label])), (label) => {
      const ms = median(creates[label].map((r) => r.wallMs));
      return `${fmt(ms)} (${ratio(label).toFixed(2)}x, the median of the rounds' ratios; ${(ms / bareMs).toFixed(1)}x the POSTs alone)`;
    }),
    `a bare client process (Node's start, then ${n} POSTs over node:http, 16 in flight): ${fmt(bareProcessMs)}; the POSTs alone, in this process: ${fmt(bareMs)}`,
    ratio('after') <= 2,
  );
  row(
    'CLI CPU, 300 to 1,200 project creates (concurrency 4)',
    '<= 4.2x (linear)',
    side(
      Object.fromEntries(builds.map((b) => [b.label, b.label])),
      (label) =>
        `${(median(cpu[label].small) / 1000).toFixed(1)} s -> ${(median(cpu[label].large) / 1000).toFixed(1)} s (${growth(label).toFixed(1)}x)`,
    ),
    '4x (the object count)',
    growth('after') <= 4.2,
  );

  // 3. Parser creates with 100 ms generations, concurrency 16 (polling every 20 ms, fit for 100 ms generations).
  const parsers = Object.fromEntries(builds.map((b) => [b.label, []]));
  const bareParsers = [];
  const bareWaits = [];
  for (let round = 0; round < ROUNDS; round++) {
    await emulator.control('reset', 'POST');
    bareParsers.push(await barePosts(emulator.url, KEY, 'parsers', n, 16));
    await emulator.control('reset', 'POST');
    bareWaits.push(await bareCreateAndWait(emulator.url, KEY, n, 16, 20));
    for (const b of inTurn(round)) {
      parsers[b.label].push(
        await applyFresh(
          emulator,
          b,
          `parsers-${b.label}`,
          manifests(n, parserYaml),
          ['--concurrency', '16'],
          {
            SCRAPEFORM_POLL_INTERVAL: '20ms',
          },
        ),
      );
    }
  }
  emulator.close();
  // Ideal: 16 generations in flight (what --concurrency 16 allowed before, and --max-generating's default
  // now), each 100 ms, nothing lost to polling or calls; or the bare POSTs, if slower.
  const idealMs = Math.max(median(bareParsers), Math.ceil(n / 16) * 100);
  const bareWaitMs = median(bareWaits);
  const perParser = (label) => median(parsers[label].map((r) => r.calls / n));
  const parserRatio = (label) => median(parsers[label].map((r) => r.wallMs)) / idealMs;
  row(
    'calls per parser create, 100 ms generations, concurrency 16',
    '<= 2',
    side(Object.fromEntries(builds.map((b) => [b.label, perParser(b.label)])), (v) => v.toFixed(2)),
    '1 (the POST) plus the polls',
    perParser('after') <= 2,
  );
  row(
    `${n} parser creates, 100 ms generations, concurrency 16`,
    '<= 1.5x ideal',
    side(
      Object.fromEntries(builds.map((b) => [b.label, median(parsers[b.label].map((r) => r.wallMs))])),
      (ms) => `${fmt(ms)} (${(ms / idealMs).toFixed(1)}x; ${(ms / bareWaitMs).toFixed(1)}x the bare client)`,
    ),
    `${fmt(idealMs)}: ${Math.ceil(n / 16)} waves of 16 generations of 100 ms (bare POSTs alone: ${fmt(median(bareParsers))}; a bare client creating and polling every 20 ms, 16 in flight: ${fmt(bareWaitMs)})`,
    parserRatio('after') <= 1.5,
  );
}

// 4. 200 parser updates, 5 s generations, concurrency 64 (--max-generating 64: the bound --concurrency was before).
if (section('updates')) {
  const n = quick ? 64 : 200;
  const emulator = await startEmulator(['--generation-delay', '0ms', '--credits', '1000000000000']);
  const results = {};
  for (const b of builds) {
    await emulator.control('faults', 'PUT', { generationDelayMs: 0 });
    await emulator.control('reset', 'POST');
    const dir = await workspace(
      `updates-${b.label}`,
      manifests(n, (i) => parserYaml(i, 0)),
    );
    const setup = await timed([b.bin, 'apply', '--auto-approve', '--concurrency', '64'], {
      cwd: dir,
      env: { ...emulator.env, SCRAPEFORM_POLL_INTERVAL: '20ms' },
    });
    if (setup.code !== 0) throw new Error(`setup failed: ${setup.stderr.slice(-2000)}`);
    for (let i = 0; i < n; i++) await writeFile(path.join(dir, `m${i}.yaml`), parserYaml(i, 1));
    await emulator.control('faults', 'PUT', { generationDelayMs: 5000 });
    // A build from before --max-generating bounded generations by --concurrency alone.
    const flags = [
      '--concurrency',
      '64',
      ...((await takesMaxGenerating(b)) ? ['--max-generating', '64'] : []),
    ];
    const run = await timed([b.bin, 'apply', '--auto-approve', ...flags], { cwd: dir, env: emulator.env });
    if (run.code !== 0) throw new Error(`${b.label} updates failed: ${run.stderr.slice(-2000)}`);
    results[b.label] = run;
  }
  emulator.close();
  const idealMs = Math.ceil(n / 64) * 5000;
  row(
    `${n} parser updates, 5 s generations, concurrency 64`,
    '<= 1.05x ideal, < 200 MB',
    side(results, (r) => `${fmt(r.wallMs)} (${(r.wallMs / idealMs).toFixed(2)}x), ${Math.round(r.rssMb)} MB`),
    `${fmt(idealMs)}: ${Math.ceil(n / 64)} waves of 5 s`,
    results.after.wallMs / idealMs <= 1.05 && results.after.rssMb < 200,
  );
}

// 5. A steady plan of 20,000 objects with 50 ms added to every call.
if (section('steady')) {
  const n = quick ? 5000 : 10_000;
  const dir = await workspace('plan-20k', {});
  for (let i = 0; i < n; i++) {
    const fields = Array.from({ length: 10 }, (_, f) => `  f${f}: { description: Field ${f} of page ${i} }`);
    await writeFile(
      path.join(dir, `m${i}.yaml`),
      `kind: Parser\nname: p${i}\nurls: [https://books.example/p/${i}.html]\nfields:\n${fields.join('\n')}\n---\nkind: Project\nname: j${i}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/p/${i}.html] }\nscrapingInterval: hourly\n`,
    );
  }
  // The emulator's data dir and the state, as a previous apply would have left them.
  const { loadManifests } = await import('../dist/index.js');
  const { seedSteadyWorkspace } = await import('./lib/steady-seed.js');
  const loaded = await loadManifests({ paths: [dir], env: {} });
  if (!loaded.valid) throw new Error(`bench manifests invalid: ${JSON.stringify(loaded.diagnostics[0])}`);
  const { resources, emulatorState } = seedSteadyWorkspace(loaded, KEY);
  const state = { format_version: 1, serial: 1, lineage: 'bench', resources };
  await mkdir(path.join(dir, '.scrapeform'), { recursive: true });
  await writeFile(path.join(dir, '.scrapeform/state.json'), JSON.stringify(state));
  const dataDir = path.join(work, 'plan-emulator');
  await mkdir(dataDir, { recursive: true });
  await writeFile(path.join(dataDir, 'emulator-state.json'), JSON.stringify(emulatorState));
  const emulator = await startEmulator(['--data-dir', dataDir]);
  await emulator.control('faults', 'PUT', { latencyMs: 50 });
  const runs = Object.fromEntries(builds.map((b) => [b.label, []]));
  for (let round = 0; round < (quick ? 1 : 2); round++) {
    for (const b of inTurn(round)) {
      const r = await timed([b.bin, 'plan', '--detailed-exitcode'], { cwd: dir, env: emulator.env });
      if (r.code !== 0)
        throw new Error(
          `${b.label} steady plan was not empty: ${r.stdout.slice(-1500)} ${r.stderr.slice(-1500)}`,
        );
      runs[b.label].push(r);
    }
  }
  emulator.close();
  const summary = Object.fromEntries(
    builds.map((b) => [
      b.label,
      { ms: median(runs[b.label].map((r) => r.wallMs)), mb: Math.max(...runs[b.label].map((r) => r.rssMb)) },
    ]),
  );
  row(
    `steady plan, ${2 * n} objects, 50 ms latency`,
    '< 4 s, < 250 MB',
    side(summary, (s) => `${fmt(s.ms)}, ${Math.round(s.mb)} MB`),
    '2 calls (one list per service) plus reading the manifests',
    summary.after.ms < 4000 && summary.after.mb < 250,
  );
}

// 6. What the PostgreSQL journal of calls being sent costs (no target): creates with the state in a database on this
// machine and 10 ms away (a relay adding 5 ms each way), a new database for every run. Only with
// SCRAPEFORM_BENCH_POSTGRES, an admin URL (`source .ci/postgres.sh` starts a server; use its SCRAPEFORM_TEST_POSTGRES).
if (section('journal')) {
  const adminUrl = process.env.SCRAPEFORM_BENCH_POSTGRES;
  if (adminUrl === undefined) log('journal: skipped (SCRAPEFORM_BENCH_POSTGRES is not set)');
  else {
    const { default: pg } = await import('pg');
    const n = quick ? 100 : 300;
    const emulator = await startEmulator(['--credits', '1000000000000']);
    const server = new URL(adminUrl);
    const relay = await delayRelay(Number(server.port), server.hostname, 5);
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    let made = 0;
    const places = [
      ['near', 'on this machine', server.host],
      ['far', '10 ms away (5 ms each way)', `127.0.0.1:${relay.port}`],
    ];
    const results = Object.fromEntries(
      places.map(([key]) => [key, Object.fromEntries(builds.map((b) => [b.label, []]))]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const b of inTurn(round)) {
        for (const [key, , host] of places) {
          const name = `scrapeform_bench_${process.pid}_${made++}`;
          await admin.query(`CREATE DATABASE ${name}`);
          const state = new URL(adminUrl);
          state.host = host;
          state.pathname = `/${name}`;
          const r = await applyFresh(
            emulator,
            b,
            `journal-${b.label}`,
            manifests(n, projectYaml),
            ['--concurrency', '16'],
            {
              SCRAPEFORM_STATE: state.toString(),
            },
          );
          results[key][b.label].push(r.wallMs);
          await admin.query(`DROP DATABASE ${name}`);
        }
      }
    }
    await admin.end();
    relay.close();
    emulator.close();
    for (const [key, where] of places) {
      row(
        `${n} project creates, concurrency 16, PostgreSQL state ${where}`,
        '-',
        side(results[key], (ms) => fmt(median(ms))),
        "no target: the cost of committing each create's mark before it is sent (docs/concepts.md, Crash safety)",
        undefined,
      );
    }
  }
}

/** A TCP relay to `port` on `host` that holds every chunk `delayMs` in each direction; `port` is where it listens. */
async function delayRelay(port, host, delayMs) {
  const sockets = new Set();
  const server = createServer((client) => {
    const upstream = connect(port, host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(from);
      from.on('data', (data) => after(() => to.write(data), delayMs));
      from.on('close', () => after(() => to.destroy(), delayMs));
      from.on('error', () => undefined);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

await rm(work, { recursive: true, force: true });
const targets = rows.filter((r) => r[4] !== '-').length;
const met = rows.filter((r) => r[4] === 'met').length;
console.log(
  JSON.stringify({
    description: `Whole processes: the CLI (\`node dist/cli/bin.cjs\`, the package's bin) run as users run it against an emulator in another process on loopback, timed from spawn to exit; CPU and peak RSS are the CLI process's own. ${builds.length > 1 ? `"before" is the build of ${baselineName}, run in the same rounds, the two builds taking turns to go first (a fixed order charged the second with what the first left behind). ` : ''}Each build's code cache is emptied first, so the same commands in the same order make its entries. Medians of ${ROUNDS} round${ROUNDS > 1 ? 's' : ''} (start-up: of ${STARTS} runs; the project creates: of ${CREATE_ROUNDS} rounds, judged by the median of each round's ratio to the bare client process run just before it; the 200 updates: one run). The parser creates run with the default --max-generating (16, the bound --concurrency 16 set before it existed) and poll every 20 ms in both builds (SCRAPEFORM_POLL_INTERVAL, fit for 100 ms generations); the updates run with --max-generating 64 (or, in a build without it, --concurrency 64 alone) and the default polling. The emulator's rate is measured by a bare client (bench/lib/bare-client.js: the least work a client can do, over node:http with one keep-alive agent, 16 in flight) after a round that warms the emulator up: in this process (the POSTs alone) and as a whole process of its own (Node's start included, as in the CLI's figure), the latter being what the row is judged against. The emulator row of the issue (4,000 jobs falling due at once) is measured by bench/emulator.js.${process.env.SCRAPEFORM_BENCH_POSTGRES !== undefined && section('journal') ? ' The PostgreSQL rows (no target) run each apply against a new database of the server SCRAPEFORM_BENCH_POSTGRES names, directly and through a relay holding every chunk 5 ms each way.' : ''} The machine is shared, so absolute times are noisy; ratios taken in the same round are the figures to read.${quick ? ' --quick: one round and smaller runs.' : ''}`,
    header: ['measure', 'target', 'figures', 'compared to', 'after'],
    rows,
    verdict: `${met} of ${targets} targets met. ${verdicts.join(' ')}`.trim(),
  }),
);
