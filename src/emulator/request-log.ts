import { RingLog } from './ring-log.js';

export interface RequestLogEntry {
  at: string;
  method: string;
  /** Path and query with the key redacted. */
  path: string;
  status: number;
  durationMs: number;
  fault?: string;
}

/** The last `capacity` service requests, oldest first in `view` (GET /_emulator/requests). */
export class RequestLog extends RingLog<RequestLogEntry> {}
