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
    // Found, not answered: the report shows the POST got no answer and the list showed the object.
    expect(created).toEqual({
      object: { id: 'new', name: 'books' },
      recovered: { status: 0, found: 'list' },
    });
    expect(posts).toBe(1);
  });

  it('an object its own answer gave is not recovered: no status or finding to report, no list read', async () => {
    let lists = 0;
    const created = await createOnce(
      async () => {
        lists++;
        return [];
      },
      async () => ({ id: 'new', name: 'books' }),
      'books',
      { planned: new Map() },
    );
    expect([created, lists]).toEqual([{ object: { id: 'new', name: 'books' } }, 0]);
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

describe('createOnce: a POST answered 303 See Other', () => {
  const seeOther = (location: string | undefined): ApiError =>
    new ApiError({
      code: 'api.redirect',
      status: 303,
      method: 'POST',
      url: 'http://127.0.0.1/parsers',
      message: 'redirected with 303; not followed',
      retryable: false,
      secrets: [],
      ...(location !== undefined ? { location } : {}),
    });

  /** createOnce of "books" answered 303 to `location`, whose read gives `named`; the list shows `listed`. */
  async function run(
    named: { id: string; name?: string } | undefined | Error,
    listed: { id: string; name: string }[] = [],
    location: string | null = 'http://127.0.0.1/parsers/p-9',
  ): Promise<{ created: unknown; reads: string[]; lists: number }> {
    const reads: string[] = [];
    let lists = 0;
    const created = await createOnce(
      async () => {
        lists++;
        return listed;
      },
      async (): Promise<{ id: string; name?: string }> => {
        throw seeOther(location ?? undefined);
      },
      'books',
      {
        planned: new Map([['books', [{ id: 'old' }]]]),
        seeOther: async (at) => {
          reads.push(at);
          if (named instanceof Error) throw named;
          return named;
        },
      },
    ).catch((e: unknown) => e);
    return { created, reads, lists };
  }

  it('takes what its Location names when it is an object of that name not there before: no list read', async () => {
    expect(await run({ id: 'p-9', name: 'books' })).toEqual({
      created: { object: { id: 'p-9', name: 'books' }, recovered: { status: 303, found: 'location' } },
      reads: ['http://127.0.0.1/parsers/p-9'],
      lists: 0,
    });
  });

  it.each([
    ['of another name', { id: 'p-9', name: 'novels' }],
    ['with no name', { id: 'p-9' }],
    ['that was there before the POST', { id: 'old', name: 'books' }],
    ['not there (a 404)', undefined],
    ['that could not be read', new Error('socket hang up')],
  ])('an object %s is not taken: the list is read, as after a lost answer', async (_what, named) => {
    const found = await run(named, [
      { id: 'old', name: 'books' },
      { id: 'p-10', name: 'books' },
    ]);
    expect([found.created, found.lists]).toEqual([
      { object: { id: 'p-10', name: 'books' }, recovered: { status: 303, found: 'list' } },
      1,
    ]);
    const none = await run(named);
    expect(none.created).toMatchObject({ code: 'apply.create-unconfirmed' });
  });

  it('with no Location, no read: looked for by name', async () => {
    const found = await run({ id: 'p-9', name: 'books' }, [], null);
    expect([found.reads, found.lists]).toEqual([[], 1]);
    expect(found.created).toMatchObject({ code: 'apply.create-unconfirmed' });
  });
});
