import { parseDuration } from '../duration.js';
import { holdsDate, LATEST_DATE_MS } from './clock.js';
import { checkFaults, NO_FAULTS } from './faults.js';
import { bodyObject, HttpError, json } from './http.js';
import type { EmulatorRequest, EmulatorResponse } from './http.js';
import { checkQuirksBody } from './quirks.js';
import type { RunningEmulator } from './running-emulator.js';

/** The emulator the control endpoints act on, and the write of its state after a change. */
export interface ControlTarget {
  emulator: RunningEmulator;
  save: () => void;
}

/** `/_emulator/…`: reset, the clock, faults, quirks, the request log, outbox, webhooks, accounts (docs/emulator.md). */
export function handleControl(req: EmulatorRequest, { emulator, save }: ControlTarget): EmulatorResponse {
  const [, what] = req.segments;
  if (what === 'reset' && req.method === 'POST') {
    emulator.reset();
    return json(200, { reset: true });
  }
  if (what === 'advance' && req.method === 'POST') {
    const body = req.body === undefined ? {} : bodyObject(req);
    const by = body.ms ?? body.by ?? req.query.get('ms') ?? req.query.get('by');
    const ms = typeof by === 'number' ? by : typeof by === 'string' ? parseDuration(by) : undefined;
    if (ms === undefined || ms < 0)
      throw new HttpError(400, 'give how far to advance: {"ms": 3600000} or {"by": "1h"}');
    // Refused before it moves anything: a clock past the latest date fails every answer, and is saved to --data-dir.
    if (!holdsDate(emulator.clock.now() + ms))
      throw new HttpError(
        400,
        `cannot advance by ${ms} ms: that passes ${new Date(LATEST_DATE_MS).toISOString()}, the latest date a clock holds`,
      );
    emulator.clock.advance(ms);
    save();
    return json(200, { now: emulator.clock.iso() });
  }
  if (what === 'clock' && req.method === 'GET')
    return json(200, { now: emulator.clock.iso(), offsetMs: emulator.clock.offset });
  if (what === 'faults') {
    if (req.method === 'PUT' || req.method === 'POST') emulator.setFaults(checkFaults(bodyObject(req)));
    else if (req.method === 'DELETE') emulator.setFaults({ ...NO_FAULTS });
    return json(200, emulator.faults);
  }
  if (what === 'quirks') {
    if (req.method === 'PUT' || req.method === 'POST') {
      const { names, settings } = checkQuirksBody(bodyObject(req));
      emulator.quirks.set(names ?? emulator.quirks.list(), settings);
    } else if (req.method === 'DELETE') emulator.quirks.set([]);
    return json(200, { quirks: emulator.quirks.list(), ...emulator.quirks.settings });
  }
  if (what === 'outbox' && req.method === 'GET') return json(200, emulator.projects.outbox);
  if (what === 'webhooks' && req.method === 'GET') return json(200, emulator.projects.deliveries);
  if (what === 'requests') {
    if (req.method === 'DELETE') emulator.requestLog.length = 0;
    return json(200, emulator.requestLog);
  }
  if (what === 'accounts') {
    if (req.method === 'PUT' || req.method === 'POST') {
      const body = bodyObject(req);
      if (typeof body.key !== 'string' || body.key === '' || body.credits === undefined) {
        throw new HttpError(400, 'give {"key": "...", "credits": 1000}');
      }
      // As --credits: a negative or fractional balance makes every charge answer what no account of the services can.
      const credits = body.credits;
      if (typeof credits !== 'number' || !Number.isSafeInteger(credits) || credits < 0)
        throw new HttpError(
          400,
          `"credits" takes a whole number, got ${typeof credits === 'number' ? String(credits) : JSON.stringify(credits)}`,
        );
      emulator.accounts.set(body.key, credits);
      save();
    }
    return json(
      200,
      emulator.accounts.list().map((a) => ({ key: a.key, credits: a.credits })),
    );
  }
  throw new HttpError(404, `unknown control endpoint ${req.path}`);
}
