import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';

let loaded: typeof Yaml | undefined;

/**
 * yaml, loaded on first use. Most runs read every manifest without YAML nodes (read-plain-yaml.ts), and yaml's
 * 300 kB of modules cost about a sixth of a `validate` of one file; read synchronously (yaml is CommonJS under
 * Node) so the document model keeps its synchronous functions.
 */
export function yaml(): typeof Yaml {
  loaded ??= createRequire(import.meta.url)('yaml') as typeof Yaml;
  return loaded;
}
