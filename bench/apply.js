// bench apply: 100 parser updates with 5 s generations, 4 and 16 generations in flight (--max-generating), and
// 200 project updates. Reports total time as a ratio of the ideal (generation time x number of waves) and the
// looks at generations per parser (list calls, which serve every waiting parser at once, and reads by id).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  applyPlan,
  buildPlan,
  createApiClients,
  loadManifests,
  readLive,
  startEmulator,
} from '../dist/index.js';
import { FileStateBackend } from '../dist/state/file-backend.js';

const PARSERS = 100;
const PROJECTS = 200;
const GENERATION_MS = 5000;
const KEY = 'bench-key';
const emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 0, credits: 1e12 });
const clients = createApiClients(
  { apiKey: KEY, parserUrl: emulator.url, pipelineUrl: emulator.url },
  { env: {} },
);
const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-bench-apply-'));
const manifests = path.join(dir, 'manifests');
const backend = new FileStateBackend(path.join(dir, 'state.json'));

async function write(revision) {
  await rm(manifests, { recursive: true, force: true });
  await mkdir(manifests);
  for (let i = 0; i < PARSERS; i++) {
    await writeFile(
      path.join(manifests, `p${i}.yaml`),
      `kind: Parser\nname: p${i}\nurls: [https://books.example/catalogue/page-1.html]\nfields:\n  heading: { description: "Page heading (revision ${revision})", selector: h1 }\n`,
    );
  }
  for (let i = 0; i < PROJECTS; i++) {
    await writeFile(
      path.join(manifests, `j${i}.yaml`),
      `kind: Project\nname: j${i}\nprojectType: urls\nprojectInput: { type: list, list: [https://books.example/catalogue/page-${(i % 3) + 1}.html] }\nscrapingInterval: ${revision % 2 === 0 ? 'daily' : 'hourly'}\nscheduledAt: "2099-01-01T00:00:00Z"\n`,
    );
  }
}

async function plan() {
  const loaded = await loadManifests({ paths: [manifests], env: {} });
  if (!loaded.valid) throw new Error(`bench manifests invalid: ${JSON.stringify(loaded.diagnostics[0])}`);
  const state = await backend.read();
  return {
    plan: buildPlan({
      parsers: loaded.parsers,
      projects: loaded.projects,
      state,
      live: await readLive(clients, loaded, state),
    }),
    state,
  };
}

async function run(options, filter) {
  const { plan: full, state } = await plan();
  const selected = { ...full, resource_changes: full.resource_changes.filter(filter) };
  if (selected.resource_changes.length === 0) throw new Error('the bench planned no change');
  emulator.requestLog.length = 0;
  const started = performance.now();
  const result = await applyPlan({ plan: selected, clients, backend, state, ...options });
  const seconds = (performance.now() - started) / 1000;
  if (result.results.some((r) => !r.ok)) throw new Error(JSON.stringify(result.results.find((r) => !r.ok)));
  // A look is a list (one serves every waiting parser) or a read of one parser's details; the example-result
  // reads of the result diff are made by the workspace, not by applyPlan, so none is counted here.
  const polls = emulator.requestLog.filter(
    (e) => e.method === 'GET' && /^\/parsers(\/[^/]+\/\d+)?(\?|$)/.test(e.path),
  ).length;
  return { seconds, polls, changes: selected.resource_changes.length };
}

await write(0);
await run({ pollMinMs: 20, pollMaxMs: 50 }, () => true); // create everything, generation delay 0
emulator.setFaults({ generationDelayMs: GENERATION_MS });
const rows = [];
for (const [revision, generating] of [
  [1, 4],
  [2, 16],
]) {
  await write(revision);
  const r = await run({ concurrency: generating, maxGenerating: generating }, (c) => c.kind === 'Parser');
  const waves = Math.ceil(PARSERS / generating);
  const ideal = (waves * GENERATION_MS) / 1000;
  rows.push([
    `${PARSERS} parser updates, ${generating} generating at once`,
    `${r.seconds.toFixed(1)} s`,
    `${ideal.toFixed(0)} s (${waves} waves)`,
    (r.seconds / ideal).toFixed(2),
    (r.polls / PARSERS).toFixed(1),
  ]);
}
await write(3);
const projects = await run({ concurrency: 4 }, (c) => c.kind === 'Project');
rows.push([
  `${projects.changes} project updates, concurrency 4`,
  `${projects.seconds.toFixed(1)} s`,
  '-',
  '-',
  '-',
]);
await clients.close();
await emulator.close();
await rm(dir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    description: `Apply against the in-process emulator with ${GENERATION_MS / 1000} s generations and the default polling (a first look after 250 ms, then every twentieth of the time already waited, up to 15 s, and once generations have finished, looks every 50 ms around the time the shortest of them took): ${PARSERS} parser description changes (one PATCH and one regeneration each) with --max-generating and --concurrency 4, then 16, then ${PROJECTS} project updates (one PATCH each). The ideal is the generation time times the number of waves of that many generations; the ratio above 1 is the time to see each finish plus calls. Looks per parser: list calls and reads of one parser, divided by the parsers.`,
    header: ['run', 'total', 'ideal', 'ratio', 'looks per parser'],
    rows,
    verdict: 'No target was set; the ratio shows what seeing each finish costs over a perfect notification.',
  }),
);
