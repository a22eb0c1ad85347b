import { flushPendingOutput } from './io.js';

/** Asks on the terminal (question on stderr, so stdout keeps only the chosen output); true for "yes". */
export async function confirm(question: string): Promise<boolean> {
  // Loaded here: only a person at a terminal is asked anything.
  const { createInterface } = await import('node:readline/promises');
  // The plan and any warning before it (or written while readline loaded) are on the terminal before the question.
  flushPendingOutput();
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} Only "yes" is accepted: `);
    return answer.trim().toLowerCase() === 'yes';
  } finally {
    rl.close();
  }
}
