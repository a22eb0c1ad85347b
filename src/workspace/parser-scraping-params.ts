import { loadManifests } from '../manifest/load-manifests.js';
import type { Environment } from '../manifest/interpolate.js';
import type { ScraperParams } from '../model/vocabulary.js';
import type { State } from '../state/model.js';

export interface ParserScrapingParamsOptions {
  /** Variables for `${NAME}` in the manifests. */
  env: Environment;
  /** `--env NAME` and `--var-file FILE`s, as for every command that reads manifests. */
  environment?: string | undefined;
  varFiles?: readonly string[] | undefined;
}

export interface ParserScrapingParams {
  params: ScraperParams;
  /** Where they came from: the parser's manifest, what state records, or nowhere (never seen, not declared). */
  from: 'manifest' | 'state' | 'none';
  warnings: string[];
}

/**
 * The scraping parameters to parse a page with a managed parser: the ones its manifest declares (what `test` and
 * apply's expect checks send), else the ones state records it was created with. Seed 1 says creation
 * `scraper_params` are used to fetch the example pages and lets a parse take scraping parameters in its query; it
 * does not say the service reuses the creation ones at parse time, so scrapeform sends them itself (a page that
 * needs `render` would come back empty otherwise). Manifests with errors are not read for them (a warning says so).
 */
export async function parserScrapingParams(
  options: ParserScrapingParamsOptions,
  state: State,
  address: string,
): Promise<ParserScrapingParams> {
  const warnings: string[] = [];
  const manifests = await loadManifests({
    paths: [],
    env: options.env,
    environment: options.environment,
    varFiles: options.varFiles,
  });
  if (manifests.valid) {
    const declared = manifests.parsers.find((p) => p.address === address);
    if (declared !== undefined) return { params: declared.scraperParams, from: 'manifest', warnings };
  } else {
    warnings.push(
      `the manifests have errors (scrapeform validate lists them): ${address} is parsed with the scraping parameters state records`,
    );
  }
  const recorded = state.resources[address];
  if (recorded?.kind !== 'Parser') return { params: {}, from: 'none', warnings };
  if (recorded.unknown?.scraperParams === true) {
    warnings.push(
      `the scraping parameters of ${address} were never seen (the service does not return them) and no manifest declares them: none are sent; pass --render or --param if the page needs them`,
    );
    return { params: {}, from: 'none', warnings };
  }
  const definition = recorded.definition ?? recorded.pending?.definition;
  return { params: definition?.scraperParams ?? {}, from: 'state', warnings };
}
