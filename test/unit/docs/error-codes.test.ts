import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/errors.js';

const ROOT = path.resolve(import.meta.dirname, '../../..');

describe('docs/troubleshooting.md', () => {
  it('explains every error code a user can see', async () => {
    const text = await readFile(path.join(ROOT, 'docs/troubleshooting.md'), 'utf8');
    expect(ERROR_CODES.filter((code) => !text.includes(`\`${code}\``))).toEqual([]);
  });
});
