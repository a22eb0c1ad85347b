import { ScrapeformError } from '../errors.js';
import type { ParserState, ProjectState, State } from '../state/model.js';

/** The state entry of a managed parser, or a clear error naming what is managed. */
export function managedParser(state: State, address: string): ParserState & { address: string } {
  const full = normaliseAddress(address, 'parser');
  const resource = state.resources[full];
  if (resource?.kind !== 'Parser') throw notManaged(state, address, 'Parser');
  return { ...resource, address: full };
}

export function managedProject(state: State, address: string): ProjectState & { address: string } {
  const full = normaliseAddress(address, 'project');
  const resource = state.resources[full];
  if (resource?.kind !== 'Project') throw notManaged(state, address, 'Project');
  return { ...resource, address: full };
}

/** `books-product` is taken as `parser.books-product` (or project.) when the kind is clear from the command. */
function normaliseAddress(address: string, kind: 'parser' | 'project'): string {
  return address.startsWith(`${kind}.`) ? address : `${kind}.${address}`;
}

function notManaged(state: State, address: string, kind: 'Parser' | 'Project'): ScrapeformError {
  const known = Object.entries(state.resources)
    .filter(([, r]) => r.kind === kind)
    .map(([a]) => a)
    .sort();
  return new ScrapeformError('cli.unknown-address', `${address} is not a managed ${kind.toLowerCase()}`, {
    hint:
      known.length > 0
        ? `managed: ${known.join(', ')}`
        : 'nothing is managed yet: run scrapeform apply (or import) first',
  });
}
