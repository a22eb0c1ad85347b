import type { EmulatorOptions, RunningEmulator } from './server.js';

/**
 * The library's `startEmulator`: the emulator and its HTML stack (cheerio, parse5, xpath) are loaded by the first
 * call, not by every program that imports scrapeform to plan or apply.
 */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const server = await import('./server.js');
  return server.startEmulator(options);
}
