/**
 * The package version, as package.json says (test/unit/version.test.ts checks they agree). Written here rather than
 * read at start: resolving the package's own package.json by name through its `exports` cost about 2 ms of every
 * command's start (BENCHMARKS.md, issue 14).
 */
export const VERSION = '0.1.0';
