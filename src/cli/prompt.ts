import { createInterface } from 'node:readline/promises';

/** Asks on the terminal (question on stderr, so stdout keeps only the chosen output); true for "yes". */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} Only "yes" is accepted: `);
    return answer.trim().toLowerCase() === 'yes';
  } finally {
    rl.close();
  }
}
