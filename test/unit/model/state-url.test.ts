import { describe, expect, it } from 'vitest';
import { credentialsHidden, redactUrl } from '../../../src/model/state-url.js';

/**
 * The two ways a URL is shown: a state connection URL keeps its user name (a database role is no secret and helps
 * tell databases apart); a proxy or endpoint hides it too (a proxy's user name may be a key). Both hide a password
 * and query parameters named like a secret, and neither shows anything before the last `@` of a URL it cannot read.
 */
describe('URLs as scrapeform shows them', () => {
  it.each([
    ['http://proxy.example:8080', 'http://proxy.example:8080'],
    ['http://user:pw@proxy.example:8080', 'http://***@proxy.example:8080/'],
    [
      'https://gateway.example/api?api_key=S3cret&region=eu',
      'https://gateway.example/api?api_key=***&region=eu',
    ],
    ['https://u:p@gateway.example/?token=S3cret', 'https://***@gateway.example/?token=***'],
    ['https://gw:S3c/ret@gateway.example', 'https://***@gateway.example'],
    // Not URLs (no scheme): what follows the last @, and a secret parameter hidden all the same.
    ['parsers.example.com/api?api_key=S3cret', 'parsers.example.com/api?api_key=***'],
    ['proxy.example.com:8080?token=S3cret&x=1', 'proxy.example.com:8080?token=***&x=1'],
    ['gw:S3c ret@bad host?key=S3cret', '***@bad host?key=***'],
  ])('credentialsHidden(%s)', (written, shown) => {
    expect(credentialsHidden(written)).toBe(shown);
  });

  it.each([
    ['postgres://sf:S3cret@db.example/state', 'postgres://sf:***@db.example/state'],
    ['postgres://sf@db.example/state?sslpassword=S3cret', 'postgres://sf@db.example/state?sslpassword=***'],
    ['postgres://sf:2024#S3cret@db.example/state', 'postgres://sf:***@db.example/state'],
  ])('redactUrl(%s)', (written, shown) => {
    expect(redactUrl(written)).toBe(shown);
  });
});
