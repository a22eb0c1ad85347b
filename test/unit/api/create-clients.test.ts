import { describe, expect, it } from 'vitest';
import { createApiClients } from '../../../src/api/create-clients.js';
import type { ScrapeformError } from '../../../src/errors.js';

/** What a saved plan records of the services (fingerprint.target): never a credential of their URLs. */
describe('the endpoints the clients call, as a plan records them', () => {
  it('leave out a user name, a password, a query and a trailing slash', async () => {
    const clients = createApiClients(
      {
        apiKey: 'k',
        parserUrl: 'http://bob:hunter2secret@127.0.0.1:8780/?token=abc',
        pipelineUrl: 'https://datapipeline.example/',
        warnings: [],
      },
      { env: {} },
    );
    try {
      expect(clients.endpoints).toEqual({
        parsers: 'http://127.0.0.1:8780',
        projects: 'https://datapipeline.example',
      });
    } finally {
      await clients.close();
    }
  });
});

describe('a proxy variable that is no proxy URL', () => {
  it.each([
    [
      'HTTP_PROXY',
      'user:S3cretPw@proxy.internal:3128',
      'HTTP_PROXY is not a proxy URL: ***@proxy.internal:3128',
    ],
    [
      'https_proxy',
      'http://user:S3c/retPw@proxy.internal:3128',
      'https_proxy is not a proxy URL: http://***@proxy.internal:3128',
    ],
    [
      'HTTPS_PROXY',
      'http://user:2024#S3cretPw@proxy.internal:3128',
      'HTTPS_PROXY is not a proxy URL: http://***@proxy.internal:3128',
    ],
    [
      'HTTP_PROXY',
      'socks5://user:S3cretPw@proxy.internal:1080',
      'HTTP_PROXY is not a proxy URL: socks5://***@proxy.internal:1080',
    ],
  ])('%s=%s is a configuration error before any call, its credentials hidden', (name, value, message) => {
    const refused = (() => {
      try {
        createApiClients(
          { apiKey: 'k', parserUrl: 'http://127.0.0.1:1', pipelineUrl: 'http://127.0.0.1:1' },
          { env: { [name]: value } },
        );
      } catch (error) {
        return error as ScrapeformError;
      }
      return undefined;
    })();
    expect([refused?.code, refused?.message, refused?.hint]).toEqual([
      'config.proxy',
      message,
      'write http://HOST:PORT, or http://USER:PASSWORD@HOST:PORT with a /, #, @ or : in them percent-encoded (%2F, %23, %40, %3A)',
    ]);
  });
});
