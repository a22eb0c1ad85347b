import type { CommandContext } from './io.js';

/**
 * How long one turn of the event loop renders plan text before it lets the calls' answers in: the CLI's thread is
 * nearly always busy once the calls run, so a longer turn holds answers back (1 ms turns were slower in the bench).
 */
const TURN_MS = 0.2;
/** The longest the rest of the plan waits for the first call (a slow state write before it) before it is printed. */
const WAIT_FOR_CALLS_MS = 200;

/**
 * A plan printed a part at a time (a change or a few each turn of the event loop, setImmediate) once apply's calls
 * have started, for a run no one is asked to approve: the plan of 1,000 creates is about 600 KB of text, and
 * rendering it at once held the first call back by 25-40 ms while the service waited (bench/scale.js, the create
 * row). Rendering before the first call (during the state write of the intents) still held it back: each step of
 * that write waited for a turn of rendering. The output is the same, byte for byte and in the same order across
 * stdout and stderr: the parts are renderPlan's lines, its trailing line breaks held back and dropped at the end;
 * progress events that come meanwhile are held (`hold`) and shown after the plan; and any other output (`context`:
 * a warning, an error, the report, a signal's message) first prints the rest of the plan at once (`finish`).
 */
export class PlanInParts {
  private parts: Iterator<string[], void> | undefined;
  private first = true;
  /** Line breaks at the end of what was rendered so far: dropped if nothing but more of them follows. */
  private breaks = '';
  private held: (() => void)[] = [];
  private waiting: NodeJS.Timeout | undefined;

  constructor(private readonly write: (text: string) => void) {}

  /** Prints the first part of `parts` now, the rest once the calls start (`hold`) or soon after. */
  start(parts: Iterable<string[]>): void {
    this.parts = parts[Symbol.iterator]();
    this.render(0, true);
    this.waiting = setTimeout(this.go, WAIT_FOR_CALLS_MS).unref();
  }

  /** Runs `show` now, or after the plan is printed when it is not yet all out. */
  hold(show: () => void): void {
    if (this.parts === undefined) return show();
    this.held.push(show);
    this.go();
  }

  /** Prints the rest of the plan now, then what was held. */
  finish(): void {
    if (this.parts === undefined) return;
    this.render(Infinity);
  }

  /** `ctx`, whose output waits for the whole plan. */
  context(ctx: CommandContext): CommandContext {
    return {
      ...ctx,
      print: (text) => {
        this.finish();
        ctx.print(text);
      },
      log: (text) => {
        this.finish();
        ctx.log(text);
      },
    };
  }

  private readonly go = (): void => {
    if (this.waiting === undefined) return;
    clearTimeout(this.waiting);
    this.waiting = undefined;
    setImmediate(this.turn);
  };

  private readonly turn = (): void => {
    if (this.render(performance.now() + TURN_MS)) setImmediate(this.turn);
  };

  /** Renders parts until `until` or the end; true when some are left. `beforeCalls`: the part printed at start. */
  private render(until: number, beforeCalls = false): boolean {
    const parts = this.parts;
    if (parts === undefined) return false;
    let text = this.breaks;
    for (;;) {
      let part: IteratorResult<string[], void>;
      try {
        part = parts.next();
      } catch (error) {
        // A defect in rendering. The first part is rendered before any call, and its error stops apply as a render
        // at once would; later ones come while the calls run, from a timer: said where the plan stops instead.
        if (beforeCalls) throw error;
        this.parts = undefined;
        const why = error instanceof Error ? error.message : String(error);
        text += `${this.first ? '' : '\n'}warning: the rest of the plan could not be printed (a bug: report it): ${why}`;
        break;
      }
      if (part.done === true) {
        this.parts = undefined;
        break;
      }
      for (const line of part.value) {
        text += this.first ? line : `\n${line}`;
        this.first = false;
      }
      if (performance.now() >= until) break;
    }
    let end = text.length;
    while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
    this.breaks = text.slice(end);
    // ctx.print's ending: renderPlan's text never ends with a line break, so one is added.
    const out = this.parts === undefined ? `${text.slice(0, end)}\n` : text.slice(0, end);
    if (out !== '') this.write(out);
    if (this.parts !== undefined) return true;
    clearTimeout(this.waiting);
    this.waiting = undefined;
    const held = this.held;
    this.held = [];
    for (const show of held) show();
    return false;
  }
}
