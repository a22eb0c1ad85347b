import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Diagnostic } from './diagnostic.js';

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml']);

/**
 * Lists manifest files under the given paths: folders are walked recursively for `*.yaml`/`*.yml`, skipping
 * hidden folders and `node_modules`; a file named explicitly is read whatever its extension.
 */
export async function discoverManifestFiles(
  paths: readonly string[],
): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const files = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const given of paths.length > 0 ? paths : ['.']) {
    let info;
    try {
      info = await stat(given);
    } catch {
      diagnostics.push({
        severity: 'error',
        code: 'manifest.path-not-found',
        file: given,
        line: 0,
        column: 0,
        path: '',
        message: 'no such file or folder',
      });
      continue;
    }
    if (info.isDirectory()) await walk(given, files);
    else files.add(given);
  }
  return { files: [...files].sort(), diagnostics };
}

async function walk(dir: string, out: Set<string>): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      await walk(full, out);
    } else if (entry.isFile() && MANIFEST_EXTENSIONS.has(path.extname(entry.name).toLowerCase())) {
      out.add(full);
    }
  }
}
