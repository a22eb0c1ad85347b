import { formatDuration } from '../duration.js';
import type { Colors } from '../output/colors.js';

interface Line {
  text: string;
  /** While set, the line shows how long it has been in this state, redrawn every second. */
  since?: number;
}

/**
 * One line per object on a terminal, redrawn in place (`parser.books-product  GENERATING  42s`), so a person sees
 * the state of every object at once; CI logs get plain lines instead (see apply's progress).
 */
export class LiveProgress {
  private readonly lines = new Map<string, Line>();
  private drawn = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (text: string) => void,
    private readonly colors: Colors,
    private readonly now: () => number = Date.now,
  ) {}

  /** Sets an object's line; `ticking` makes it show the time spent in this state. */
  set(address: string, text: string, ticking = false): void {
    this.lines.set(address, { text, ...(ticking ? { since: this.now() } : {}) });
    if (ticking && this.timer === undefined) {
      this.timer = setInterval(() => this.draw(), 1000);
      this.timer.unref();
    }
    this.draw();
  }

  /** Stops redrawing; the last frame stays on screen. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.draw();
  }

  private draw(): void {
    const width = Math.max(...[...this.lines.keys()].map((a) => a.length), 0);
    let frame = this.drawn > 0 ? `\u001b[${this.drawn}A` : '';
    for (const [address, line] of this.lines) {
      const elapsed = line.since !== undefined ? `  ${formatDuration(this.now() - line.since)}` : '';
      frame += `\u001b[2K${this.colors.bold(address.padEnd(width))}  ${line.text}${elapsed}\n`;
    }
    this.drawn = this.lines.size;
    this.write(frame);
  }
}
