// The CLI as users run it: `tsc` builds dist/ (the library, its types and source maps), then this bundles the
// command line from src/cli/bin.ts into dist/cli/main.cjs (loaded by the bin, dist/cli/bin.cjs, from src/cli/entry.ts,
// through a code cache: src/cli/code-cache.ts) and lazily loaded chunks in dist/cli/chunks/, one per
// command module as in cli/main.ts. Why: Node 20 has no module compile cache, and `validate` of one file loaded 142
// modules, 95 of them zod's (70 locale modules its entry re-exports and scrapeform never uses). Bundled, zod keeps
// only what is used and the rest is a few files. The other dependencies inside are listed in BUNDLED; the rest are
// loaded from node_modules at run time (pg, undici, the emulator's HTML stack and yaml only when a command needs
// them).
//
// The bundle is CommonJS: Node 20 loads a CommonJS entry without starting its ES module loader, whose resolving,
// linking and module jobs cost about 9% of `validate` of one file (BENCHMARKS.md, fifth pass). dist/cli/bin.js, the
// entry of earlier versions, stays as a one-line ES module that loads bin.cjs, for anyone who runs it by path.
import { rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { defineConfig } from 'rolldown';

const builtins = new Set(builtinModules);
/**
 * Dependencies inside the bundle: zod, and the small pure-JS ones every command that reads manifests or calls the
 * services loads at start (resolving each from node_modules and linking it as a module of its own cost more than
 * its code). They stay dependencies, installed with their licences.
 */
const BUNDLED = new Set(['zod', 'commander', 'picocolors', 'js-yaml', 'fastest-levenshtein', 'deep-diff']);
/** Bundled: scrapeform's own modules and zod; external: node's modules and every other package. */
const isExternal = (id) => {
  if (id.startsWith('.') || id.startsWith('/') || id.startsWith('\0')) return false;
  if (id.startsWith('node:') || builtins.has(id)) return true;
  const name = id.startsWith('@') ? id.split('/').slice(0, 2).join('/') : id.split('/')[0];
  return !BUNDLED.has(name);
};

export default defineConfig({
  // main.cjs: the command line (bin.ts); bin.cjs, the package's bin: a few lines that load main.cjs through the code
  // cache of src/cli/code-cache.ts (Node 20 has no compile cache of its own; entry.ts).
  input: { main: 'src/cli/bin.ts', bin: 'src/cli/entry.ts' },
  platform: 'node',
  external: isExternal,
  output: {
    dir: 'dist/cli',
    format: 'cjs',
    entryFileNames: '[name].cjs',
    // import('pg') and import('node:readline/promises') become require() in a promise: the code cache compiles the
    // bundle's files without an import() callback (Node 20's default loader for one is experimental and warns).
    dynamicImportInCjs: false,
    chunkFileNames: 'chunks/[name]-[hash].cjs',
    // No source map: its sources would point into node_modules/zod, which the package does not ship. The bundle
    // is not minified and marks each module's region with its source path (`//#region src/...`).
    sourcemap: false,
  },
  plugins: [
    {
      name: 'entry-by-its-old-path',
      // tsc's bin.js (unbundled: it would load ~140 modules), its map and its declarations are replaced by a
      // one-line ES module that loads the bundle, so `node dist/cli/bin.js` keeps working.
      writeBundle() {
        for (const file of ['dist/cli/bin.js.map', 'dist/cli/bin.d.ts', 'dist/cli/bin.d.ts.map'])
          rmSync(file, { force: true });
        writeFileSync('dist/cli/bin.js', "#!/usr/bin/env node\nimport './bin.cjs';\n");
      },
    },
  ],
});
