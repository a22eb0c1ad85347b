/** Runs `work` over the items with at most `limit` in flight, started in the order given. */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(workers);
}

/**
 * A number of permits taken in the order asked for (first come, first served): apply's calls in flight
 * (`--concurrency`) and generations in flight (`--max-generating`).
 */
export class Permits {
  private free: number;
  private readonly queue: (() => void)[] = [];

  constructor(readonly limit: number) {
    this.free = Math.max(1, limit);
  }

  /** Takes a permit, waiting in line; `first` goes to the front (work already under way, finishing). */
  async take(first = false): Promise<void> {
    if (this.free > 0 && this.queue.length === 0) {
      this.free--;
      return;
    }
    await new Promise<void>((resolve) => (first ? this.queue.unshift(resolve) : this.queue.push(resolve)));
  }

  give(): void {
    const next = this.queue.shift();
    // The permit passes straight to the next in line, so none can overtake it.
    if (next !== undefined) next();
    else this.free++;
  }

  /** Runs `work` holding one permit (`first`: taken ahead of those waiting). */
  async with<T>(work: () => Promise<T>, first = false): Promise<T> {
    await this.take(first);
    try {
      return await work();
    } finally {
      this.give();
    }
  }
}
