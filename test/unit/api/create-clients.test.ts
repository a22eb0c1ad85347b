import { describe, expect, it } from 'vitest';
import { createApiClients } from '../../../src/api/create-clients.js';

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
