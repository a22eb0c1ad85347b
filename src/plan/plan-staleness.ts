import type { Plan } from './model.js';

/**
 * Pure: what moved since a saved plan was made (DESIGN section 4): another state lineage, a newer serial, or a live
 * object whose version or digest changed. Empty when the plan still applies exactly.
 */
export function findStaleness(
  saved: Plan,
  fresh: Plan,
  state: { lineage: string; serial: number },
): string[] {
  const moved: string[] = [];
  if (saved.fingerprint.state_lineage !== state.lineage)
    moved.push('the state is another one (lineage differs)');
  else if (saved.fingerprint.state_serial !== state.serial)
    moved.push(`the state moved (serial ${saved.fingerprint.state_serial} -> ${state.serial})`);
  for (const [address, seen] of Object.entries(saved.fingerprint.live)) {
    const now = fresh.fingerprint.live[address];
    if (now !== seen) moved.push(`${address} moved (${seen} -> ${now ?? 'gone'})`);
  }
  return moved;
}
