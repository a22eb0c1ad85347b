import { readFileSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import { isMap, isScalar, parseDocument } from 'yaml';
import { decodeText } from '../decode-text.js';
import { ENVIRONMENT_NAME, projectFileIn } from '../manifest/project-file-names.js';
import type { RunCommand } from './io.js';

/*
 * `scrapeform __complete env`: what the completion scripts call at `--env <TAB>`. It runs at every TAB, so it reads
 * scrapeform.yaml with the YAML parser alone (no manifest, state, client or emulator module, no network, no key),
 * and it is quiet: a missing, large, unreadable or broken project file offers no name and prints nothing, rather
 * than an error inside the prompt.
 */

/** What a TAB may read: a project file larger than this is no one's hand-written file. */
const MAX_PROJECT_FILE_BYTES = 1024 * 1024;

export function registerCompleteValues(program: Command, run: RunCommand): void {
  program
    .command('__complete', { hidden: true })
    .description('the values a completion script offers (env: the environments of scrapeform.yaml)')
    .argument('<kind>', 'env')
    // `scrapeform --chdir DIR plan --env <TAB>`: the scripts pass DIR here, where a folder that is not there offers
    // nothing (the program's own --chdir would refuse it with an error).
    .option('--chdir <dir>', 'read the scrapeform.yaml of this folder', '')
    .action(async (kind: string, options: { chdir: string }) =>
      run(async (ctx) => {
        const names = kind === 'env' ? environmentNames(options.chdir) : [];
        if (names.length > 0) ctx.print(names.join('\n'));
        return 'ok';
      }),
    );
}

/**
 * The environments declared in the project file of `dir` (the current folder by default), in the order written;
 * none on any problem.
 */
export function environmentNames(dir = ''): string[] {
  try {
    const file = projectFileIn(dir);
    if (file === undefined || statSync(file).size > MAX_PROJECT_FILE_BYTES) return [];
    const decoded = decodeText(readFileSync(file));
    if (!('text' in decoded)) return [];
    const doc = parseDocument(decoded.text, { uniqueKeys: true });
    if (doc.errors.length > 0) return [];
    // The keys alone, read from the node: no alias is expanded and no value interpolated.
    const environments = doc.get('environments', true);
    if (!isMap(environments)) return [];
    return environments.items
      .map((item) => (isScalar(item.key) ? item.key.value : undefined))
      .filter((name): name is string => typeof name === 'string' && ENVIRONMENT_NAME.test(name));
  } catch {
    return [];
  }
}
