import { describe, expect, it } from 'vitest';
import { scrapingParamsFromFlags } from '../../../src/cli/scraping-param-flags.js';
import { ScrapeformError } from '../../../src/errors.js';

function refusal(pairs: string[]): { code: string; message: string; hint: string | undefined } {
  try {
    scrapingParamsFromFlags(pairs, undefined);
  } catch (error) {
    if (error instanceof ScrapeformError)
      return { code: error.code, message: error.message, hint: error.hint };
    throw error;
  }
  throw new Error(`${pairs.join(' ')} was accepted`);
}

describe('parse --param: the rules of a manifest scraper_params', () => {
  it('types each value as its parameter takes it; --render sets render', () => {
    expect(
      scrapingParamsFromFlags(
        ['render=false', 'session_number=3', 'country_code=de', 'device_type=mobile', 'premium=true'],
        undefined,
      ),
    ).toEqual({ render: false, session_number: 3, country_code: 'de', device_type: 'mobile', premium: true });
    expect(scrapingParamsFromFlags([], true)).toEqual({ render: true });
  });

  it.each([
    [
      ['device_type=tablet'],
      '--param device_type=tablet: must be one of desktop, mobile; got "tablet"',
      undefined,
    ],
    [
      ['session_number=0'],
      '--param session_number=0: must be at least 1 (sessions are numbered from 1)',
      undefined,
    ],
    [['session_number=1.5'], '--param session_number=1.5: expected an integer, got number 1.5', undefined],
    [['session_number=two'], '--param session_number=two: expected a number, got "two"', undefined],
    [
      ['country_code=usa'],
      '--param country_code=usa: must be a two-letter country code, such as us or de',
      undefined,
    ],
    [['render=yes'], '--param render=yes: expected a boolean, got "yes"', undefined],
    [['premium=1'], '--param premium=1: expected a boolean, got "1"', undefined],
    [['rendr=true'], '--param rendr=true: unknown key "rendr"', 'did you mean "render"?'],
    [
      ['country_code=us', 'device_type=phone'],
      '--param device_type=phone: must be one of desktop, mobile; got "phone"',
      undefined,
    ],
    [['render'], '--param takes key=value, got "render"', undefined],
  ])('%j is refused: %s', (pairs, message, hint) => {
    expect(refusal(pairs)).toEqual({ code: 'cli.usage', message, hint });
  });
});
