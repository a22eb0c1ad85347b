import { ApiError, mayHaveLanded, unreadableStatus } from '../api/api-error.js';
import type { IdsBefore } from '../api/api-error.js';
import { ScrapeformError } from '../errors.js';
import type { Recovered } from './apply-model.js';
import { looseName } from '../plan/plan-context.js';

export interface CreateOnceOptions<T extends { id: string | number; name?: string | undefined }> {
  /** What the plan read: the live objects by name, so a create costs no list of its own (else the list is read). */
  planned?: ReadonlyMap<string, readonly { id: T['id'] }[]> | undefined;
  /** Runs once, after the objects of that name are known and before the first POST (apply records its intent). */
  beforeCreate?: ((before: T['id'][]) => Promise<void>) | undefined;
  /**
   * Ids of objects that were there before the POST besides those of its name (the ones state manages: the parser a
   * replace replaces may have another name). With those of its name, `create` is given them: an answer naming one
   * is no new object (existingNamed).
   */
  existing?: IdsBefore<T['id']> | undefined;
  /**
   * The object the Location of a 303 See Other to the POST names, read by id (the clients' seeOther): undefined
   * when it names none, or none is there yet.
   */
  seeOther?: ((location: string) => Promise<T | undefined>) | undefined;
}

/** What a create made; `recovered` when the POST's own answer did not give it and it was found afterwards. */
export interface Created<T> {
  object: T;
  recovered?: Recovered;
}

/**
 * A create that is never sent twice on an ambiguous answer: after a failure that may have landed (no answer, a 5xx,
 * a redirect not followed: a 303 See Other, a 302 of a gateway), list by name and take the one object of that name
 * that was not there before. A 303 is looked at first: what its Location names is taken at once when it is such an
 * object (see-other.ts). When the list shows none, nothing is sent again: a list is not proof of absence (it may lag
 * behind the create, issue 13), and a second POST that lands too is a duplicate that costs a generation. The intent
 * stays in state, marked unconfirmed: the next plan records the object by name once a list shows it, and until then
 * sends the create again only with `--recreate` (recover-intents.ts, approval.ts). An object found so comes with the
 * status the POST got (with `answer: 'unreadable'` for a 2xx whose body could not be read) and how it was found,
 * for the report: its POST gave no object.
 */
export async function createOnce<T extends { id: string | number; name?: string | undefined }>(
  list: () => Promise<T[]>,
  create: (existing: IdsBefore<T['id']>) => Promise<T>,
  name: string,
  options: CreateOnceOptions<T> = {},
): Promise<Created<T>> {
  const named =
    options.planned !== undefined
      ? (options.planned.get(name) ?? [])
      : (await list()).filter((o) => o.name === name);
  const before = new Set(named.map((o) => o.id));
  await options.beforeCreate?.([...before]);
  try {
    const existing = options.existing;
    return { object: await create({ has: (id) => before.has(id) || existing?.has(id) === true }) };
  } catch (error) {
    // The POST was processed and the answer points at its outcome: taken at once when it is an object of that name
    // that was not there before (as from the list below); else it is looked for by name, as after a lost answer.
    const shown = await seenOther(error, options.seeOther);
    if (shown !== undefined && shown.name === name && !before.has(shown.id))
      return { object: shown, recovered: { status: 303, found: 'location' } };
    // A refused connection never sent it: that is no more ambiguous than a 4xx.
    if (!mayHaveLanded(error)) throw error;
    let listed: T[];
    try {
      listed = await list();
    } catch (listError) {
      // The create may still have landed: this is no refusal of it (a 429 or 403 of the list would read as one,
      // and its intent would go), and the object of that name is ours, not someone else's to adopt.
      throw unconfirmed(name, error, `the list to look for it failed too (${messageOf(listError)})`);
    }
    const landed = listed.filter((o) => o.name === name && !before.has(o.id));
    if (landed.length === 1 && landed[0] !== undefined)
      return { object: landed[0], recovered: foundInList(error) };
    if (landed.length > 1) throw error;
    throw unconfirmed(
      name,
      error,
      notListed(name, listed, (id) => before.has(id) || options.existing?.has(id) === true),
    );
  }
}

/**
 * Why a create that may have landed is not found: the list shows no object of its name. Objects new since the POST
 * whose name differs only in case, spaces or Unicode normalisation are named: the service may have stored the
 * name so (then the next plan stops on them, near names, rather than create again).
 */
function notListed<T extends { id: string | number; name?: string | undefined }>(
  name: string,
  listed: readonly T[],
  wasThere: (id: T['id']) => boolean,
): string {
  const key = looseName(name);
  const near = listed.filter(
    (o) => o.name !== undefined && o.name !== name && looseName(o.name) === key && !wasThere(o.id),
  );
  if (near.length === 0) return 'the list does not show it yet';
  const named = near.map((o) => `${String(o.id)} named ${JSON.stringify(o.name)}`).join(', ');
  return `the list shows no object of that name, but ${named}, which differs from it only in case, spaces or Unicode normalisation: it may be the one this create made, stored under that spelling`;
}

/**
 * How a create found in the list reads in the report: the status its POST got and, for a 2xx whose answer could not
 * be read, that it could not (a bare 201 would not say why the object had to be found).
 */
function foundInList(error: ApiError): Recovered {
  const unreadable = unreadableStatus(error);
  return unreadable === undefined
    ? { status: error.status, found: 'list' }
    : { status: unreadable, answer: 'unreadable', found: 'list' };
}

/**
 * What a create's 303 See Other names, read (see-other.ts); undefined for any other failure, and when the read
 * fails: a failed look is no answer, and the list is read next.
 */
async function seenOther<T extends { id: string | number; name?: string | undefined }>(
  error: unknown,
  read: CreateOnceOptions<T>['seeOther'],
): Promise<T | undefined> {
  if (
    !(error instanceof ApiError) ||
    error.status !== 303 ||
    error.location === undefined ||
    read === undefined
  )
    return undefined;
  return read(error.location).catch(() => undefined);
}

function unconfirmed(name: string, error: ApiError, why: string): ScrapeformError {
  return new ScrapeformError(
    'apply.create-unconfirmed',
    `the create of "${name}" got no clear answer (${error.message}) and ${why}; it was not sent again`,
    {
      hint: 'apply again later: once a list shows it, it is recorded as this create; until then it is not sent again unless --recreate names its address (after checking the service that it did not land)',
      cause: error,
    },
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
