import type { EmulatorClock } from './clock.js';
import { compileFields, extractResult, located } from './extraction/fields.js';
import type { FieldSpec } from './extraction/fields.js';
import type { Page } from './extraction/page.js';
import { DownloadError, needsRender } from './fetcher.js';
import type { PageFetcher } from './fetcher.js';
import type { StoredParser, StoredVersion } from './parser-records.js';

export interface ParserGenerationOptions {
  clock: EmulatorClock;
  fetcher: PageFetcher;
  /** How long generation takes, in emulated ms. */
  generationDelayMs: () => number;
  /** Emulated ms a new version waits as QUEUED before generating (queued-status quirk), or undefined. */
  queuedMs: () => number | undefined;
  /** A forced generation failure (fault injection), consumed once; undefined to generate normally. */
  takeGenerationFailure: () => string | undefined;
  /** False once the parser was deleted: its pending generation then does nothing. */
  isLive: (parser: StoredParser) => boolean;
  onChange: () => void;
}

/** Default fields inferred when a parser is created without any (the small set). */
const INFERRED_FIELDS: FieldSpec[] = [
  { name: 'title', description: 'Title of the page from its main heading' },
  { name: 'price', description: 'Price shown on the page', type: 'number' },
  { name: 'image', description: 'Address of the main image' },
  { name: 'description', description: 'Short description of the page' },
  { name: 'links', description: 'Addresses of the links on the page', type: 'array' },
];

/** Generation without AI: after the emulated delay, fetch the example pages and settle a locator per field. */
export class ParserGeneration {
  constructor(private readonly options: ParserGenerationOptions) {}

  /** Starts generating `version` (0 at creation) with the given fields, or inferred ones when there are none. */
  start(parser: StoredParser, fields: FieldSpec[] | undefined, version = 0): void {
    const queuedMs = this.options.queuedMs();
    const stored: StoredVersion = {
      version,
      status: 'GENERATING',
      error: null,
      createdAt: this.options.clock.iso(),
      generatedAt: null,
      fields: fields ?? [],
      compiled: null,
      exampleResult: null,
      pages: [],
      ...(queuedMs !== undefined ? { queuedUntil: this.options.clock.now() + queuedMs } : {}),
    };
    parser.versions.push(stored);
    this.options.onChange();
    const inferred = fields === undefined;
    this.options.clock.after((queuedMs ?? 0) + this.options.generationDelayMs(), () => {
      void this.generate(parser, stored, inferred);
    });
  }

  /** Resumes generations that were under way when the emulator stopped (data-dir reload). */
  resume(parsers: Iterable<StoredParser>): void {
    for (const parser of parsers) {
      for (const stored of parser.versions) {
        if (stored.status !== 'GENERATING') continue;
        const stillQueued = Math.max(0, (stored.queuedUntil ?? 0) - this.options.clock.now());
        this.options.clock.after(
          stillQueued + this.options.generationDelayMs(),
          () => void this.generate(parser, stored, stored.fields.length === 0),
        );
      }
    }
  }

  private async generate(parser: StoredParser, stored: StoredVersion, inferred: boolean): Promise<void> {
    if (!this.options.isLive(parser)) return;
    const forced = this.options.takeGenerationFailure();
    try {
      if (forced !== undefined) throw new GenerationError(forced);
      const pages: Page[] = [];
      for (const url of parser.urls) pages.push(await this.options.fetcher(url, parser.scraperParams));
      const shell = pages.find((page) => needsRender(page));
      if (shell !== undefined) {
        throw new GenerationError(
          `RenderError: ${shell.url} builds its content with JavaScript; set render to true in scraper_params`,
        );
      }
      let specs = inferred ? INFERRED_FIELDS : stored.fields;
      let compiled = compileFields(specs, pages);
      if (inferred) {
        // Only the inferred fields found on the pages become the parser's fields.
        compiled = compiled.filter((f) => f.locator !== undefined);
        specs = INFERRED_FIELDS.filter((f) => compiled.some((c) => c.name === f.name));
      }
      if (!located(compiled)) {
        throw new GenerationError(
          'ExtractionError: none of the fields could be found on the example pages; check that they are of one page type and describe the fields more specifically',
        );
      }
      stored.fields = specs;
      stored.compiled = compiled;
      stored.pages = pages.map((p) => ({ url: p.url, html: p.html }));
      stored.exampleResult = pages.map((page) => ({ url: page.url, result: extractResult(page, compiled) }));
      stored.status = 'FINISHED';
    } catch (error) {
      // The emulator closed under it (a fetch ended by the close): no outcome. Left GENERATING, a data dir's next
      // start resumes it; recorded FAILED, it would blame the pages for the close and count a failure.
      if (this.options.clock.stopped.aborted) return;
      stored.status = 'FAILED';
      stored.error = describeFailure(error);
      stored.exampleResult = null;
      stored.compiled = null;
    }
    stored.generatedAt = this.options.clock.iso();
    this.options.onChange();
  }
}

class GenerationError extends Error {}

/** The `<ErrorKind>: <message>` form of the seed's `error` field. */
export function describeFailure(error: unknown): string {
  if (error instanceof DownloadError) return `DownloadError: ${error.message}`;
  if (error instanceof GenerationError) return error.message;
  return `InternalError: ${error instanceof Error ? error.message : String(error)}`;
}
