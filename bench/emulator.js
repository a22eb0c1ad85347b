// bench emulator: generation time of a 20-field parser over 3 demo pages, and parse requests per second.
// Prints one JSON result for bench/run.js.
import { startEmulator } from '../dist/emulator/server.js';

const KEY = 'bench-key';
const emulator = await startEmulator({ apiKeys: [KEY], generationDelayMs: 0, credits: 1e12 });
const pages = [
  'https://books.example/catalogue/a-light-in-the-attic_1000/index.html',
  'https://books.example/catalogue/tipping-the-velvet_999/index.html',
  'https://books.example/catalogue/soumission_998/index.html',
];
const fields = [
  { name: 'title', description: 'Book title', selector: 'h1' },
  { name: 'price', description: 'Price including tax', type: 'number' },
  { name: 'availability', description: 'Stock availability text' },
  { name: 'upc', description: 'Universal product code from the table', selector: '//td[@class="upc"]' },
  { name: 'description', description: 'Product description paragraph' },
  { name: 'image', description: 'Cover image', selector: 'img.thumbnail@src' },
  { name: 'rating', description: 'Star rating text', selector: '.star-rating' },
  { name: 'breadcrumb', description: 'Category link texts', type: 'array', selector: 'nav.breadcrumb a' },
  { name: 'list_price', description: 'Price before the sale', type: 'number' },
  { name: 'og_title', description: 'Open Graph title', selector: 'meta[property="og:title"]' },
  { name: 'product_type', description: 'Product type', selector: '//tr[th="Product Type"]/td' },
  {
    name: 'review_count',
    description: 'Number of reviews',
    type: 'number',
    selector: '//tr[th="Number of reviews"]/td',
  },
  { name: 'reviews', description: 'Customer reviews' },
  { name: 'reviews.author', description: 'Name of the reviewer' },
  { name: 'reviews.rating', description: 'Stars from 1 to 5', type: 'number' },
  { name: 'reviews.text', description: 'What the reviewer wrote', selector: '.review-text' },
  { name: 'heading', description: 'Second-level heading', selector: 'h2' },
  { name: 'meta_description', description: 'Meta description', selector: 'meta[name=description]' },
  { name: 'thumbnail_alt', description: 'Cover alt text', selector: 'img.thumbnail@alt' },
  { name: 'in_stock', description: 'Whether the book is in stock', selector: '.instock' },
];

async function call(method, path, body) {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify({ ...body, api_key: KEY }) } : {}),
  });
  return response.json();
}

const generations = [];
let id;
for (let run = 0; run < 5; run++) {
  const started = performance.now();
  ({ id } = await call('POST', '/parsers', { name: `bench-${run}`, urls: pages, fields }));
  await emulator.idle();
  generations.push(performance.now() - started);
  const details = await call('GET', `/parsers/${id}?api_key=${KEY}`);
  if (details.status !== 'FINISHED') throw new Error(`generation ${details.status}: ${details.error}`);
}

const TOTAL = 3000;
const CONCURRENCY = 16;
const target = encodeURIComponent(pages[0]);
let sent = 0;
const parseStarted = performance.now();
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (sent < TOTAL) {
      sent++;
      const result = await call('GET', `/parse/${id}?api_key=${KEY}&url=${target}`);
      if (result.result?.title !== 'A Light in the Attic') throw new Error('wrong parse result');
    }
  }),
);
const parseSeconds = (performance.now() - parseStarted) / 1000;
await emulator.close();

const median = [...generations].sort((a, b) => a - b)[2];
console.log(
  JSON.stringify({
    description: `Generation: a 20-field parser (CSS, XPath, heuristics, one array parent with 3 children) over 3 demo-site pages, generation delay 0, create to FINISHED, 5 runs. Parse: ${TOTAL} GET /parse requests from ${CONCURRENCY} concurrent clients over loopback, each fetching and extracting a demo page.`,
    header: ['measure', 'value'],
    rows: [
      ['generation, median of 5', `${median.toFixed(0)} ms`],
      ['generation, first (cold)', `${generations[0].toFixed(0)} ms`],
      ['parse throughput', `${(TOTAL / parseSeconds).toFixed(0)} requests/s`],
      [
        'parse latency, mean at concurrency 16',
        `${((parseSeconds * 1000 * CONCURRENCY) / TOTAL).toFixed(1)} ms`,
      ],
    ],
    verdict:
      'No target was set by the issue; these numbers are the baseline later changes are compared against.',
  }),
);
