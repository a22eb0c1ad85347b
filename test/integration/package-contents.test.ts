import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** What `npm pack` would publish (the build in dist/ as it is now; scripts are not run). */
async function packedFiles(): Promise<string[]> {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [pack] = JSON.parse(stdout) as { files: { path: string }[] }[];
  return (pack?.files ?? []).map((f) => f.path);
}

describe('the published package', () => {
  it('ships the licence its package.json names, a repository, and the security policy', async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      license: string;
      repository?: { type: string; url: string };
    };
    expect(manifest.license).toBe('MIT');
    expect(manifest.repository?.type).toBe('git');
    expect(await readFile(path.join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    const files = await packedFiles();
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'SECURITY.md', 'README.md', 'package.json']));
  });

  it('ships every source a source map points to', async () => {
    const files = await packedFiles();
    const shipped = new Set(files);
    const maps = files.filter((f) => f.endsWith('.js.map'));
    expect(maps.length).toBeGreaterThan(10);
    const missing: string[] = [];
    for (const map of maps) {
      const { sources } = JSON.parse(await readFile(path.join(ROOT, map), 'utf8')) as { sources: string[] };
      for (const source of sources) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(map), source));
        if (!shipped.has(target)) missing.push(`${map} -> ${target}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('does not ship the code cache the bin writes beside itself (made on the machine that runs it)', async () => {
    // One run of the bin makes at least its entry for main.cjs.
    await run(process.execPath, [path.join(ROOT, 'dist/cli/bin.cjs'), '--version'], {
      env: { PATH: process.env.PATH },
    });
    expect(await readdir(path.join(ROOT, 'dist/cli/code-cache'))).toContain('main.cjs.cache');
    const files = await packedFiles();
    expect(files.filter((f) => f.includes('code-cache/'))).toEqual([]);
    expect(files).toEqual(expect.arrayContaining(['dist/cli/bin.cjs', 'dist/cli/main.cjs']));
  });

  it('exports the JSON Schema as scrapeform/schema.json', async () => {
    // A package can import itself by name through its exports, as a dependent project would.
    const resolved = createRequire(path.join(ROOT, 'package.json')).resolve('scrapeform/schema.json');
    expect(resolved).toBe(path.join(ROOT, 'schemas/scrapeform.schema.json'));
    const schema = JSON.parse(await readFile(resolved, 'utf8')) as { $schema?: string };
    expect(schema.$schema).toMatch(/json-schema\.org/);
  });

  it('runs the CLI from one bundle: its chunks, node modules and declared dependencies, without zod locales', async () => {
    const manifest = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as {
      bin: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(manifest.bin['scrapeform']).toBe('dist/cli/bin.cjs');
    const folder = path.join(ROOT, 'dist/cli');
    const chunks = (await readdir(path.join(folder, 'chunks'))).map((f) => `chunks/${f}`);
    const imported = new Set<string>();
    for (const file of ['bin.cjs', 'main.cjs', ...chunks]) {
      const text = await readFile(path.join(folder, file), 'utf8');
      // The bundle is CommonJS: require("x"), import("x"), and createRequire(…)("x") or its .resolve("x").
      for (const m of text.matchAll(/(?:\brequire\(|\bimport\(|\.href\)(?:\.resolve)?\()"([^"]+)"/g))
        imported.add(m[1] ?? '');
      // No import(): the bin's code cache compiles these files without an import() callback (code-cache.ts).
      const imports = text.split('\n').filter((l) => /\bimport\(/.test(l) && !/^\s*(?:\*|\/\/)/.test(l));
      expect(imports, file).toEqual([]);
      // The locales zod's entry re-exports stay out (its English messages are what scrapeform shows).
      expect(text, file).not.toContain('Ungültige Eingabe');
    }
    const packages = [...imported].filter(
      (id) => !id.startsWith('.') && !id.startsWith('node:') && !builtinModules.includes(id),
    );
    const declared = new Set(Object.keys(manifest.dependencies));
    // zod and the small dependencies every command loads at start are inside the bundle (rolldown.config.js);
    // everything else is loaded from node_modules, so it must be a dependency.
    const bundled = ['zod', 'commander', 'picocolors', 'js-yaml', 'fastest-levenshtein', 'deep-diff'];
    expect(packages.filter((id) => bundled.includes(id.split('/')[0] ?? id))).toEqual([]);
    // (scrapeform/package.json is the package reading itself by name: see src/package-root.ts.)
    expect(packages).toEqual(expect.arrayContaining(['yaml', 'undici', 'pg', 'scrapeform/package.json']));
    const undeclared = packages.filter((id) => !id.startsWith('scrapeform/'));
    expect(undeclared.filter((id) => !declared.has(id.split('/')[0] ?? id))).toEqual([]);
  });
});
