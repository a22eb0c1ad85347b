// Runs the benchmarks (each in its own process, so peak memory is its own) and records them in BENCHMARKS.md.
// Usage: npm run bench [-- [--quick] name ...]   (names: the files in bench/ without .js, except run, helpers in lib/; --quick asks
// the benchmarks that have one for a smaller, faster round)
import { execFile } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const here = import.meta.dirname;
const root = path.resolve(here, '..');
const all = (await readdir(here))
  .filter((f) => f.endsWith('.js') && f !== 'run.js')
  .map((f) => f.slice(0, -3));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const names = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const chosen = names.length > 0 ? names : all;

const machine = `${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}, Node ${process.version}`;
const date = new Date().toISOString().slice(0, 10);
const file = path.join(root, 'BENCHMARKS.md');
let doc = await readFile(file, 'utf8').catch(
  () =>
    '# Benchmarks\n\nWritten by `npm run bench`; each section is replaced when its benchmark runs again.\n',
);

for (const name of chosen) {
  console.error(`bench ${name} ...`);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', path.join(here, `${name}.js`), ...flags],
    {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const result = JSON.parse(stdout);
  const rows = result.rows.map((r) => `| ${r.map(String).join(' | ')} |`).join('\n');
  const section = [
    `## ${name}`,
    '',
    result.description,
    '',
    `Machine: ${machine}. Date: ${date}.`,
    '',
    `| ${result.header.join(' | ')} |`,
    `| ${result.header.map(() => '---').join(' | ')} |`,
    rows,
    '',
    result.verdict,
    '',
  ].join('\n');
  // Up to the next heading, a `###` one included: the readings written under a table by hand stay.
  const pattern = new RegExp(`## ${name}\\n[\\s\\S]*?(?=\\n##+ |$)`);
  doc = pattern.test(doc) ? doc.replace(pattern, section.trimEnd() + '\n') : `${doc.trimEnd()}\n\n${section}`;
  console.error(section);
}
await writeFile(file, doc.trimEnd() + '\n');
