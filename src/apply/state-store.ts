import type { StateBackend } from '../state/backend.js';
import type { State } from '../state/model.js';
import type { SentMark } from '../state/sent-journal.js';

/** How long a commit may wait in memory before it is written (more commits in that time share one write). */
export const STATE_WRITE_WINDOW_MS = 50;

/**
 * How long a write may take before it holds back the calls after it. Far above what a write takes (under 15 ms
 * on a local disk, up to about 70 ms while the process is busy with 1,000 creates: that time counts too), so it
 * holds nothing back while writes keep up, and stops the calls within a second of a write that hangs.
 */
export const STATE_WRITE_LATE_MS = 1_000;

/**
 * The state in memory, written through the backend in coalesced writes: a commit changes the state at once and is
 * written within `windowMs`, together with every other commit of that window, one write at a time. `durable()`
 * writes at once and waits; apply calls it before a call whose outcome depends on what state holds, on Ctrl-C and
 * before it returns.
 *
 * A SIGKILL inside the window loses the commits not yet written, exactly as a SIGKILL between a call and its
 * write always could: the next plan finds those objects by name (crash-recovery tests). That a call recorded ahead
 * is being sent is not left to the window where the backend can record it cheaply (`sent`, the file's journal): a
 * list lagging behind a create would show nothing by name, and the call read as never sent would be made again.
 * No copy is taken: the backend serialises the state in one synchronous step, so what it writes is always a state
 * between two commits.
 *
 * A write that takes longer than `lateMs` holds back every commit made meanwhile until it ends (and the commits
 * are written): apply awaits each commit before its next call, so a write that hangs (a database gone silent,
 * perhaps with the lock taken over by another run) stops the calls within a second, not when the write times out.
 * Otherwise every create made meanwhile would be sent with nothing recorded, for the other run to create again.
 */
export class StateStore {
  /** Commits made so far, and how many of them are on disk. */
  private committed = 0;
  private written = 0;
  private writing: Promise<void> | undefined;
  /** When the write under way started (monotonicMs()). */
  private writeStarted = 0;
  private timer: NodeJS.Timeout | undefined;
  private failure: unknown;
  /** Marks for the backend's journal (`sent`), appended together once per turn of the event loop. */
  private marks: { mark: SentMark; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private readonly failing = new AbortController();
  /**
   * Aborts when a write fails: a wait for a generation stops then (nothing it would see can be recorded), instead of
   * holding the run, and the error that names what was not recorded, until the generation ends or the wait times out.
   */
  readonly failedSignal: AbortSignal = this.failing.signal;

  constructor(
    private readonly backend: StateBackend,
    public current: State,
    private readonly windowMs = STATE_WRITE_WINDOW_MS,
    private readonly lateMs = STATE_WRITE_LATE_MS,
  ) {}

  /**
   * Changes the state now; it is written within the window. Resolves at once while writes keep up, and rejects once
   * a write has failed (nothing more should be sent that state cannot record). While a write has taken longer than
   * `lateMs`, it resolves only once this commit is written.
   */
  commit(mutate: (state: State) => void): Promise<void> {
    mutate(this.current);
    this.committed++;
    if (this.failure !== undefined) return Promise.reject(this.failure as Error);
    if (this.writing !== undefined && monotonicMs() - this.writeStarted > this.lateMs) return this.durable();
    if (this.timer === undefined && this.writing === undefined) {
      this.timer = setTimeout(() => void this.durable().catch(() => undefined), this.windowMs);
    }
    return Promise.resolve();
  }

  /**
   * Writes every commit made so far (at once, or right after the write under way) and waits for it. Commits made
   * while it waits are not its own: they are written within the window (writeNow). Waiting for them too, the write
   * the window's timer started went on writing back to back for as long as commits came (a write every 15 ms
   * through 1,000 creates, about 30 serialisations of the whole state instead of about 8).
   */
  async durable(): Promise<void> {
    const upTo = this.committed;
    for (;;) {
      if (this.failure !== undefined) throw this.failure;
      if (this.written >= upTo) return;
      if (this.writing !== undefined) {
        await this.writing;
        continue;
      }
      this.writing = this.writeNow();
      await this.writing;
    }
  }

  /**
   * Writes the state now, changed or not, and waits: the backend checks with every write that the lock is still
   * this run's, so a call that cannot be undone is never sent by a run that lost it.
   */
  lockConfirmed(): Promise<void> {
    this.committed++;
    return this.durable();
  }

  /**
   * Records where a kill cannot lose it that the call recorded ahead at `address` is about to be sent (the state in
   * memory is marked by the caller's commit first); resolves once it is, at once for a backend with no such record
   * (StateBackend.markSent). One append per turn of the event loop carries every mark made in it. A failed append
   * fails the store as a failed write does: nothing more is sent.
   */
  sent(address: string, kind: SentMark['kind'], at: string): Promise<void> {
    if (this.backend.markSent === undefined) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failure as Error);
    const mark = { address, kind, sent: at, lineage: this.current.lineage };
    return new Promise((resolve, reject) => {
      if (this.marks.push({ mark, resolve, reject }) === 1) setImmediate(() => this.appendMarks());
    });
  }

  private appendMarks(): void {
    const batch = this.marks;
    this.marks = [];
    const append = this.backend.markSent?.(batch.map((b) => b.mark)) ?? Promise.resolve();
    append.then(
      () => {
        for (const b of batch) b.resolve();
      },
      (error: unknown) => {
        this.failure ??= error;
        this.failing.abort(this.failure);
        for (const b of batch) b.reject(this.failure);
      },
    );
  }

  /** The error of the write that failed, if one has: nothing is sent after it, since state could not record it. */
  get failed(): unknown {
    return this.failure;
  }

  /** What apply awaits before it returns: every commit on disk, those made while it waits included. */
  async flushed(): Promise<void> {
    do await this.durable();
    while (this.written < this.committed);
  }

  private async writeNow(): Promise<void> {
    // This write carries every commit made so far: the window's timer has nothing left to write.
    clearTimeout(this.timer);
    this.timer = undefined;
    const upTo = this.committed;
    this.writeStarted = monotonicMs();
    try {
      const written = await this.backend.write(this.current);
      this.current.serial = written.serial;
      this.current.lineage = written.lineage;
      this.written = upTo;
    } catch (error) {
      this.failure = error;
      this.failing.abort(error);
    } finally {
      this.writing = undefined;
    }
    // Commits made while this write ran are written within the window too.
    if (this.failure === undefined && this.written < this.committed && this.timer === undefined) {
      this.timer = setTimeout(() => void this.durable().catch(() => undefined), this.windowMs);
    }
  }
}

/**
 * Milliseconds of a clock that only goes forward. Not performance.now(): Node loads perf_hooks on the first use of
 * that global, about 3 ms of the start of every apply, just before its first call (bench/scale.js, the creates).
 */
function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
