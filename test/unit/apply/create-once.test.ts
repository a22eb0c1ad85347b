import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/api-error.js';
import { createOnce } from '../../../src/apply/create-once.js';

const dropped = (): ApiError =>
  new ApiError({
    code: 'api.network',
    status: 0,
    method: 'POST',
    url: 'http://127.0.0.1/parsers',
    message: 'socket hang up',
    retryable: false,
    secrets: [],
  });

describe('createOnce: never a second POST on an ambiguous answer', () => {
  it('takes the object the list shows landed', async () => {
    let posts = 0;
    const created = await createOnce(
      async () => [
        { id: 'old', name: 'books' },
        { id: 'new', name: 'books' },
      ],
      async () => {
        posts++;
        throw dropped();
      },
      'books',
      { planned: new Map([['books', [{ id: 'old' }]]]) },
    );
    expect(created.id).toBe('new');
    expect(posts).toBe(1);
  });

  it('does not send again when the list does not show it (it may lag): a clear error, one POST', async () => {
    let posts = 0;
    const attempt = createOnce(
      async () => [],
      async () => {
        posts++;
        throw dropped();
      },
      'books',
      { planned: new Map() },
    );
    await expect(attempt).rejects.toMatchObject({
      code: 'apply.create-unconfirmed',
      message: expect.stringContaining('the create of "books" got no clear answer'),
    });
    expect(posts).toBe(1);
  });

  it('a refusal (4xx) is not ambiguous: thrown as it came, no list read', async () => {
    let lists = 0;
    const refused = new ApiError({
      code: 'api.bad-request',
      status: 400,
      method: 'POST',
      url: 'http://127.0.0.1/parsers',
      message: 'bad',
      retryable: false,
      secrets: [],
    });
    await expect(
      createOnce(
        async () => {
          lists++;
          return [];
        },
        async () => {
          throw refused;
        },
        'books',
        { planned: new Map() },
      ),
    ).rejects.toBe(refused);
    expect(lists).toBe(0);
  });
});
