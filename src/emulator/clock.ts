/**
 * The emulator's clock: real time plus an offset that `/_emulator/advance` moves, so tests run a week of
 * schedules in milliseconds. Timers fire when real time reaches them or when an advance passes them, in order.
 */
export class EmulatorClock {
  private offsetMs = 0;
  private timers: { at: number; seq: number; run: () => void }[] = [];
  private seq = 0;
  private handle: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): number {
    return this.realNow() + this.offsetMs;
  }

  iso(): string {
    return new Date(this.now()).toISOString();
  }

  /** Runs `run` once the clock reaches `at` (ms since the epoch, emulated time). */
  at(at: number, run: () => void): void {
    this.timers.push({ at, seq: this.seq++, run });
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    this.arm();
  }

  after(ms: number, run: () => void): void {
    this.at(this.now() + ms, run);
  }

  /** Moves time forward, firing every timer passed on the way in order (timers they add fire too when due). */
  advance(ms: number): void {
    const target = this.now() + Math.max(0, ms);
    for (;;) {
      const next = this.timers[0];
      if (next === undefined || next.at > target) break;
      this.offsetMs += Math.max(0, next.at - this.now());
      this.timers.shift();
      next.run();
    }
    this.offsetMs += Math.max(0, target - this.now());
    this.arm();
  }

  get offset(): number {
    return this.offsetMs;
  }

  set offset(ms: number) {
    this.offsetMs = ms;
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    if (this.handle !== undefined) clearTimeout(this.handle);
    this.timers = [];
  }

  clear(): void {
    this.timers = [];
    this.arm();
  }

  private arm(): void {
    if (this.handle !== undefined) clearTimeout(this.handle);
    this.handle = undefined;
    const next = this.timers[0];
    if (next === undefined || this.stopped) return;
    this.handle = setTimeout(() => this.fireDue(), Math.min(Math.max(0, next.at - this.now()), 2 ** 31 - 1));
    this.handle.unref();
  }

  private fireDue(): void {
    const now = this.now();
    while (this.timers[0] !== undefined && this.timers[0].at <= now) this.timers.shift()?.run();
    this.arm();
  }
}
