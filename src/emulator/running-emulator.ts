import type { Accounts } from './accounts.js';
import type { EmulatorClock } from './clock.js';
import type { Faults } from './faults.js';
import type { ParserService } from './parser-service.js';
import type { ProjectService } from './project-service.js';
import type { Quirks } from './quirks.js';
import type { RequestLogEntry } from './request-log.js';

/**
 * A started emulator (server.ts starts it): what its control endpoints (control-endpoints.ts), the CLI and tests
 * reach into. A file of its own so the control endpoints, which the server routes to, need not import the server.
 */
export interface RunningEmulator {
  /** The origin, such as http://127.0.0.1:8780: both services live under it. */
  url: string;
  apiKeys: string[];
  clock: EmulatorClock;
  parsers: ParserService;
  projects: ProjectService;
  accounts: Accounts;
  faults: Faults;
  requestLog: RequestLogEntry[];
  /** The quirks switched on; `quirks.set([...])` changes them (as PUT /_emulator/quirks does). */
  quirks: Quirks;
  setFaults(faults: Partial<Faults>): void;
  reset(): void;
  /** Waits until no generation is pending (tests); answers a cleared response delay let go are sent by then. */
  idle(): Promise<void>;
  close(): Promise<void>;
}
