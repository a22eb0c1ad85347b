import { existsSync } from 'node:fs';
import path from 'node:path';
import { byCodeUnit } from '../code-unit-order.js';
import type { ImportedObject } from './live-to-manifest.js';

/** A file as compared for sharing: resolved, and without case, as macOS and Windows file systems compare. */
export function fileKey(file: string): string {
  return path.resolve(file).toLowerCase();
}

/**
 * Names that differ only in case (`Books` and `books`), or only in what a file name cannot hold, would share one
 * file: the second written over the first, with both recorded in state, and the next plan deleting the one whose
 * manifest was lost. Files are compared without case, as macOS and Windows file systems do. In code-unit order of
 * the addresses, the first of a group keeps its file and each other one takes the next free suffix (`-2`, `-3`…).
 * A file holding a manifest already (`manifests`, by fileKey: an earlier import's) is another object's, so no
 * object keeps it: refused as "would overwrite", a second import could adopt nothing whose name shares the file,
 * and the hint to move that manifest away would have the next plan delete the object it declares.
 */
export function giveDistinctFiles(planned: ImportedObject[], manifests: ReadonlySet<string>): void {
  const taken = new Set([...planned.map((p) => fileKey(p.file)), ...manifests]);
  const claimed = new Set(manifests);
  for (const p of [...planned].sort((a, b) => byCodeUnit(a.address, b.address))) {
    if (!claimed.has(fileKey(p.file))) {
      claimed.add(fileKey(p.file));
      continue;
    }
    const extension = path.extname(p.file);
    const stem = p.file.slice(0, p.file.length - extension.length);
    let n = 2;
    // Nor a file already there (an earlier import's `-2`): the import would then refuse to overwrite it.
    while (taken.has(fileKey(`${stem}-${n}${extension}`)) || existsSync(`${stem}-${n}${extension}`)) n++;
    p.file = `${stem}-${n}${extension}`;
    taken.add(fileKey(p.file));
    claimed.add(fileKey(p.file));
  }
}
