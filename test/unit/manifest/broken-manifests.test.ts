import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../../src/manifest/load-manifests.js';
import { createColors } from '../../../src/output/colors.js';
import { renderDiagnostics } from '../../../src/output/render-diagnostics.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../fixtures/broken');

/** Each broken manifest and exactly what validate reports for it: message, key path, line and column. */
const CASES: Record<string, string> = {
  'alias-bomb.yaml':
    'alias-bomb.yaml:1:1: too many YAML alias expansions (more than 100): Excessive alias count indicates a resource exhaustion attack\n  hint: write the values out instead of nesting anchors and aliases',
  'api-version.yaml':
    'api-version.yaml:1:13 apiVersion: must be "scrapeform/v1", got "scrapeform/v2"\n  hint: did you mean "scrapeform/v1"?',
  'bad-cron.yaml':
    'bad-cron.yaml:5:19 scrapingInterval: must be hourly, daily, weekly, monthly or a valid cron expression',
  'bad-field-type.yaml':
    'bad-field-type.yaml:5:38 fields.price.type: must be one of string, number, array; got "numbr"\n  hint: did you mean "number"?',
  'bad-ignore-changes.yaml':
    'bad-ignore-changes.yaml:5:31 lifecycle.ignore_changes[0]: must be one of projectType, projectInput, scrapingInterval, scheduledAt, schedulingEnabled, output_format, webhookOutput, notificationConfig, apiParams; got "schedule"\n  hint: did you mean "scheduledAt"?',
  'bad-input-type.yaml':
    'bad-input-type.yaml:4:23 projectInput.type: must be one of list, webhook_input; got "csv"',
  'bad-interval-type.yaml':
    'bad-interval-type.yaml:5:19 scrapingInterval: expected a string, got number 3600',
  'bad-notify.yaml':
    'bad-notify.yaml:5:64 notificationConfig.notifyOnFailure: must be one of with_every_run, daily, weekly; got "never"',
  'bad-output-format.yaml':
    'bad-output-format.yaml:5:16 output_format: must be one of JSON, CSV; got "json"\n  hint: did you mean "JSON"?',
  'bad-project-type.yaml':
    'bad-project-type.yaml:3:14 projectType: must be one of urls, amazon_product, amazon_offer, amazon_review, amazon_search, ebay_product, ebay_search, google_jobs, google_news, google_search, google_shopping, redfin_search, redfin_agent, redfin_forsale, refin_forrent, walmart_category, walmart_product, walmart_search, walmart_review; got "amazon_products"\n  hint: did you mean "amazon_product"?',
  'bad-scheduled-at.yaml':
    'bad-scheduled-at.yaml:5:14 scheduledAt: must be an ISO 8601 date-time with a time zone (2026-01-31T06:00:00Z) or the word now',
  'bad-webhook-encoding.yaml':
    'bad-webhook-encoding.yaml:5:65 webhookOutput.webhookEncoding: must be "multipart_form_data_encoding", got "json"',
  'country-code.yaml':
    'country-code.yaml:4:33 scraper_params.country_code: must be a two-letter country code, such as us or de',
  'device-type.yaml':
    'device-type.yaml:4:32 scraper_params.device_type: must be one of desktop, mobile; got "tablet"',
  'dotted-field-name.yaml':
    'dotted-field-name.yaml:5:3 fields.reviews.author: field name "reviews.author" contains a dot\n  hint: nest child fields under `fields:` instead; scrapeform joins the names with dots when it sends them',
  'duplicate-key.yaml':
    'duplicate-key.yaml:3:1: duplicate key: a key may appear once per map\n  hint: remove or merge the repeated key',
  'duplicate-key-types.yaml':
    'duplicate-key-types.yaml:7:3: duplicate key: a key may appear once per map\n  hint: remove or merge the repeated key',
  'duplicate-names':
    'duplicate-names/a.yaml:2:7 name: duplicate Parser name "books": also declared at duplicate-names/b.yaml:3:7\n  hint: Parser names are unique; rename one of them\n' +
    'duplicate-names/b.yaml:3:7 name: duplicate Parser name "books": also declared at duplicate-names/a.yaml:2:7\n  hint: Parser names are unique; rename one of them',
  'enabled-without-interval.yaml':
    'enabled-without-interval.yaml:5:20 schedulingEnabled: true needs a scrapingInterval\n  hint: add scrapingInterval (hourly, daily, weekly, monthly or a cron expression), or remove schedulingEnabled to scrape once',
  'empty-description.yaml':
    'empty-description.yaml:5:25 fields.title.description: description must not be empty',
  'env-unset.yaml':
    'env-unset.yaml:2:7 name: environment variable SCRAPEFORM_TEST_UNSET_VAR is not set\n  hint: export SCRAPEFORM_TEST_UNSET_VAR, or give a default: ${SCRAPEFORM_TEST_UNSET_VAR:-value}',
  'ftp-url.yaml': 'ftp-url.yaml:3:8 urls[0]: must be an absolute http:// or https:// URL',
  'list-and-file.yaml': 'list-and-file.yaml:7:3 projectInput.file: give either list or file, not both',
  'missing-description.yaml':
    'missing-description.yaml:5:3 fields.title.description: missing required key "description"\n  hint: say what the field holds; the more specific, the better the extraction',
  'missing-input-file.yaml':
    'missing-input-file.yaml:6:9 projectInput.file: cannot read input file "does-not-exist.txt": no such file\n  hint: the path is relative to the folder of this manifest',
  'missing-kind.yaml':
    'missing-kind.yaml:1:1: not a scrapeform manifest: missing required key "kind"\n  hint: every document needs kind: Parser or kind: Project; if this file is not a scrapeform manifest, list it in a .scrapeformignore (gitignore syntax)',
  'missing-urls.yaml':
    'missing-urls.yaml:1:1 urls: missing required key "urls"\n  hint: list 1 to 3 example pages of one page type',
  'no-urls.yaml': 'no-urls.yaml:3:7 urls: needs at least 1 example URL',
  'not-a-map.yaml':
    'not-a-map.yaml:1:1: not a scrapeform manifest: expected a map, got a list\n  hint: every document needs kind: Parser or kind: Project; if this file is not a scrapeform manifest, list it in a .scrapeformignore (gitignore syntax)',
  'parent-wrong-type.yaml':
    'parent-wrong-type.yaml:7:11 fields.reviews.type: a field with child fields is an array parent; type must be array or left out, not string',
  'relative-url.yaml': 'relative-url.yaml:5:5 urls[1]: must be an absolute http:// or https:// URL',
  'renamed-from-declared.yaml':
    'renamed-from-declared.yaml:6:52 fields.headline.renamed_from: renamed_from names "subtitle", which is also declared here\n  hint: a field cannot be renamed and kept: remove "subtitle" or the renamed_from line',
  'renamed-twice.yaml':
    'renamed-twice.yaml:5:52 fields.headline.renamed_from: "subtitle" is renamed to more than one field (also "tagline")\n  hint: one old field can become one new field; give the others no renamed_from\n' +
    'renamed-twice.yaml:6:50 fields.tagline.renamed_from: "subtitle" is renamed to more than one field (also "headline")\n  hint: one old field can become one new field; give the others no renamed_from',
  'scraper-param-unknown.yaml':
    'scraper-param-unknown.yaml:5:3 scraper_params.javascript: unknown key "javascript"\n  hint: allowed keys: render, country_code, premium, session_number, keep_headers, device_type, ultra_premium, follow_redirect, retry_404',
  'scraper-param-wrong-type.yaml':
    'scraper-param-wrong-type.yaml:5:11 scraper_params.render: expected a boolean, got "yes"',
  'session-number.yaml':
    'session-number.yaml:4:35 scraper_params.session_number: expected an integer, got number 1.5',
  'session-number-zero.yaml':
    'session-number-zero.yaml:4:35 scraper_params.session_number: must be at least 1 (sessions are numbered from 1)',
  'too-many-urls.yaml':
    'too-many-urls.yaml:4:3 urls: takes at most 3 example URLs (the service accepts 1 to 3)',
  'unknown-field-key.yaml':
    'unknown-field-key.yaml:7:5 fields.title.selecter: unknown key "selecter"\n  hint: did you mean "selector"?',
  'unknown-kind.yaml':
    'unknown-kind.yaml:1:7 kind: kind must be Parser, Project, ParserTemplate or ProjectTemplate, got "Parsr"\n  hint: did you mean "Parser"?',
  'unknown-top-key.yaml':
    'unknown-top-key.yaml:4:1 scraperParams: unknown key "scraperParams"\n  hint: did you mean "scraper_params"?',
  'webhook-input-no-url.yaml':
    'webhook-input-no-url.yaml:4:1 projectInput.url: missing required key "url"\n  hint: an absolute http(s) URL',
  'yaml-syntax.yaml':
    'yaml-syntax.yaml:4:1: YAML syntax: Flow sequence in block collection must be sufficiently indented and end with a ]',
  'undefined-alias.yaml':
    'undefined-alias.yaml:5:25 fields.title.description: alias *nope refers to no anchor: &nope is not defined before it\n  hint: write &nope on the value to reuse, above this alias, or write the value out',
  'binary-tag.yaml':
    'binary-tag.yaml:2:16 name: the tag !!binary is not supported: manifests hold plain strings, numbers, booleans, lists and maps\n  hint: remove the tag; quote the value if it must stay a string',
  'custom-tag.yaml':
    'custom-tag.yaml:2:15 name: the tag !custom is not supported: manifests hold plain strings, numbers, booleans, lists and maps\n  hint: remove the tag; quote the value if it must stay a string',
  'too-deep.yaml':
    'too-deep.yaml:6:82 expect[0].result.title[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: the document is nested too deep (more than 64 levels of maps and lists)\n  hint: a manifest needs a few levels; check for a runaway indentation or bracket',
  'too-deep-for-parser.yaml':
    'too-deep-for-parser.yaml:1:1: the document is nested too deep (more than 64 levels of maps and lists)\n  hint: a manifest needs a few levels; check for a runaway indentation or bracket',
  'urls-one-string.yaml':
    'urls-one-string.yaml:3:7 urls: expected a list, got "https://books.example/a.html"',
  'bad-expect-pattern.yaml':
    'bad-expect-pattern.yaml:6:22 expect[0].result.price: "~£(\\\\d+" is not a valid regular expression: Unterminated group\n  hint: after the ~ comes a JavaScript regular expression with the u flag; escape ( ) [ ] { } * + ? . ^ $ | \\ / with a backslash, and nothing else (a - needs none outside [...])',
  'cron-never-fires.yaml':
    'cron-never-fires.yaml:5:19 scrapingInterval: the cron expression never fires: no date matches it (such as February 30)',
  'cron-seven-fields.yaml':
    'cron-seven-fields.yaml:5:19 scrapingInterval: must be hourly, daily, weekly, monthly or a cron expression of 5 fields (minute hour day month weekday), got 7 fields',
  'input-file-outside.yaml':
    'input-file-outside.yaml:6:9 projectInput.file: input file "../../../../../../../../../../etc/passwd" resolves outside the folder being read\n  hint: keep input files inside the folder given to scrapeform (for a file given by name, its folder); symlinks are followed before this check',
  'input-file-absolute.yaml':
    'input-file-absolute.yaml:6:9 projectInput.file: input file "/etc/passwd" resolves outside the folder being read\n  hint: keep input files inside the folder given to scrapeform (for a file given by name, its folder); symlinks are followed before this check',
  'url-credentials.yaml':
    'url-credentials.yaml:3:8 urls[0]: must not hold a user name or password (user:secret@): they would be shown in plans and stored in state',
  'webhook-credentials.yaml':
    'webhook-credentials.yaml:5:23 webhookOutput.url: must not hold a user name or password (user:secret@): they would be shown in plans and stored in state',
  'input-credentials.yaml':
    'input-credentials.yaml:4:66 projectInput.list[1]: must not hold a user name or password (user:secret@): they would be shown in plans and stored in state',
  'empty-input-list.yaml': 'empty-input-list.yaml:4:35 projectInput.list: list must hold at least one entry',
  'proto-field-name.yaml':
    'proto-field-name.yaml:5:3 fields.__proto__: the key "__proto__" is not allowed: JavaScript objects cannot hold it as a plain key\n  hint: rename it',
  'constructor-field-name.yaml':
    'constructor-field-name.yaml:5:3 fields.constructor: field name "constructor" is reserved\n  hint: every JavaScript object has a property of this name, so a field cannot; choose another name',
  'nested-default-unset.yaml':
    'nested-default-unset.yaml:2:7 name: environment variable SCRAPEFORM_TEST_UNSET_B is not set\n  hint: export SCRAPEFORM_TEST_UNSET_B, or give a default: ${SCRAPEFORM_TEST_UNSET_B:-value}',
  'control-character-name.yaml':
    'control-character-name.yaml:2:7 name: must not hold control characters (NUL, escape, …)',
  'control-character-description.yaml':
    'control-character-description.yaml:5:25 fields.title.description: description must not hold control characters other than tab and line breaks (NUL, escape, …)',
  'control-character-field-name.yaml':
    'control-character-field-name.yaml:5:3 fields.ti\ttle: field name "ti\\ttle" holds the control character U+0009',
  'utf16.yaml':
    'utf16.yaml:1:1: the file is UTF-16 (little-endian), not UTF-8\n  hint: save the file as UTF-8 text',
  'utf16-no-bom.yaml':
    'utf16-no-bom.yaml:1:1: the file looks like UTF-16 (little-endian) without a byte order mark, not UTF-8\n  hint: save the file as UTF-8 text',
  'latin1.yaml':
    'latin1.yaml:5:50: the file is not valid UTF-8: byte 0xE7 here (Latin-1 or Windows-1252, perhaps)\n  hint: save the file as UTF-8 text',
  'nul-byte.yaml':
    'nul-byte.yaml:2:12: the file holds a NUL character: it is binary, not text\n  hint: save the file as UTF-8 text',
  // Reuse (issue 16): templates, for_each, variables and merge keys.
  'extends-unknown.yaml':
    'extends-unknown.yaml:8:10 extends: unknown ParserTemplate "prodcut-page"\n  hint: did you mean "product-page"?',
  'extends-cycle.yaml':
    'extends-cycle.yaml:3:10 extends: extends forms a cycle: base -> product-page -> base\n  hint: a template cannot extend itself, directly or through others; remove one extends of the cycle\n' +
    'extends-cycle.yaml:7:10 extends: extends forms a cycle: product-page -> base -> product-page\n  hint: a template cannot extend itself, directly or through others; remove one extends of the cycle',
  'each-outside-for-each.yaml':
    'each-outside-for-each.yaml:2:7 name: ${each.country} is used outside for_each\n  hint: ${each.KEY} names a key of the for_each element: only a manifest with for_each, and the templates it extends, can use it',
  'unknown-variable':
    'unknown-variable/books.yaml:6:18 fields.title.description: ${var.regoin}: no variable "regoin" is declared\n  hint: did you mean "region"?',
  'duplicate-generated-name.yaml':
    'duplicate-generated-name.yaml:4:5 for_each[0]: duplicate Parser name "books-de": also declared at duplicate-generated-name.yaml:2:7 (for_each[2] at duplicate-generated-name.yaml:6:5)\n  hint: every element of for_each must give the object its own name (parser.books-de is its address); make the values differ, or use ${each.KEY} in name\n' +
    'duplicate-generated-name.yaml:6:5 for_each[2]: duplicate Parser name "books-de": also declared at duplicate-generated-name.yaml:2:7 (for_each[0] at duplicate-generated-name.yaml:4:5)\n  hint: every element of for_each must give the object its own name (parser.books-de is its address); make the values differ, or use ${each.KEY} in name',
  'key-reference.yaml':
    'key-reference.yaml:5:3 fields.price_${CURRENCY}: the key "price_${CURRENCY}" holds ${: references are not expanded in keys\n  hint: write the key out in full; ${…} is expanded in values only',
  'list-key.yaml':
    'list-key.yaml:5:5 fields: a list as a key is not supported: a key is text, a number or a boolean\n  hint: write the key as text; quote it if it holds brackets or braces',
  'merge-not-a-map.yaml':
    'merge-not-a-map.yaml:4:5 <<: the merge key << takes a map or a list of maps, got the boolean true\n  hint: write <<: *anchor where &anchor is on a map (such as one under an x- key), or <<: [*a, *b]',
  'template-bad-value.yaml':
    'template-bad-value.yaml:4:17 scraper_params.country_code: must be a two-letter country code, such as us or de (in parser.books-usa: for_each[1] at template-bad-value.yaml:11:5)',
};

