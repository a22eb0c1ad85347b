import type { Command } from 'commander';
import { PLAN_FORMAT_VERSION } from '../plan/model.js';
import { STATE_FORMAT_VERSION } from '../state/model.js';
import { VERSION } from '../version.js';
import type { RunCommand } from './io.js';
import { renderJson } from '../output/render-json.js';

/** `scrapeform version`: what a bug report or a CI log needs, as text or JSON. */
export function registerVersion(program: Command, run: RunCommand): void {
  program
    .command('version')
    .description('print the version of scrapeform, of Node.js, and of the plan and state formats')
    .option('--json', 'print them as JSON')
    .action(async (flags: { json?: boolean }) =>
      run(async (ctx) => {
        const facts = {
          version: VERSION,
          node: process.versions.node,
          platform: `${process.platform}-${process.arch}`,
          plan_format_version: PLAN_FORMAT_VERSION,
          state_format_version: STATE_FORMAT_VERSION,
        };
        ctx.print(
          flags.json === true
            ? renderJson(facts)
            : `scrapeform ${facts.version} (Node.js ${facts.node}, ${facts.platform}; plan format ${facts.plan_format_version}, state format ${facts.state_format_version})`,
        );
        return 'ok';
      }),
    );
}
