import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

/** action.yml as the tests read it: its inputs, outputs and steps. */
export interface Step {
  id?: string;
  name?: string;
  if?: string;
  run?: string;
  uses?: string;
  shell?: string;
  env?: Record<string, string>;
  with?: Record<string, string>;
}

export interface Action {
  runs: { using: string; steps: Step[] };
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
}

/** action.yml, parsed. */
export async function readAction(): Promise<Action> {
  return parse(await readFile(path.join(ROOT, 'action.yml'), 'utf8')) as Action;
}

/**
 * One step of the action run as bash with GitHub's runner conventions in `dir`, scrapeform replaced by a stand-in
 * that records its arguments and runs `dir/fake.mjs`.
 */
export async function runActionStep(
  dir: string,
  id: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string; output: string; args: string }> {
  const action = await readAction();
  const step = action.runs.steps.find((s) => s.id === id || s.name === id);
  if (step?.run === undefined) throw new Error(`no step ${id}`);
  const bin = path.join(dir, 'bin');
  await mkdir(bin, { recursive: true });
  // A stand-in that records its arguments and answers like scrapeform plan would.
  await writeFile(
    path.join(bin, 'scrapeform'),
    `#!/usr/bin/env bash\nprintf '%s\\n' "$@" > "${dir}/args"\nexec node "${path.join(dir, 'fake.mjs')}" "$@"\n`,
    { mode: 0o755 },
  );
  const output = path.join(dir, `output-${id}`);
  await writeFile(output, '');
  try {
    const result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run], {
      cwd: dir,
      env: {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        GITHUB_OUTPUT: output,
        GITHUB_STEP_SUMMARY: path.join(dir, 'summary'),
        // ${{ github.action_path }}: this checkout, whose files the steps run.
        ACTION_PATH: ROOT,
        ...env,
      },
    });
    return {
      code: 0,
      ...result,
      output: await readFile(output, 'utf8'),
      args: await readFile(path.join(dir, 'args'), 'utf8').catch(() => ''),
    };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return {
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
      output: await readFile(output, 'utf8'),
      args: await readFile(path.join(dir, 'args'), 'utf8').catch(() => ''),
    };
  }
}

export interface User {
  login: string;
  id: number;
  type: 'Bot' | 'User';
}

export interface Comment {
  id: number;
  body: string;
  user?: User;
}

/** Who GITHUB_TOKEN posts as (REST `user` of its comments; GraphQL `viewer` gives its login and id). */
export const ACTIONS_BOT: User = { login: 'github-actions[bot]', id: 41898282, type: 'Bot' };
export const PR_AUTHOR: User = { login: 'pr-author', id: 1001, type: 'User' };

/** The token's identity as GraphQL's viewer answers it, or the error it answers with. */
export type Viewer = { login: string; databaseId: number } | Error;

/** The pull request's labels before the script runs, and the status GitHub answers adding one with (403: no right). */
export interface LabelSetting {
  present?: string[];
  addStatus?: number;
}

/**
 * The pull-request step's script, run as actions/github-script runs it, against a fake GitHub, with the plan's files
 * in `dir`. Returns the comments and the pull request's labels after it, the comments it updated and its warnings.
 */
export async function runCommentScript(
  dir: string,
  files: { code: string; md?: string; err?: string },
  env: Record<string, string>,
  existing: Comment[] = [],
  token: { user: User; viewer?: Viewer } = { user: ACTIONS_BOT },
  setting: LabelSetting = {},
): Promise<{ comments: Comment[]; labels: string[]; updated: number[]; warnings: string[] }> {
  const action = await readAction();
  const script = action.runs.steps.find((s) => s.uses?.startsWith('actions/github-script@'))?.with?.script;
  if (script === undefined) throw new Error('no comment step');
  await writeFile(path.join(dir, 'plan.code'), `${files.code}\n`);
  await writeFile(path.join(dir, 'plan.md'), files.md ?? '');
  await writeFile(path.join(dir, 'plan.err'), files.err ?? '');
  const comments = existing.map((c) => ({ ...c }));
  const labels: string[] = [...(setting.present ?? [])];
  const updated: number[] = [];
  const warnings: string[] = [];
  const rest = {
    issues: {
      listComments: async () => ({ data: comments }),
      updateComment: async ({ comment_id, body }: { comment_id: number; body: string }) => {
        updated.push(comment_id);
        const found = comments.find((c) => c.id === comment_id);
        if (found) found.body = body;
      },
      createComment: async ({ body }: { body: string }) => {
        comments.push({ id: comments.length + 100, body, user: token.user });
      },
      addLabels: async ({ labels: added }: { labels: string[] }) => {
        if (setting.addStatus !== undefined) {
          throw Object.assign(new Error('Resource not accessible by integration'), {
            status: setting.addStatus,
          });
        }
        labels.push(...added.filter((l) => !labels.includes(l)));
      },
      removeLabel: async ({ name }: { name: string }) => {
        if (!labels.includes(name)) throw Object.assign(new Error('Label does not exist'), { status: 404 });
        labels.splice(labels.indexOf(name), 1);
      },
    },
  };
  const viewer = token.viewer ?? { login: token.user.login, databaseId: token.user.id };
  const github = {
    rest,
    paginate: async (method: () => Promise<{ data: Comment[] }>) => (await method()).data,
    graphql: async (query: string) => {
      if (!/^\s*query\s*\{\s*viewer\s*\{\s*login\s+databaseId\s*\}\s*\}\s*$/.test(query))
        throw new Error(`unexpected query ${query}`);
      if (viewer instanceof Error) throw viewer;
      return { viewer };
    },
  };
  const core = { warning: (message: string) => warnings.push(message), info: () => undefined };
  const context = { repo: { owner: 'o', repo: 'r' }, issue: { number: 7 } };
  const saved = { ...process.env };
  Object.assign(process.env, {
    OUT_DIR: dir,
    WORKSPACE: 'production',
    DIRECTORY: 'scrapers',
    COMMIT: '0123456789abcdef0123456789abcdef01234567',
    ENVIRONMENT: '',
    STATE: '',
    COMMENT: 'true',
    DESTRUCTIVE: 'false',
    DESTRUCTIVE_LABEL: '',
    ACTION_PATH: ROOT,
    ...env,
  });
  try {
    const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
      ...args: string[]
    ) => (...values: unknown[]) => Promise<void>;
    await new AsyncFunction('github', 'context', 'core', 'require', script)(
      github,
      context,
      core,
      createRequire(import.meta.url),
    );
  } finally {
    process.env = saved;
  }
  return { comments, labels, updated, warnings };
}
