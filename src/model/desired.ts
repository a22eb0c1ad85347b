import type {
  FieldType,
  NotificationConfig,
  OutputFormat,
  ProjectDiffableKey,
  ProjectType,
  ScraperParams,
  WebhookOutput,
} from './vocabulary.js';

export type { FieldType, ProjectDiffableKey, ProjectType } from './vocabulary.js';

/** Where a manifest came from, for messages that point back at it. */
export interface ManifestSource {
  file: string;
  line: number;
  column: number;
  /**
   * For an object made by `for_each` or built on templates (`extends`): where its values come from besides its
   * own manifest, for plan and render to show. Absent for a plain manifest.
   */
  origin?: SourceOrigin[];
}

/** One contribution to an object: the for_each element that made it, or a template it extends. */
export interface SourceOrigin {
  role: 'for_each' | 'extends';
  /** `for_each[3]`, `country=de, category=poetry`, or `ParserTemplate "product-page"`. */
  label: string;
  file: string;
  line: number;
  column: number;
}

/** A field as the parser service takes it: flattened to dot notation, with its full definition. */
export interface DesiredField {
  /** Dot notation: `reviews.author`. */
  name: string;
  description: string;
  type?: FieldType;
  selector?: string;
}

/** A rename hint: the field now called `to` was called `from` (both in dot notation, `from` as last applied). */
export interface DesiredRename {
  from: string;
  to: string;
}

/**
 * A moved hint, as Terraform's `moved { from, to }`: the object state knows at `from` is the one declared at `to`
 * now, so the plan moves its state entry instead of deleting it and creating another.
 */
export interface DesiredMove {
  from: string;
  to: string;
  /** Where the hint is written, for messages. */
  place: { file: string; line: number; column: number };
}

export interface ExpectCheck {
  url: string;
  result: Record<string, unknown>;
}

/** A parser as the manifests want it, independent of how it was written. */
export interface DesiredParser {
  kind: 'Parser';
  address: `parser.${string}`;
  name: string;
  urls: string[];
  /** Keys sorted, so two spellings of the same parameters compare equal. */
  scraperParams: ScraperParams;
  /** Parents before their children, siblings in the order written. */
  fields: DesiredField[];
  renames: DesiredRename[];
  preventDestroy: boolean;
  /**
   * `adopt: true`: apply may take over a live parser of this name that no state manages, without --allow-adopt.
   * Optional so objects built elsewhere (tests, the library) need not say it: absent means no consent.
   */
  adopt?: boolean;
  expect: ExpectCheck[];
  /** `moved:` hints written in its manifest; absent when none. */
  moved?: DesiredMove[];
  source: ManifestSource;
}

export type DesiredProjectInput = { type: 'list'; list: string[] } | { type: 'webhook_input'; url: string };

/** A project as the manifests want it; keys left out of the manifest are absent here too. */
export interface DesiredProject {
  kind: 'Project';
  address: `project.${string}`;
  name: string;
  projectType: ProjectType;
  projectInput: DesiredProjectInput;
  /** The file the list was read from, relative to the manifest, when it came from one. */
  inputFile?: string;
  scrapingInterval?: string;
  scheduledAt?: string;
  schedulingEnabled?: boolean;
  output_format?: OutputFormat;
  webhookOutput?: WebhookOutput | null;
  /** Always whole: keys the manifest left out are filled with the service's documented defaults. */
  notificationConfig?: Required<NotificationConfig>;
  apiParams?: Record<string, string | number | boolean>;
  preventDestroy: boolean;
  /** `adopt: true`: as for parsers; absent means no consent. */
  adopt?: boolean;
  ignoreChanges: ProjectDiffableKey[];
  /** `moved:` hints written in its manifest; absent when none. */
  moved?: DesiredMove[];
  source: ManifestSource;
}

export type DesiredObject = DesiredParser | DesiredProject;

/**
 * Paths named with `--env`: every object of the environment is read and checked, but only those declared in files
 * under the paths are acted on (a partial plan as with `--target`, drift, expect checks, what render shows).
 */
export interface Narrowing {
  paths: readonly string[];
  addresses: readonly string[];
}

/** Whether an address is among those a narrowing keeps (every one without it); the addresses looked up once. */
export function narrowedSelects(narrowing: Narrowing | undefined): (address: string) => boolean {
  if (narrowing === undefined) return () => true;
  const kept = new Set(narrowing.addresses);
  return (address) => kept.has(address);
}
