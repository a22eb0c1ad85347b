import { Cron } from 'croner';
import {
  NAMED_INTERVALS as INTERVAL_NAMES,
  NOTIFICATION_DEFAULTS,
  NOTIFY_ON_FAILURE as FAILURE_VALUES,
  NOTIFY_ON_SUCCESS as SUCCESS_VALUES,
  PROJECT_TYPES as SEED_PROJECT_TYPES,
} from '../model/vocabulary.js';
import { HttpError } from './http.js';
import type { StoredProject } from './project-records.js';
import { ONCE } from './scheduler.js';

/** The project types of seed 2, exactly as spelled there (one list with the manifest schema). */
const PROJECT_TYPES: ReadonlySet<string> = new Set(SEED_PROJECT_TYPES);
const NAMED_INTERVALS: ReadonlySet<string> = new Set(INTERVAL_NAMES);
const NOTIFY_ON_SUCCESS: ReadonlySet<string> = new Set(SUCCESS_VALUES);
const NOTIFY_ON_FAILURE: ReadonlySet<string> = new Set(FAILURE_VALUES);

type Fail = (field: string, what: string) => never;

/** Validates and applies the fields of a create or PATCH: 400 naming the field for any invalid value. */
export function applyFields(
  project: StoredProject,
  body: Record<string, unknown>,
  mode: 'create' | 'update',
): void {
  const fail: Fail = (field, what) => {
    throw new HttpError(400, `${field}: ${what}`);
  };
  for (const [key, value] of Object.entries(body)) {
    switch (key) {
      case 'name':
        if (typeof value !== 'string' || value.trim() === '') fail(key, 'must be a non-empty string');
        project.name = value as string;
        break;
      case 'schedulingEnabled':
        if (typeof value !== 'boolean') fail(key, 'must be true or false');
        project.schedulingEnabled = value as boolean;
        break;
      case 'scrapingInterval': {
        if (typeof value !== 'string') fail(key, 'must be a string');
        const interval = value as string;
        if (interval !== ONCE && !NAMED_INTERVALS.has(interval)) {
          try {
            new Cron(interval, { paused: true });
          } catch {
            fail(key, `must be once, hourly, daily, weekly, monthly or a cron expression, got "${interval}"`);
          }
        }
        project.scrapingInterval = interval;
        break;
      }
      case 'scheduledAt':
        if (typeof value !== 'string' || (value !== 'now' && Number.isNaN(Date.parse(value)))) {
          fail(key, 'must be an ISO 8601 date-time or now');
        }
        project.scheduledAt = value as string;
        break;
      case 'projectType':
        if (typeof value !== 'string' || !PROJECT_TYPES.has(value))
          fail(key, `unknown project type ${JSON.stringify(value)}`);
        project.projectType = value as string;
        break;
      case 'projectInput':
        project.projectInput = checkInput(value, fail);
        break;
      case 'webhookOutput':
        project.webhookOutput = checkWebhook(value, fail);
        break;
      case 'notificationConfig': {
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          fail(key, 'must be an object');
        const config = value as Record<string, unknown>;
        for (const k of Object.keys(config))
          if (k !== 'notifyOnSuccess' && k !== 'notifyOnFailure') fail(key, `unknown key ${k}`);
        // Replaced whole, on a PATCH as on a create: a key left out takes the service's default, never the value
        // held before. Seed 2 does not say whether an update merges nested objects (API-NOTES: unknown), and
        // scrapeform sends them whole either way (docs/emulator.md).
        const success = config.notifyOnSuccess ?? NOTIFICATION_DEFAULTS.notifyOnSuccess;
        const failure = config.notifyOnFailure ?? NOTIFICATION_DEFAULTS.notifyOnFailure;
        if (typeof success !== 'string' || !NOTIFY_ON_SUCCESS.has(success))
          fail(`${key}.notifyOnSuccess`, 'must be never, with_every_run, daily or weekly');
        if (typeof failure !== 'string' || !NOTIFY_ON_FAILURE.has(failure))
          fail(`${key}.notifyOnFailure`, 'must be with_every_run, daily or weekly');
        project.notificationConfig = {
          notifyOnSuccess: success as string,
          notifyOnFailure: failure as string,
        };
        break;
      }
      case 'apiParams':
        if (value === null || typeof value !== 'object' || Array.isArray(value))
          fail(key, 'must be an object');
        project.apiParams = value as Record<string, unknown>;
        break;
      case 'output_format':
        if (value !== 'JSON' && value !== 'CSV') fail(key, 'must be JSON or CSV');
        project.output_format = value as 'JSON' | 'CSV';
        break;
      case 'id':
      case 'createdAt':
      case 'projectOutput':
        fail(key, mode === 'create' ? 'is set by the service' : 'cannot be changed');
        break;
      default:
        fail(key, 'unknown field');
    }
  }
}

function checkInput(value: unknown, fail: Fail): StoredProject['projectInput'] {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail('projectInput', 'must be an object');
  const input = value as Record<string, unknown>;
  const type = input.type ?? 'list';
  if (type === 'list') {
    if (!Array.isArray(input.list) || input.list.some((e) => typeof e !== 'string')) {
      return fail('projectInput.list', 'must be a list of strings');
    }
    return { type: 'list', list: input.list as string[] };
  }
  if (type === 'webhook_input') {
    if (typeof input.url !== 'string' || !/^https?:\/\//.test(input.url))
      return fail('projectInput.url', 'must be an http(s) URL');
    return { type: 'webhook_input', url: input.url };
  }
  return fail('projectInput.type', 'must be list or webhook_input');
}

function checkWebhook(value: unknown, fail: Fail): StoredProject['webhookOutput'] {
  if (value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    return fail('webhookOutput', 'must be an object or null');
  const hook = value as Record<string, unknown>;
  if (typeof hook.url !== 'string' || !/^https?:\/\//.test(hook.url))
    return fail('webhookOutput.url', 'must be an http(s) URL');
  if (hook.webhookEncoding !== undefined && hook.webhookEncoding !== 'multipart_form_data_encoding') {
    return fail('webhookOutput.webhookEncoding', 'must be multipart_form_data_encoding');
  }
  return {
    url: hook.url,
    ...(hook.webhookEncoding !== undefined ? { webhookEncoding: hook.webhookEncoding as string } : {}),
  };
}
