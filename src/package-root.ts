import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The folder of scrapeform's own package.json, found by the package's name through its `exports` (a package may
 * import itself so), not by counting folders up from this file: the same answer from src/ (tests), dist/ (the
 * library) and the bundled CLI's chunks, whose depth differs.
 */
export const PACKAGE_ROOT: string = path.dirname(
  createRequire(import.meta.url).resolve('scrapeform/package.json'),
);
