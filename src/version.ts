import { createRequire } from 'node:module';

/** The package version, read from package.json by the package's own name (see package-root.ts). */
export const VERSION: string = (
  createRequire(import.meta.url)('scrapeform/package.json') as { version: string }
).version;
