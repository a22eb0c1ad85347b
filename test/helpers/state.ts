import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import type { ParserState, State } from '../../src/state/model.js';

/** A state of serial 1 holding these resources. */
export function stateOf(resources: State['resources']): State {
  return { format_version: 1, serial: 1, lineage: 'L', resources };
}

/** A parser state as apply records a FINISHED version 0 (whatever `overrides` change). */
export function parserState(overrides: Partial<ParserState> & Pick<ParserState, 'definition'>): ParserState {
  return { kind: 'Parser', id: 'p-1', name: 'books', version: 0, descriptionsKnown: true, ...overrides };
}

/** A state lock as a live process of this machine (this one) holds it: not stale, so a run waits for it. */
export function heldByLiveProcess(): Record<string, unknown> {
  return {
    holder: 'ci@elsewhere',
    host: hostname(),
    pid: process.pid,
    started: new Date().toISOString(),
    operation: 'apply',
  };
}

/** A state lock as a process of this machine that has ended held it: stale, so the next run takes it over. */
export async function heldByDeadProcess(): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  if (child.pid === undefined) throw new Error('no pid');
  return {
    holder: 'ci@here',
    host: hostname(),
    pid: child.pid,
    started: '2026-01-01T00:00:00.000Z',
    operation: 'apply',
  };
}
