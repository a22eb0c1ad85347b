import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../../..');

/** The text of a `## Title` section of README.md, up to the next `## ` heading. */
function section(readme: string, title: string): string {
  const start = readme.indexOf(`\n## ${title}\n`);
  expect(start, `README.md has a "## ${title}" section`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

/** Every `.ts` file under src/, with its text. */
async function sourceFiles(): Promise<{ file: string; text: string }[]> {
  const entries = await readdir(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && e.name.endsWith('.ts'));
  return Promise.all(
    files.map(async (e) => {
      const file = path.join(e.parentPath, e.name);
      return { file: path.relative(ROOT, file), text: await readFile(file, 'utf8') };
    }),
  );
}

/**
 * The environment variables src/ reads: `env.NAME` and `env['NAME']`, plus `'SCRAPEFORM_…'` string literals (the
 * names handed to a reader such as `durationFromEnv(env, 'SCRAPEFORM_POLL_INTERVAL', …)`).
 */
function variablesRead(text: string): string[] {
  const names = [
    ...[...text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]),
    ...[...text.matchAll(/\benv\[['"]([A-Z][A-Z0-9_]*)['"]\]/g)].map((m) => m[1]),
    ...[...text.matchAll(/['"](SCRAPEFORM_[A-Z0-9_]+)['"]/g)].map((m) => m[1]),
  ];
  return names.filter((n): n is string => n !== undefined);
}

describe('README.md', () => {
  let readme = '';
  beforeAll(async () => {
    readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  });

  it('lists in its Configuration table every environment variable src/ reads, and none it does not', async () => {
    const table = section(readme, 'Configuration')
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .join('\n');
    const read = new Map<string, string>();
    for (const { file, text } of await sourceFiles()) {
      for (const name of variablesRead(text)) read.set(name, file);
    }
    expect(read.size).toBeGreaterThan(5);
    const unlisted = [...read]
      .filter(([name]) => !new RegExp(`\\b${name}\\b`).test(table))
      .map(([name, file]) => `${name} (${file})`);
    expect(unlisted).toEqual([]);
    const listed = new Set(table.match(/SCRAPEFORM_[A-Z0-9_]+/g) ?? []);
    expect([...listed].filter((name) => !read.has(name))).toEqual([]);
  });
});
