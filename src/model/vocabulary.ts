/**
 * The services' vocabulary, written once: the seeds' enumerations and the defaults both sides share. `manifest/`
 * (what users may write), `plan/` and `api/` (what is sent and read) and the emulator (what it accepts) all import
 * these lists, so a value added to a seed is added here and nowhere else.
 */

/** Field input types of the parser service (seed 1, "Field definition"). */
export const FIELD_TYPES = ['string', 'number', 'array'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** The scraping parameters of seed 1 ("Scraping parameters") and the JSON type each takes. */
export const SCRAPING_PARAMETERS = {
  render: 'boolean',
  country_code: 'string',
  premium: 'boolean',
  session_number: 'integer',
  keep_headers: 'boolean',
  device_type: 'string',
  ultra_premium: 'boolean',
  follow_redirect: 'boolean',
  retry_404: 'boolean',
} as const satisfies Record<string, 'boolean' | 'string' | 'integer'>;
export type ScrapingParameterName = keyof typeof SCRAPING_PARAMETERS;

/** `device_type` takes one of these. */
export const DEVICE_TYPES = ['desktop', 'mobile'] as const;

/** Scraping parameters as sent to the service: every key optional, each with its seed type. */
export interface ScraperParams {
  render?: boolean | undefined;
  country_code?: string | undefined;
  premium?: boolean | undefined;
  session_number?: number | undefined;
  keep_headers?: boolean | undefined;
  device_type?: (typeof DEVICE_TYPES)[number] | undefined;
  ultra_premium?: boolean | undefined;
  follow_redirect?: boolean | undefined;
  retry_404?: boolean | undefined;
}

/** The project types exactly as the second seed spells them (including `refin_forrent`). */
export const PROJECT_TYPES = [
  'urls',
  'amazon_product',
  'amazon_offer',
  'amazon_review',
  'amazon_search',
  'ebay_product',
  'ebay_search',
  'google_jobs',
  'google_news',
  'google_search',
  'google_shopping',
  'redfin_search',
  'redfin_agent',
  'redfin_forsale',
  'refin_forrent',
  'walmart_category',
  'walmart_product',
  'walmart_search',
  'walmart_review',
] as const;
export type ProjectType = (typeof PROJECT_TYPES)[number];

/** `scrapingInterval` names (seed 2); anything else must be a cron expression. */
export const NAMED_INTERVALS = ['hourly', 'daily', 'weekly', 'monthly'] as const;
export const NOTIFY_ON_SUCCESS = ['never', 'with_every_run', 'daily', 'weekly'] as const;
export const NOTIFY_ON_FAILURE = ['with_every_run', 'daily', 'weekly'] as const;
export const OUTPUT_FORMATS = ['JSON', 'CSV'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
export const WEBHOOK_ENCODINGS = ['multipart_form_data_encoding'] as const;

export interface WebhookOutput {
  url: string;
  webhookEncoding?: (typeof WEBHOOK_ENCODINGS)[number] | undefined;
}

export interface NotificationConfig {
  notifyOnSuccess?: (typeof NOTIFY_ON_SUCCESS)[number] | undefined;
  notifyOnFailure?: (typeof NOTIFY_ON_FAILURE)[number] | undefined;
}

/** The service's documented notification defaults (API-NOTES: what a create with only an input returned). */
export const NOTIFICATION_DEFAULTS = {
  notifyOnSuccess: 'never',
  notifyOnFailure: 'with_every_run',
} as const satisfies Required<NotificationConfig>;

/** The output format a project has when none was sent (seed 2). */
export const DEFAULT_OUTPUT_FORMAT: OutputFormat = 'JSON';

/** Top-level project keys that scrapeform diffs and that `lifecycle.ignore_changes` may name. */
export const PROJECT_DIFFABLE_KEYS = [
  'projectType',
  'projectInput',
  'scrapingInterval',
  'scheduledAt',
  'schedulingEnabled',
  'output_format',
  'webhookOutput',
  'notificationConfig',
  'apiParams',
] as const;
export type ProjectDiffableKey = (typeof PROJECT_DIFFABLE_KEYS)[number];

/** Parser status values of seed 1; others may appear (API-NOTES) and are read as "still working". */
export const PARSER_STATUSES = ['GENERATING', 'FINISHED', 'FAILED'] as const;

/** Credits per generation, from public docs (API-NOTES): creation and each add/modify regeneration. */
export const CREDITS_PER_GENERATION = 30_000;

/** Example URLs per parser: the seed and the official clients say 1 to 3 (API-NOTES). */
export const MAX_EXAMPLE_URLS = 3;

/** What `scrapeform import` writes where the service returns no description; validate warns until replaced. */
export const PLACEHOLDER_DESCRIPTION =
  'TODO: describe this field (imported: the service does not return descriptions)';

/** A description that says nothing yet: import's placeholder, or any `TODO:` (validate warns about both). */
export function isPlaceholderDescription(description: string): boolean {
  return description === PLACEHOLDER_DESCRIPTION || description.startsWith('TODO:');
}

/** Objects (and calls) in flight at once when nothing else is asked (`--concurrency`). */
export const DEFAULT_CONCURRENCY = 4;

/** Read calls (one parser's details, one project's jobs) in flight at once: reads change nothing, so more. */
export const READ_CONCURRENCY = 8;

/** The name of an environment variable as a shell exports it: what `apiKeyEnv` and `--api-key-env` take. */
export const ENVIRONMENT_VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The variable the API key is read from when nothing else names one (api/config.ts; manifest/ refuses references to
 * it).
 */
export const DEFAULT_API_KEY_ENV = 'SCRAPERAPI_API_KEY';

/** Why a `watch --heal` leaves a change out (workspace/heal-selection.ts), in the order reports list them. */
export const LEFT_REASONS = ['destructive', 'starts-runs', 'adopts', 'regeneration-budget'] as const;
export type LeftReason = (typeof LEFT_REASONS)[number];