/** Cases whose other objects are valid: the problem is across objects, gated by `valid` alone. */
const CROSS_OBJECT = new Set(['duplicate-names', 'duplicate-generated-name.yaml', 'template-bad-value.yaml']);

async function diagnose(fixture: string): Promise<{ text: string; valid: boolean; parsers: number }> {
  const loaded = await loadManifests({ paths: [path.join(FIXTURES, fixture)], env: {} });
  const text = renderDiagnostics(loaded.diagnostics, { colors: createColors(false) }).replaceAll(
    `${FIXTURES}${path.sep}`,
    '',
  );
  return { text, valid: loaded.valid, parsers: loaded.parsers.length + loaded.projects.length };
}

describe('broken manifests', () => {
  it('covers at least 30 mistakes, one fixture each', () => {
    expect(Object.keys(CASES).length).toBeGreaterThanOrEqual(30);
  });

  it.each(Object.entries(CASES))('%s is reported exactly', async (fixture, expected) => {
    const result = await diagnose(fixture);
    expect(result.text).toBe(expected);
    expect(result.valid).toBe(false);
    // An invalid document never becomes a desired object; cross-file problems are gated by `valid` alone.
    if (!CROSS_OBJECT.has(fixture)) expect(result.parsers).toBe(0);
  });

  it('collects every problem of a file at once instead of stopping at the first', async () => {
    const loaded = await loadManifests({ paths: [FIXTURES], env: {} });
    const files = new Set(loaded.diagnostics.map((d) => path.relative(FIXTURES, d.file)));
    expect(files.size).toBe(Object.keys(CASES).length + 1);
    expect(loaded.valid).toBe(false);
  });
});
