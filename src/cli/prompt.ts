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
  try {
    const answer = await rl.question(`${question} Only "yes" is accepted: `);
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
