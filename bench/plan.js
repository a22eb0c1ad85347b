// bench plan: plan time and peak memory for 1,000 parsers + 1,000 projects against the emulator with 50 ms added
// to every call, unchanged and with 10% changed. Target (issue 6): under 2 s and 250 MB.
// The emulator runs in a child process (seeded through --data-dir), so the peak memory measured is the planner's.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildPlan, createApiClients, loadManifests, readLive } from '../dist/index.js';
import { FileStateBackend } from '../dist/state/file-backend.js';
import { seedSteadyWorkspace } from './lib/steady-seed.js';

const N = 1000;
const KEY = 'bench-key';
const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-bench-plan-'));
const manifests = path.join(dir, 'manifests');
await mkdir(manifests);

function parserYaml(i, changed) {
  const fields = Array.from(
    { length: 10 },
    (_, f) => `  f${f}: { description: Field ${f} of page ${i}${changed && f === 0 ? ' (edited)' : ''} }`,
  ).join('\n');
  return `kind: Parser\nname: p${i}\nurls: [https://books.example/p/${i}.html]\nfields:\n${fields}\n`;
}
function projectYaml(i, changed) {
  return `kind: Project\nname: j${i}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/p/${i}.html${changed ? ', https://books.example/extra.html' : ''}] }\nscrapingInterval: hourly\n`;
}
async function writeManifests(changedShare) {
  await rm(manifests, { recursive: true, force: true });
  await mkdir(manifests);
  for (let i = 0; i < N; i++) {
    const changed = i < N * changedShare;
    await writeFile(
      path.join(manifests, `m${i}.yaml`),
      `${parserYaml(i, changed)}---\n${projectYaml(i, changed)}`,
    );
  }
}

// Seed the emulator's data dir and the state as a previous apply would have left them.
await writeManifests(0);
const loaded = await loadManifests({ paths: [manifests], env: {} });
const backend = new FileStateBackend(path.join(dir, 'state.json'));
const state = await backend.read();
const { resources, emulatorState } = seedSteadyWorkspace(loaded, KEY);
state.resources = resources;
await backend.write(state);
const dataDir = path.join(dir, 'emulator');
await mkdir(dataDir);
await writeFile(path.join(dataDir, 'emulator-state.json'), JSON.stringify(emulatorState));

const child = spawn(
  process.execPath,
  ['dist/cli/bin.cjs', 'emulator', '--port', '0', '--api-key', KEY, '--data-dir', dataDir],
  { stdio: ['ignore', 'pipe', 'ignore'] },
);
const url = await new Promise((resolve) => {
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
    const m = /listening on (\S+)/.exec(out);
    if (m) resolve(m[1]);
  });
});
await fetch(`${url}/_emulator/faults`, { method: 'PUT', body: JSON.stringify({ latencyMs: 50 }) });

const clients = createApiClients({ apiKey: KEY, parserUrl: url, pipelineUrl: url }, { env: {} });
async function planOnce() {
  const started = performance.now();
  const desired = await loadManifests({ paths: [manifests], env: {} });
  const current = await backend.read();
  const live = await readLive(clients, desired, current);
  const plan = buildPlan({ parsers: desired.parsers, projects: desired.projects, state: current, live });
  return { ms: performance.now() - started, plan };
}

const rows = [];
const unchanged = await planOnce();
if (unchanged.plan.status !== 'no_changes') throw new Error('the unchanged workspace planned changes');
rows.push(['unchanged, first plan', `${unchanged.ms.toFixed(0)} ms`, '0 changes']);
const again = await planOnce();
rows.push(['unchanged, second plan', `${again.ms.toFixed(0)} ms`, '0 changes']);
await writeManifests(0.1);
const changed = await planOnce();
rows.push(['10% changed', `${changed.ms.toFixed(0)} ms`, `${changed.plan.resource_changes.length} changes`]);
const peakMb = process.resourceUsage().maxRSS / 1024;
rows.push(['peak RSS of the planning process', `${peakMb.toFixed(0)} MB`, '']);
await clients.close();
child.kill();
await rm(dir, { recursive: true, force: true });

const worst = Math.max(unchanged.ms, again.ms, changed.ms);
console.log(
  JSON.stringify({
    description: `Plan ${N} parser manifests (10 fields each) and ${N} project manifests against the emulator (in another process) with 50 ms added to every call: load and validate the manifests, read state, read the live services (2 calls), build the plan. The process read the manifests once before, to seed the emulator. "10% changed" edits a description of 100 parsers and the input list of 100 projects.`,
    header: ['case', 'time', 'plan'],
    rows,
    verdict: `Target: under 2,000 ms and 250 MB. Worst case ${worst.toFixed(0)} ms, peak ${peakMb.toFixed(0)} MB: ${worst < 2000 && peakMb < 250 ? 'met' : 'NOT met'}.`,
  }),
);
