import { describe, expect, it } from 'vitest';
import { compileFields, extractResult, parseNumber } from '../../../src/emulator/extraction/fields.js';
import { Page, parseSelector } from '../../../src/emulator/extraction/page.js';
import { EmulatorClock } from '../../../src/emulator/clock.js';
import { parseDuration, formatDuration } from '../../../src/duration.js';

const html = `<!doctype html><html><head>
<meta property="og:image" content="https://x.example/i.jpg">
<script type="application/ld+json">{"@type":"Product","sku":"S-9","brand":{"name":"Acme"}}</script>
</head><body>
<h1 class="title">Widget <small>XL</small></h1>
<span itemprop="price" content="19.99">$19.99</span>
<ul class="specs"><li><b>Weight</b> <i>2 kg</i></li><li><b>Colour</b> <i>Red</i></li></ul>
<a class="next" href="/p/2">Next</a>
<template><p class="hidden">inert</p></template>
</body></html>`;

describe('parseSelector', () => {
  it.each([
    ['h1', { kind: 'css', selector: 'h1' }],
    ['img@src', { kind: 'css', selector: 'img', attr: 'src' }],
    ['a.next::attr(href)', { kind: 'css', selector: 'a.next', attr: 'href' }],
    ['h1::text', { kind: 'css', selector: 'h1' }],
    ['[itemprop=name]', { kind: 'css', selector: '[itemprop=name]' }],
    ['a[href$="@x"]', { kind: 'css', selector: 'a[href$="@x"]' }],
    ['//span[@class="sku"]', { kind: 'xpath', expr: '//span[@class="sku"]' }],
    ['(//a)[1]/@href', { kind: 'xpath', expr: '(//a)[1]/@href' }],
    ['./b', { kind: 'xpath', expr: './b' }],
  ])('%s', (selector, expected) => {
    expect(parseSelector(selector)).toEqual(expected);
  });
});

describe('Page.select', () => {
  const page = new Page('https://x.example/', html);

  it('CSS reads text, meta content and attributes', () => {
    expect(page.select(parseSelector('h1'))).toMatchObject([{ value: 'Widget XL', tag: 'h1' }]);
    expect(page.select(parseSelector('meta[property="og:image"]'))).toMatchObject([
      { value: 'https://x.example/i.jpg' },
    ]);
    expect(page.select(parseSelector('a.next@href'))).toMatchObject([{ value: '/p/2' }]);
  });

  it('XPath over the parse5 tree: elements, attributes, positions and functions', () => {
    expect(page.select(parseSelector('//h1')).map((m) => m.value)).toEqual(['Widget XL']);
    expect(page.select(parseSelector('//a[@class="next"]/@href')).map((m) => m.value)).toEqual(['/p/2']);
    expect(page.select(parseSelector('//ul/li[2]/i')).map((m) => m.value)).toEqual(['Red']);
    expect(page.select(parseSelector('count(//li)'))).toEqual([{ value: '2' }]);
    expect(page.select(parseSelector('//*[contains(@class, "tit")]')).map((m) => m.tag)).toEqual(['h1']);
  });

  it('leaves template content inert, as a browser does', () => {
    expect(page.select(parseSelector('//p[@class="hidden"]'))).toEqual([]);
    expect(page.select(parseSelector('p.hidden'))).toEqual([]);
  });

  it('JSON-LD keys, including nested names', () => {
    expect(page.select({ kind: 'jsonld', key: 'sku' })).toEqual([{ value: 'S-9' }]);
    expect(page.select({ kind: 'jsonld', key: 'brand' })).toEqual([{ value: 'Acme' }]);
  });

  it('an invalid selector finds nothing instead of failing', () => {
    expect(page.select(parseSelector('a[[['))).toEqual([]);
    expect(page.select(parseSelector('//a[('))).toEqual([]);
  });
});

describe('compileFields and extractResult', () => {
  it('finds fields by heuristics, items of array parents, and mixes CSS and XPath children', () => {
    const page = new Page('https://x.example/', html);
    const compiled = compileFields(
      [
        { name: 'title', description: 'Product title' },
        { name: 'price', description: 'Price', type: 'number' },
        { name: 'sku', description: 'Stock keeping unit' },
        { name: 'image', description: 'Main image' },
        { name: 'next_page', description: 'Link to the next page' },
        { name: 'specs', description: 'Specifications', selector: '//ul[@class="specs"]/li' },
        { name: 'specs.label', description: 'Name', selector: 'b' },
        { name: 'specs.value', description: 'Value', selector: '//i' },
        { name: 'missing', description: 'Nothing like this is on the page' },
      ],
      [page],
    );
    expect(extractResult(page, compiled)).toEqual({
      title: 'Widget XL',
      price: 19.99,
      sku: 'S-9',
      image: 'https://x.example/i.jpg',
      next_page: '/p/2',
      specs: [
        { label: 'Weight', value: '2 kg' },
        { label: 'Colour', value: 'Red' },
      ],
    });
  });
});

describe('parseNumber', () => {
  it.each([
    ['£51.77', 51.77],
    ['1,299.00 USD', 1299],
    ['4 stars', 4],
    ['-3.5', -3.5],
    ['none', undefined],
  ])('%s -> %s', (text, expected) => {
    expect(parseNumber(text)).toBe(expected);
  });
});

describe('EmulatorClock', () => {
  it('fires timers in order when an advance passes them, including ones they add', () => {
    let real = 1_000_000;
    const clock = new EmulatorClock(() => real);
    const fired: string[] = [];
    clock.after(3000, () => fired.push(`b@${clock.now() - 1_000_000}`));
    clock.after(1000, () => {
      fired.push(`a@${clock.now() - 1_000_000}`);
      clock.after(500, () => fired.push(`c@${clock.now() - 1_000_000}`));
    });
    clock.advance(5000);
    expect(fired).toEqual(['a@1000', 'c@1500', 'b@3000']);
    expect(clock.now() - real).toBe(5000);
    real += 10;
    clock.stop();
  });
});

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2000],
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['250', 250],
    ['soon', undefined],
    ['2x', undefined],
  ])('%s -> %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it('formats elapsed time for progress lines', () => {
    expect([formatDuration(42_000), formatDuration(185_000), formatDuration(3_720_000)]).toEqual([
      '42s',
      '3m 05s',
      '1h 02m',
    ]);
  });
});
