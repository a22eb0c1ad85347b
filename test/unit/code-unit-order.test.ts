import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { byCodeUnit } from '../../src/code-unit-order.js';
import { sortDiagnostics } from '../../src/manifest/diagnostic.js';
import type { Diagnostic } from '../../src/manifest/diagnostic.js';
import { stable } from '../../src/plan/plan-context.js';

const root = path.resolve(import.meta.dirname, '../..');

function diagnostic(file: string, path = ''): Diagnostic {
  return { severity: 'error', code: 'manifest.invalid', file, line: 1, column: 1, path, message: 'x' };
}

describe('byCodeUnit', () => {
  it('orders as < does: upper case before lower case, and letters outside ASCII last', () => {
    expect(['b', 'ä', 'a', 'z', '_x', 'B'].sort(byCodeUnit)).toEqual(['B', '_x', 'a', 'b', 'z', 'ä']);
    expect(byCodeUnit('same', 'same')).toBe(0);
  });

  it('is the order of stable JSON keys and of diagnostics by file and path', () => {
    expect(stable({ apple: 1, Zebra: { b: 1, B: 2 }, _x: 3 })).toBe(
      '{"Zebra":{"B":2,"b":1},"_x":3,"apple":1}',
    );
    const sorted = sortDiagnostics([
      diagnostic('b.yaml'),
      diagnostic('B.yaml', 'z'),
      diagnostic('B.yaml', 'Y'),
    ]);
    expect(sorted.map((d) => `${d.file}:${d.path}`)).toEqual(['B.yaml:Y', 'B.yaml:z', 'b.yaml:']);
  });

  // A plan saved with `plan --out` on one machine is checked by `apply --plan` on another: the digest of a live
  // project (stable JSON) must not depend on the locale of either. In Estonian "z" sorts before "t".
  it('gives the same stable JSON and diagnostic order whatever the locale of the process', () => {
    const script = [
      `const { stable } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'dist/plan/plan-context.js')).href)});`,
      `const { sortDiagnostics } = await import(${JSON.stringify(pathToFileURL(path.join(root, 'dist/manifest/diagnostic.js')).href)});`,
      `const d = (file) => ({ severity: 'error', code: 'c', file, line: 1, column: 1, path: '', message: 'm' });`,
      `console.log(stable({ tau: 1, zeta: { Tau: 1, tau: 2, zeta: 3 } }), sortDiagnostics([d('zeta.yaml'), d('tau.yaml')]).map((x) => x.file).join());`,
    ].join('\n');
    const run = (locale: string): string =>
      execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        env: { PATH: process.env.PATH, LANG: locale, LC_ALL: locale },
        encoding: 'utf8',
      });
    const plain = run('C.UTF-8');
    expect(plain).toBe('{"tau":1,"zeta":{"Tau":1,"tau":2,"zeta":3}} tau.yaml,zeta.yaml\n');
    expect(run('et_EE.UTF-8')).toBe(plain);
    expect(run('da_DK.UTF-8')).toBe(plain);
  });
});
