/** The library API that the CLI uses; everything a program needs to drive scrapeform without the CLI. */
export { loadManifests } from './manifest/load-manifests.js';
export type { LoadedManifests, LoadManifestsOptions } from './manifest/load-manifests.js';
export type { Diagnostic } from './manifest/diagnostic.js';
export { manifestJsonSchema } from './manifest/json-schema.js';
export type * from './model/desired.js';
export { ScrapeformError } from './errors.js';
export { runCli } from './cli/main.js';
export { VERSION } from './version.js';
