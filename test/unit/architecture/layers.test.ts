import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md, enforced: imports only go down the layers. A folder may import its own files and any
 * folder of a lower rank, never one of the same or a higher rank (type imports included: a type that two layers
 * share belongs to the lower one).
 */
const SRC = path.resolve(import.meta.dirname, '../../../src');
const RANK: Record<string, number> = {
  'index.ts': 9,
  cli: 8,
  workspace: 7,
  output: 6,
  apply: 5,
  plan: 4,
  emulator: 4,
  api: 3,
  state: 3,
  manifest: 3,
  model: 1,
  'errors.ts': 0,
  'worker-pool.ts': 0,
  'duration.ts': 0,
  'format-count.ts': 0,
  'code-unit-order.ts': 0,
  'version.ts': 0,
  'package-root.ts': 0,
  'secret-forms.ts': 0,
  'decode-text.ts': 0,
  'abort-fanout.ts': 0,
  'replace-file.ts': 0,
  'nesting-path.ts': 0,
  'invisible-characters.ts': 0,
  'is-record.ts': 0,
};

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : [path.join(dir, e.name)])),
  );
  return nested.flat().filter((f) => f.endsWith('.ts'));
}

/** The layer of a file: its top folder under src/, or the file itself at the top. */
function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0] as string;
}

describe('the layers of docs/architecture.md', () => {
  it('every source file belongs to a known layer', async () => {
    const unknown = [...new Set((await sourceFiles(SRC)).map(layerOf))].filter((l) => RANK[l] === undefined);
    expect(unknown).toEqual([]);
  });

  it('imports only go down', async () => {
    const upward: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      const from = layerOf(file);
      const text = await readFile(file, 'utf8');
      for (const match of text.matchAll(/^(?:import|export)[^'"]*from '(\.[^']+)'/gm)) {
        const target = path.resolve(path.dirname(file), (match[1] as string).replace(/\.js$/, '.ts'));
        const to = layerOf(target);
        if (to === from) continue;
        if ((RANK[to] ?? 99) >= (RANK[from] ?? -1)) {
          upward.push(`${path.relative(SRC, file)} -> ${path.relative(SRC, target)}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });
});
