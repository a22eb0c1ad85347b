import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScrapeformError } from '../../../src/errors.js';

// readline as a terminal gives it: the answer typed, or Ctrl-C (raw mode: an AbortError, no SIGINT).
const question = vi.fn<(text: string) => Promise<string>>();
const close = vi.fn();
// Its 'close': the input ended (a terminal that closed), which settles no question readline asked.
const terminal = new EventEmitter();
vi.mock('node:readline/promises', () => ({
  createInterface: () => Object.assign(terminal, { question, close }),
}));

const { confirm } = await import('../../../src/cli/prompt.js');

afterEach(() => {
  question.mockReset();
  close.mockReset();
  terminal.removeAllListeners();
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

  it('input that ends at the question is an interruption said as such, not a silent exit 0', async () => {
    // Node's readline leaves the question unsettled when its input ends: the event loop drained, and the CLI
    // exited 0 without a word, as if the plan had been applied.
    question.mockReturnValueOnce(new Promise<string>(() => undefined));
    const asked = confirm('Apply it?').catch((e: unknown) => e);
    await vi.waitFor(() => expect(question).toHaveBeenCalled());
    terminal.emit('close');
    const error = (await asked) as ScrapeformError;
    expect(error).toBeInstanceOf(ScrapeformError);
    expect([error.code, error.status]).toEqual(['cli.interrupted', 'interrupted']);
    expect(error.message).toBe('the input ended at the question (the terminal closed): nothing was sent');
    expect(close).toHaveBeenCalledTimes(1);
  }, 5_000);

  it('any other failure of the terminal is passed on as it is', async () => {
    question.mockRejectedValueOnce(new Error('EIO: read failed'));
    await expect(confirm('Apply it?')).rejects.toThrow('EIO: read failed');
  });
});
