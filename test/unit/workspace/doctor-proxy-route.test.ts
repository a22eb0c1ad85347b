import { describe, expect, it } from 'vitest';
import { proxyRoute } from '../../../src/workspace/doctor-machine-checks.js';

const SERVICE = 'https://api.scraperapi.com/api/v1';

describe("doctor's proxy route, as the dispatcher (undici's EnvHttpProxyAgent) takes it", () => {
  it.each([
    // An entry without a leading dot covers the domain's hosts too, as in curl.
    [{ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'scraperapi.com' }, 'direct (NO_PROXY)'],
    [{ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '.scraperapi.com' }, 'direct (NO_PROXY)'],
    // Names are compared in any case.
    [{ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'API.ScraperAPI.com' }, 'direct (NO_PROXY)'],
    // A port is compared with the URL's, its scheme's default when it names none.
    [{ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'api.scraperapi.com:443' }, 'direct (NO_PROXY)'],
    [{ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'api.scraperapi.com:8443' }, 'via http://proxy:3128'],
    // `*` bypasses every host only as the whole value: in a list it is no entry undici matches.
    [{ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: '*' }, 'direct (NO_PROXY)'],
    [{ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: 'localhost,*' }, 'via http://proxy:3128'],
    // An empty HTTPS_PROXY leaves https calls to HTTP_PROXY.
    [{ HTTPS_PROXY: '', HTTP_PROXY: 'http://proxy:3128' }, 'via http://proxy:3128'],
    [{ https_proxy: 'http://lower:3128', HTTPS_PROXY: 'http://upper:3128' }, 'via http://lower:3128'],
    [{ HTTP_PROXY: 'http://proxy:3128', NO_PROXY: 'example.com' }, 'via http://proxy:3128'],
    [{ NO_PROXY: 'scraperapi.com' }, 'direct'],
  ])('%j: %s', (env, route) => {
    expect(proxyRoute(env, SERVICE, SERVICE).route).toEqual({ parsers: route, projects: route });
  });
});
