import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runScrapeform } from '../../helpers/cli.js';

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

/** Each command (`state push` included) with its long options, as the completion script lists them. */
async function commandFlags(): Promise<Map<string, string[]>> {
  const bash = (await runScrapeform(['completion', 'bash'])).stdout;
  const commands = new Map<string, string[]>();
  for (const m of bash.matchAll(/'([a-z][a-z -]*)'\) opts='([^']*)'/g)) {
    commands.set(m[1] ?? '', (m[2] ?? '').split(' ').filter(Boolean));
  }
  return commands;
}

/** The `### \`scrapeform …\`` headings of README.md with the text under each. */
function commandSections(readme: string): { heading: string; body: string }[] {
  return readme
    .split(/^### /m)
    .slice(1)
    .filter((s) => s.startsWith('`scrapeform '))
    .map((s) => ({ heading: s.slice(0, s.indexOf('\n')), body: s }));
}

/** Whether `text` holds `flag` as a whole flag (`--lock` not matched by `--lock-timeout`). */
function mentions(text: string, flag: string): boolean {
  return new RegExp(`${flag}(?![a-z-])`).test(text);
}

describe('README.md', () => {
  let readme = '';
  let commands = new Map<string, string[]>();
  beforeAll(async () => {
    readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    commands = await commandFlags();
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

  it('documents every flag of every command, in its section or among the flags all commands share', () => {
    const sections = commandSections(readme);
    const commandsText = section(readme, 'Commands');
    // The flags every command shares: the text before the first command, and the global options.
    const shared = `${commandsText.split(/^### /m)[0] ?? ''}${commandsText.split('### Global options')[1] ?? ''}`;
    expect(commands.size).toBeGreaterThan(20);
    const undocumented: string[] = [];
    for (const [command, flags] of commands) {
      const own = sections
        .filter(
          (s) =>
            s.heading.includes(`\`scrapeform ${command} `) || s.heading.includes(`\`scrapeform ${command}\``),
        )
        .map((s) => s.body)
        .join('\n');
      if (own === '') {
        undocumented.push(`${command}: no section`);
        continue;
      }
      for (const flag of flags) {
        if (!mentions(own, flag) && !mentions(shared, flag)) undocumented.push(`${command} ${flag}`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('puts in each command heading only flags that command takes', () => {
    const wrong: string[] = [];
    for (const { heading } of commandSections(readme)) {
      for (const part of heading.split(/`,\s*`/)) {
        const name = /scrapeform ((?:state (?:pull|push))|[a-z-]+)/.exec(part)?.[1] ?? '';
        const flags = commands.get(name);
        if (flags === undefined) {
          wrong.push(`${part}: no such command`);
          continue;
        }
        for (const flag of part.match(/--[a-z][a-z-]*/g) ?? [])
          if (!flags.includes(flag)) wrong.push(`${name} ${flag}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("gives --timeout the default every command's help names: SCRAPEFORM_TIMEOUT, else 30s", async () => {
    expect(section(readme, 'Configuration')).toContain('`SCRAPEFORM_TIMEOUT`, or `--timeout DURATION`');
    const differing: string[] = [];
    for (const [command, flags] of commands) {
      if (!flags.includes('--timeout')) continue;
      const help = (await runScrapeform([...command.split(' '), '--help'])).stdout.replace(/\s+/g, ' ');
      if (!help.includes('(default SCRAPEFORM_TIMEOUT, else 30s)')) differing.push(command);
    }
    expect(differing).toEqual([]);
  });
});
