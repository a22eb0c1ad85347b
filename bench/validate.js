// bench validate: load and validate 1,000 parser manifests of 20 fields plus 1,000 project manifests, then the
// same 2,000 objects expanded from templates and for_each (issue 16), each variant in its own process.
// Target (issue 2, kept by issue 16): under 1.5 s and 200 MB peak. Prints one JSON result for bench/run.js.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadManifests } from '../dist/index.js';

const PARSERS = 1000;
const PROJECTS = 1000;
/** Template variant: files of this many for_each elements each. */
const PER_FILE = 50;
const templates = process.argv.includes('--templates');
const dir = await mkdtemp(path.join(tmpdir(), 'scrapeform-bench-validate-'));

function parserFields(indent) {
  const pad = ' '.repeat(indent);
  const fields = [];
  for (let f = 0; f < 16; f++) {
    fields.push(
      `${pad}field_${f}:\n${pad}  description: Value number ${f} of the product page, as printed\n${pad}  type: ${f % 3 === 0 ? 'number' : 'string'}\n${pad}  selector: ".f${f}"`,
    );
  }
  fields.push(`${pad}reviews:\n${pad}  description: Reviews of the product\n${pad}  fields:`);
  for (let c = 0; c < 3; c++)
    fields.push(`${pad}    child_${c}: { description: Child value ${c} of a review }`);
  return fields.join('\n');
}

function parserManifest(i) {
  return `kind: Parser\nname: parser-${i}\nurls:\n  - https://shop.example/p/${i}/a.html\n  - https://shop.example/p/${i}/b.html\nscraper_params: { render: false, country_code: us }\nfields:\n${parserFields(2)}\n`;
}

function projectManifest(i) {
  return `kind: Project\nname: project-${i}\nprojectType: urls\nprojectInput:\n  type: list\n  list: [https://shop.example/p/${i}/a.html, https://shop.example/p/${i}/b.html]\nscrapingInterval: "${i % 60} * * * *"\noutput_format: JSON\nwebhookOutput: { url: https://hooks.example/${i} }\nnotificationConfig: { notifyOnSuccess: never, notifyOnFailure: daily }\n`;
}

/** The same objects written once: a template each, and files whose for_each makes PER_FILE objects. */
async function writeTemplated() {
  await mkdir(path.join(dir, 'templates'));
  await writeFile(
    path.join(dir, 'templates', 'product.yaml'),
    `kind: ParserTemplate\nname: product\nscraper_params: { render: false, country_code: us }\nfields:\n${parserFields(2)}\n`,
  );
  await writeFile(
    path.join(dir, 'templates', 'crawl.yaml'),
    `kind: ProjectTemplate\nname: crawl\nprojectType: urls\noutput_format: JSON\nnotificationConfig: { notifyOnSuccess: never, notifyOnFailure: daily }\n`,
  );
  const list = (from) =>
    Array.from({ length: PER_FILE }, (_, k) => `  - { i: ${from + k}, minute: ${(from + k) % 60} }`).join(
      '\n',
    );
  for (let from = 0; from < PARSERS; from += PER_FILE) {
    await writeFile(
      path.join(dir, 'parsers', `p${from}.yaml`),
      `kind: Parser\nname: parser-\${each.i}\nextends: product\nfor_each:\n${list(from)}\nurls:\n  - https://shop.example/p/\${each.i}/a.html\n  - https://shop.example/p/\${each.i}/b.html\n`,
    );
  }
  for (let from = 0; from < PROJECTS; from += PER_FILE) {
    await writeFile(
      path.join(dir, 'projects', `j${from}.yaml`),
      `kind: Project\nname: project-\${each.i}\nextends: crawl\nfor_each:\n${list(from)}\nprojectInput:\n  type: list\n  list: ["https://shop.example/p/\${each.i}/a.html", "https://shop.example/p/\${each.i}/b.html"]\nscrapingInterval: "\${each.minute} * * * *"\nwebhookOutput: { url: "https://hooks.example/\${each.i}" }\n`,
    );
  }
}

await mkdir(path.join(dir, 'parsers'));
await mkdir(path.join(dir, 'projects'));
if (templates) await writeTemplated();
else {
  for (let i = 0; i < PARSERS; i++)
    await writeFile(path.join(dir, 'parsers', `p${i}.yaml`), parserManifest(i));
  for (let i = 0; i < PROJECTS; i++)
    await writeFile(path.join(dir, 'projects', `j${i}.yaml`), projectManifest(i));
}

globalThis.gc?.();
const runs = [];
for (let run = 0; run < Number(process.env.BENCH_RUNS ?? 3); run++) {
  const start = performance.now();
  const loaded = await loadManifests({ paths: [dir], env: {}, projectFile: false });
  const ms = performance.now() - start;
  if (!loaded.valid || loaded.parsers.length !== PARSERS || loaded.projects.length !== PROJECTS) {
    throw new Error(`bench manifests did not validate: ${JSON.stringify(loaded.diagnostics.slice(0, 3))}`);
  }
  runs.push(ms);
}
if (!process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
else console.error(dir);
const peakMb = process.resourceUsage().maxRSS / 1024;
// A CLI run is always cold: the first run is the one that must meet the target.
const measured = { runs, cold: runs[0], best: Math.min(...runs), peakMb };

if (templates) {
  console.log(JSON.stringify(measured));
} else {
  const { stdout } = await promisify(execFile)(process.execPath, [
    '--expose-gc',
    import.meta.filename,
    '--templates',
  ]);
  const templated = JSON.parse(stdout);
  const pass = (m) => m.cold < 1500 && m.peakMb < 200;
  const verdict = (label, m) =>
    `${label}: cold (first) run ${m.cold.toFixed(0)} ms, best ${m.best.toFixed(0)} ms, peak ${m.peakMb.toFixed(0)} MB: ${pass(m) ? 'met' : 'NOT met'}.`;
  console.log(
    JSON.stringify({
      description: `Load, interpolate, validate and normalise ${PARSERS} parser manifests of 20 fields (16 plain, one parent with 3 children) and ${PROJECTS} project manifests with cron schedules. "one file each": one file per object. "templates": the same 2,000 objects expanded from a ParserTemplate and a ProjectTemplate by files of ${PER_FILE} for_each elements (${(PARSERS + PROJECTS) / PER_FILE} files). Three runs per variant in one process, each variant in its own process; peak is that process's maximum resident set.`,
      header: ['variant', 'run', 'time (ms)'],
      rows: [
        ...measured.runs.map((ms, i) => ['one file each', i + 1, ms.toFixed(0)]),
        ['one file each', 'peak RSS', `${measured.peakMb.toFixed(0)} MB`],
        ...templated.runs.map((ms, i) => ['templates', i + 1, ms.toFixed(0)]),
        ['templates', 'peak RSS', `${templated.peakMb.toFixed(0)} MB`],
      ],
      verdict: `Target: under 1,500 ms and 200 MB. ${verdict('One file each', measured)} ${verdict('Templates', templated)}`,
    }),
  );
}
