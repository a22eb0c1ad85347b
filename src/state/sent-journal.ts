import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import type { State } from './model.js';

/**
 * A call recorded ahead with the whole plan (a create's intent, an update's first PATCH) that is about to be sent:
 * `sent` is when, and `lineage` the state it belongs to.
 */
export interface SentMark {
  address: string;
  kind: 'create' | 'patch';
  sent: string;
  lineage: string;
}

/**
 * The file state's journal of calls about to be sent (`<state file>.sent`, a JSON line each). A call recorded ahead
 * with the whole plan is marked `sent` in state by the next coalesced write, after it went out (issue 14): a run
 * killed in that window, or whose next write failed, left an intent that read as never sent, and the next plan,
 * its list lagging behind the create (docs/real-services.md, reading 1), made it again: a paid duplicate. So each
 * is appended here first, a few hundred bytes written with one system call per turn of the event loop, which the
 * process being killed cannot undo (no fsync: a machine that loses power may lose the last lines, as it may the
 * coalesced write). Reading state merges the marks in; a write of the state that carries every mark removes it.
 */
export class SentJournal {
  readonly path: string;

  constructor(stateFile: string) {
    this.path = `${stateFile}.sent`;
  }

  /** The marks the journal holds; a line cut short or not a mark is skipped (nothing was sent after it). */
  read(): SentMark[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      return [];
    }
    return text.split('\n').flatMap((line) => {
      try {
        const mark: unknown = JSON.parse(line);
        return isSentMark(mark) ? [mark] : [];
      } catch {
        return [];
      }
    });
  }

  /**
   * Appends `marks` in one write; once it returns, a kill of this process no longer loses them. The file is opened
   * for each append and closed after it: a handle kept open across runs (watch's heal runs) could write to a journal
   * another run had removed meanwhile, and on Windows a file opened to append cannot be truncated through it.
   */
  append(marks: readonly SentMark[]): void {
    if (marks.length === 0) return;
    const bytes = Buffer.from(marks.map((mark) => `${JSON.stringify(mark)}\n`).join(''));
    const fd = openSync(this.path, 'a');
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    } finally {
      closeSync(fd);
    }
  }

  /** What the journal holds now (its size on disk): taken as a state write is serialised, which carries all of it. */
  get length(): number {
    return statSync(this.path, { throwIfNoEntry: false })?.size ?? 0;
  }

  /**
   * Removes the journal once a state write carried all of it: when the file still holds `upTo` bytes (nothing was
   * appended since). Called under the state lock (a write checks it), so no other run appends meanwhile.
   */
  clearUpTo(upTo: number): void {
    if (upTo === 0 || this.length !== upTo) return;
    rmSync(this.path, { force: true });
  }
}

/** A mark as this version writes it; anything else (a line cut short, a kind of another version) is skipped. */
export function isSentMark(value: unknown): value is SentMark {
  const mark = value as Partial<SentMark> | null;
  return (
    typeof mark?.address === 'string' &&
    (mark.kind === 'create' || mark.kind === 'patch') &&
    typeof mark.sent === 'string' &&
    typeof mark.lineage === 'string'
  );
}

/**
 * Marks the calls the journal says were about to be sent, on the state they belong to (same lineage): a create's
 * intent, or an update's PATCH intent, not marked yet. One no longer there (recorded, taken back) is left alone.
 */
export function mergeSentMarks(state: State, marks: readonly SentMark[]): State {
  for (const mark of marks) {
    if (mark.lineage !== state.lineage) continue;
    if (mark.kind === 'create') {
      const intent = state.intents?.[mark.address];
      if (intent !== undefined && intent.sent === undefined) intent.sent = mark.sent;
      continue;
    }
    const resource = state.resources[mark.address];
    if (
      resource?.kind === 'Parser' &&
      resource.patching !== undefined &&
      resource.patching.sent === undefined
    )
      state.resources[mark.address] = { ...resource, patching: { ...resource.patching, sent: mark.sent } };
  }
  return state;
}
