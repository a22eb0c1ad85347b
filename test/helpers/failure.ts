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
