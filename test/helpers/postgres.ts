import pg from 'pg';

/**
 * The test PostgreSQL server: SCRAPEFORM_TEST_POSTGRES is an admin URL (.ci/postgres.sh starts one). Tests that need
 * it skip without it, except where SCRAPEFORM_REQUIRE_POSTGRES=1 (CI) makes the missing server a failure.
 */
export const ADMIN_URL = process.env.SCRAPEFORM_TEST_POSTGRES;
export const POSTGRES_REQUIRED = process.env.SCRAPEFORM_REQUIRE_POSTGRES === '1';
/** Whether a suite that needs the server skips (with `what` said once, so a skip is never silent). */
export function skipWithoutPostgres(what: string): boolean {
  const skip = ADMIN_URL === undefined && !POSTGRES_REQUIRED;
  if (skip)
    console.warn(
      `skipping ${what}: SCRAPEFORM_TEST_POSTGRES is not set (source .ci/postgres.sh to run them)`,
    );
  return skip;
}

let databases = 0;

/** A new empty database of its own for one test, named after `prefix`; its URL. */
export async function newDatabase(prefix: string): Promise<string> {
  if (ADMIN_URL === undefined)
    throw new Error(
      'SCRAPEFORM_REQUIRE_POSTGRES=1 but SCRAPEFORM_TEST_POSTGRES is not set: CI must start PostgreSQL (.ci/postgres.sh)',
    );
  const name = `scrapeform_${prefix}_${process.pid}_${Date.now()}_${databases++}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Drops a role a test made (and what it owns) through `admin`, a session of its database, and ends that session. */
export async function dropRoleAndEnd(admin: pg.Client, role: string): Promise<void> {
  try {
    await admin.query(`DROP OWNED BY ${role}`);
    await admin.query(`DROP ROLE ${role}`);
  } finally {
    await admin.end();
  }
}
