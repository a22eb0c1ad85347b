/** The latest time a JavaScript Date holds (+275760-09-13): past it `iso()` throws, so the clock never goes there. */
export const LATEST_DATE_MS = 8.64e15;

/** Whether `ms` (since the epoch) is a time a Date holds. */
export function holdsDate(ms: number): boolean {
  return Number.isFinite(ms) && Math.abs(ms) <= LATEST_DATE_MS;
}

interface Timer {
  at: number;
  seq: number;
  run: () => void;
}

/**
 * The emulator's clock: real time plus an offset that `/_emulator/advance` moves, so tests run a week of
 * schedules in milliseconds. Timers fire when real time reaches them or when an advance passes them, in order.
 */
export class EmulatorClock {
  private offsetMs = 0;
  /** A binary min-heap on (at, seq): thousands of timers falling due at once cost O(log n) each, not a sort. */
  private timers: Timer[] = [];
  private seq = 0;
  private handle: NodeJS.Timeout | undefined;
  /** When the armed real timer fires (emulated ms), to re-arm only for an earlier timer. */
  private armedFor: number | undefined;
  /** While timers are being fired, inserts do not re-arm: the loop arms once at its end. */
  private firing = false;
  private readonly stopping = new AbortController();
  /**
   * Aborts at stop(), when the emulator closes: what runs on it (a job's page fetches, a webhook post) ends then. A
   * job left fetching pages of a site that never answers kept a program that had closed the emulator running for
   * every try of every page.
   */
  readonly stopped: AbortSignal = this.stopping.signal;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): number {
    return this.realNow() + this.offsetMs;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Runs `run` once the clock reaches `at` (ms since the epoch, emulated time); the answer drops the timer unfired. */
  at(at: number, run: () => void): () => void {
    const timer = { at, seq: this.seq++, run };
    this.push(timer);
    if (!this.firing && (this.armedFor === undefined || at < this.armedFor)) this.arm();
    return () => this.cancel(timer);
  }

  after(ms: number, run: () => void): void {
    this.at(this.now() + ms, run);
  }

  /** Moves time forward, firing every timer passed on the way in order (timers they add fire too when due). */
  advance(ms: number): void {
    const target = this.now() + Math.max(0, ms);
    this.fireUntil(target, (next) => (this.offsetMs += Math.max(0, next.at - this.now())));
    this.offsetMs += Math.max(0, target - this.now());
    this.arm();
  }

  /** How many timers wait to fire (the memory tests check it stays bounded). */
  get pending(): number {
    return this.timers.length;
  }

  get offset(): number {
    return this.offsetMs;
  }

  set offset(ms: number) {
    this.offsetMs = ms;
    this.arm();
  }

  stop(): void {
    this.stopping.abort();
    this.disarm();
    this.timers = [];
  }

  clear(): void {
    this.timers = [];
    this.arm();
  }

  private arm(): void {
    this.disarm();
    const next = this.timers[0];
    if (next === undefined || this.stopped.aborted) return;
    this.armedFor = next.at;
    this.handle = setTimeout(() => this.fireDue(), Math.min(Math.max(0, next.at - this.now()), 2 ** 31 - 1));
    this.handle.unref();
  }

  private disarm(): void {
    // Node keeps one internal list per timer length and drops an emptied one at once only when the timer cleared is
    // ref'd; an unref'd one leaves its list until its time comes, up to days for a weekly schedule. Each re-arm has
    // another length, so without the ref() every create and reset left one behind. ref() here cannot hold the process:
    // the timer is cleared in the same tick.
    if (this.handle !== undefined) clearTimeout(this.handle.ref());
    this.handle = undefined;
    this.armedFor = undefined;
  }

  /** Fires every timer already due now, without waiting for the real timer (it may be a turn or more late). */
  fireDue(): void {
    if (this.firing || this.stopped.aborted) return;
    this.armedFor = undefined;
    this.fireUntil(this.now());
    this.arm();
  }

  /** Fires timers in order while the earliest is due by `limit`; `before` runs ahead of each one. */
  private fireUntil(limit: number, before?: (next: Timer) => void): void {
    const wasFiring = this.firing;
    this.firing = true;
    try {
      for (;;) {
        const next = this.timers[0];
        if (next === undefined || next.at > limit) break;
        before?.(next);
        this.pop();
        next.run();
      }
    } finally {
      this.firing = wasFiring;
    }
  }

  /**
   * Takes a timer out of the heap if it is still there (fired or cleared ones are not): the last one fills its place.
   */
  private cancel(timer: Timer): void {
    const heap = this.timers;
    const index = heap.indexOf(timer);
    if (index === -1) return;
    const last = heap.pop() as Timer;
    if (index === heap.length) return;
    heap[index] = last;
    this.siftUp(index);
    this.siftDown(index);
  }

  private push(timer: Timer): void {
    this.timers.push(timer);
    this.siftUp(this.timers.length - 1);
  }

  private siftUp(start: number): void {
    const heap = this.timers;
    const timer = heap[start] as Timer;
    let i = start;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!earlier(timer, heap[parent] as Timer)) break;
      heap[i] = heap[parent] as Timer;
      i = parent;
    }
    heap[i] = timer;
  }

  private pop(): void {
    const heap = this.timers;
    const last = heap.pop();
    if (last === undefined || heap.length === 0) return;
    heap[0] = last;
    this.siftDown(0);
  }

  private siftDown(start: number): void {
    const heap = this.timers;
    const timer = heap[start] as Timer;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && earlier(heap[right] as Timer, heap[left] as Timer) ? right : left;
      if (!earlier(heap[child] as Timer, timer)) break;
      heap[i] = heap[child] as Timer;
      i = child;
    }
    heap[i] = timer;
  }
}

function earlier(a: Timer, b: Timer): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
