import { statSync } from 'node:fs';
import { ScrapeformError } from '../errors.js';

/** `--chdir DIR` (as `terraform -chdir`): everything relative is read from DIR. */
export function changeDirectory(dir: string): void {
  let isDir = false;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new ScrapeformError('cli.usage', `--chdir: ${dir} is not a folder`);
  process.chdir(dir);
}
