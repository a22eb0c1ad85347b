import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScrapeformError } from '../../../src/errors.js';

// readline as a terminal gives it: the answer typed, or Ctrl-C (raw mode: an AbortError, no SIGINT).
const question = vi.fn<(text: string) => Promise<string>>();
const close = vi.fn();
vi.mock('node:readline/promises', () => ({
  createInterface: () => ({ question, close }),
}));

const { confirm } = await import('../../../src/cli/prompt.js');

afterEach(() => {
  question.mockReset();
  close.mockReset();
});

describe('confirm', () => {
  it('is true only for "yes"', async () => {
    question.mockResolvedValueOnce(' YES \n').mockResolvedValueOnce('y');
    expect(await confirm('Apply it?')).toBe(true);
    expect(await confirm('Apply it?')).toBe(false);
    expect(question).toHaveBeenCalledWith('Apply it? Only "yes" is accepted: ');
    expect(close).toHaveBeenCalledTimes(2);
  });

  it('Ctrl-C at the question is an interruption (exit 130), not an internal error', async () => {
    question.mockRejectedValueOnce(Object.assign(new Error('Aborted with Ctrl+C'), { name: 'AbortError' }));
    const error = (await confirm('Apply it?').catch((e: unknown) => e)) as ScrapeformError;
    expect(error).toBeInstanceOf(ScrapeformError);
    expect(error.code).toBe('cli.interrupted');
    expect(error.status).toBe('interrupted');
    expect(error.message).toBe('interrupted at the question: nothing was sent');
    expect(close).toHaveBeenCalledTimes(1);
  });

  it('any other failure of the terminal is passed on as it is', async () => {
    question.mockRejectedValueOnce(new Error('EIO: read failed'));
    await expect(confirm('Apply it?')).rejects.toThrow('EIO: read failed');
  });
});
