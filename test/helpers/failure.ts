import { ScrapeformError } from '../../src/errors.js';

/** The code and message of the ScrapeformError `run` throws; anything else it throws, or nothing, fails the test. */
export function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof ScrapeformError) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a ScrapeformError');
}

/** The ScrapeformError `run` throws, or undefined when it throws nothing (anything else it throws fails the test). */
export function thrown(run: () => unknown): ScrapeformError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof ScrapeformError) return error;
    throw error;
  }
}

/** The ScrapeformError `run` rejects with; anything else it rejects with, or nothing, fails the test. */
export async function rejection(run: () => Promise<unknown>): Promise<ScrapeformError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof ScrapeformError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}
