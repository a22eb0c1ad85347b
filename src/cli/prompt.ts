import { ScrapeformError } from '../errors.js';
import { flushPendingOutput } from './io.js';

/**
 * Asks on the terminal (question on stderr, so stdout keeps only the chosen output); true for "yes". Ctrl-C at
 * the question (readline's AbortError: the terminal is in raw mode, so no SIGINT comes) is an interruption: exit
 * 130, nothing done.
 */
export async function confirm(question: string): Promise<boolean> {
  // Loaded here: only a person at a terminal is asked anything.
  const { createInterface } = await import('node:readline/promises');
  // The plan and any warning before it (or written while readline loaded) are on the terminal before the question.
  flushPendingOutput();
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  // readline settles no question when its input ends other than by Ctrl-C or Ctrl-D (a terminal that closed): the
  // event loop then drained and the CLI exited 0 without a word, as if applied. A turn later, so that Ctrl-C and
  // Ctrl-D (which close it, then reject the question) are still said as themselves.
  const ended = new Promise<never>((_, reject) =>
    rl.once('close', () => setImmediate(() => reject(inputEnded()))),
  );
  try {
    const answer = await Promise.race([rl.question(`${question} Only "yes" is accepted: `), ended]);
    return answer.trim().toLowerCase() === 'yes';
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') {
      throw new ScrapeformError('cli.interrupted', 'interrupted at the question: nothing was sent', {
        status: 'interrupted',
      });
    }
    throw error;
  } finally {
    rl.close();
  }
}

function inputEnded(): ScrapeformError {
  return new ScrapeformError(
    'cli.interrupted',
    'the input ended at the question (the terminal closed): nothing was sent',
    { status: 'interrupted' },
  );
}
