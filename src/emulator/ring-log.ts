/**
 * How many outbox messages, and how many webhook deliveries, the emulator keeps: the newest, one or more per
 * finished job. Tests and demos read a handful; 1,000 still holds a day of hourly runs of 40 projects (a webhook
 * takes up to 3 tries per job, so a third of that for failing ones), and at well under a kilobyte a record both stay
 * within a couple of megabytes in an emulator left up for weeks. The request log, one per request, keeps more.
 */
export const RECORD_LIMIT = 1_000;

/**
 * The last `capacity` records added (the request log, the outbox, webhook deliveries). Records go into a ring
 * buffer, so a full log costs O(1) per record instead of moving every record (issue 14). Readers get `view`: an
 * ordinary array, oldest first, built from the ring when first read after a change; `view.length = 0` (how tests
 * and benches clear it) empties the ring.
 */
export class RingLog<T> {
  private readonly ring: (T | undefined)[];
  /** Index of the oldest entry. */
  private start = 0;
  private size = 0;
  private readonly snapshot: T[] = [];
  private stale = false;
  /** Set by a change made through the view, which the ring has not taken yet. */
  private viewOwns = false;
  readonly view: T[];

  constructor(private readonly capacity: number) {
    this.ring = new Array<T | undefined>(capacity);
    this.view = new Proxy(this.snapshot, {
      get: (target, key, receiver) => Reflect.get(this.fresh(target), key, receiver),
      has: (target, key) => Reflect.has(this.fresh(target), key),
      ownKeys: (target) => Reflect.ownKeys(this.fresh(target)),
      getOwnPropertyDescriptor: (target, key) => Reflect.getOwnPropertyDescriptor(this.fresh(target), key),
      set: (target, key, value, receiver) =>
        this.write(() => Reflect.set(this.fresh(target), key, value, receiver)),
      deleteProperty: (target, key) => this.write(() => Reflect.deleteProperty(this.fresh(target), key)),
      defineProperty: (target, key, descriptor) =>
        this.write(() => Reflect.defineProperty(this.fresh(target), key, descriptor)),
    });
  }

  add(entry: T): void {
    if (this.viewOwns) this.adoptView();
    if (this.size < this.capacity) {
      this.ring[(this.start + this.size) % this.capacity] = entry;
      this.size++;
    } else {
      this.ring[this.start] = entry;
      this.start = (this.start + 1) % this.capacity;
    }
    this.stale = true;
  }

  clear(): void {
    this.ring.fill(undefined);
    this.start = 0;
    this.size = 0;
    this.viewOwns = false;
    this.stale = true;
  }

  /** The snapshot array brought up to date with the ring (unless changed through the view since). */
  private fresh(target: T[]): T[] {
    if (this.viewOwns || !this.stale) return target;
    target.length = this.size;
    for (let i = 0; i < this.size; i++) target[i] = this.ring[(this.start + i) % this.capacity] as T;
    this.stale = false;
    return target;
  }

  /**
   * A change made through the view (`length = 0`, a push): the view holds the truth until the next record is
   * added, so a change of several steps is seen whole; then the ring takes the view's newest entries.
   */
  private write(change: () => boolean): boolean {
    const done = change();
    this.viewOwns = true;
    return done;
  }

  private adoptView(): void {
    const entries = this.snapshot.slice(-this.capacity).filter((e) => e !== undefined);
    this.clear();
    for (const entry of entries) this.add(entry);
  }
}
