import { READ_CONCURRENCY } from '../model/vocabulary.js';
import type { ResourceChange } from '../plan/model.js';
import type { Permits } from '../worker-pool.js';
import type { CallSlot, ChangeResult, RegenerationHooks } from './apply-model.js';

interface Task {
  work: (call: CallSlot) => Promise<void>;
  state: 'queued' | 'running' | 'done';
  done: Promise<void>;
  finish: () => void;
}

/**
 * Runs the hooks of an apply's regenerating changes out of the way of its generations. Hook work waits in a queue
 * and goes while no regenerating change is starting (between taking its generation permit and making the call that
 * starts its generation), READ_CONCURRENCY at a time: a wave's calls then go out together, not among the reads of
 * the wave that just finished, which on a busy client or service would hold every next generation back. A change
 * whose turn comes before its beforeFirstCall ran runs it at once, with the call permit of its first call.
 */
export class HookRunner {
  private readonly queue: Task[] = [];
  /** The beforeFirstCall of each change queued ahead of its turn, by address. */
  private readonly ahead = new Map<string, Task>();
  /** Regenerating changes with a generation permit that have not yet made the call that starts it. */
  private readonly starting = new Set<string>();
  private readonly regenerating: ResourceChange[];
  private granted = 0;
  private nextAhead = 0;
  private running = 0;
  private pumpQueued = false;
  private readonly limit: number;

  constructor(
    private readonly hooks: RegenerationHooks,
    changes: readonly ResourceChange[],
    /** How far ahead of its turn a change's beforeFirstCall may run: `--max-generating`, one wave. */
    private readonly lookahead: number,
    private readonly calls: Permits,
    private readonly interrupted: () => boolean,
  ) {
    this.regenerating = changes.filter((c) => c.regenerates);
    this.limit = Math.max(1, Math.min(calls.limit, READ_CONCURRENCY));
  }

  /**
   * The change took its generation permit (in plan order, as the permits are given): it is starting until
   * `settled`, and the changes now within one wave of their turn queue their beforeFirstCall.
   */
  grant(change: ResourceChange): void {
    this.starting.add(change.address);
    this.granted++;
    if (this.hooks.beforeFirstCall === undefined) return;
    this.nextAhead = Math.max(this.nextAhead, this.granted);
    const end = Math.min(this.regenerating.length, this.granted + this.lookahead);
    while (this.nextAhead < end) {
      const next = this.regenerating[this.nextAhead++] as ResourceChange;
      const task = this.task((call) => this.before(next, call));
      this.ahead.set(next.address, task);
      this.queue.push(task);
    }
    this.pumpSoon();
  }

  /** Its beforeFirstCall, done before its first call: with that call's permit when it has not run ahead. */
  async beforeFirstCall(change: ResourceChange): Promise<void> {
    const task = this.ahead.get(change.address);
    this.ahead.delete(change.address);
    if (task?.state === 'running' || task?.state === 'done') return task.done;
    if (task !== undefined) {
      this.queue.splice(this.queue.indexOf(task), 1);
      task.finish();
    }
    await this.before(change, (work) => work());
  }

  /** The change made the call that starts its generation, or ended: hook work goes once none is starting. */
  settled(change: ResourceChange): void {
    if (this.starting.delete(change.address)) this.pumpSoon();
  }

  /** Its afterFinished, queued: resolves once it ran (or, after Ctrl-C, was dropped). */
  afterFinished(change: ResourceChange, result: ChangeResult): Promise<void> {
    const after = this.hooks.afterFinished;
    if (after === undefined) return Promise.resolve();
    const task = this.task((call) => watch(() => after(change, result, call)));
    this.queue.push(task);
    this.pumpSoon();
    return task.done;
  }

  private async before(change: ResourceChange, call: CallSlot): Promise<void> {
    const before = this.hooks.beforeFirstCall;
    if (before !== undefined) await watch(() => before(change, call));
  }

  private task(work: Task['work']): Task {
    let finish = (): void => undefined;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const task: Task = {
      work,
      state: 'queued',
      done,
      finish: () => {
        task.state = 'done';
        finish();
      },
    };
    return task;
  }

  /**
   * Looks at the queue once what is running now has settled: a change that gave its generation permit back hands
   * it on in a later microtask, and the change that takes it is starting then, ahead of this change's hook work.
   */
  private pumpSoon(): void {
    if (this.pumpQueued) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.starting.size === 0 && this.running < this.limit && this.queue.length > 0) {
      const task = this.queue.shift() as Task;
      // After Ctrl-C no new call starts: queued hook work is dropped.
      if (this.interrupted()) {
        task.finish();
        continue;
      }
      task.state = 'running';
      this.running++;
      void task
        .work((work) => this.calls.with(work))
        .finally(() => {
          this.running--;
          task.finish();
          this.pump();
        });
    }
  }
}

/** Runs a hook: it only watches, so whatever it throws is not the change's failure. */
async function watch(hook: () => Promise<void>): Promise<void> {
  try {
    await hook();
  } catch {
    // The workspace's hooks catch their own read errors; this keeps any other from failing a change.
  }
}
