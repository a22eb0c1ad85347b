import type { Command } from 'commander';
import { ScrapeformError } from '../errors.js';
import { loadManifests } from '../manifest/load-manifests.js';
import type { LoadedManifests } from '../manifest/load-manifests.js';
import { createColors } from '../output/colors.js';
import { renderDiagnostic } from '../output/render-diagnostics.js';
import { using } from '../workspace/open-workspace.js';
import { startWatchEndpoint } from '../workspace/watch-endpoint.js';
import { newWatchStatus, runWatch } from '../workspace/watch-loop.js';
import type { RunStatus } from './exit-codes.js';
import type { CommandContext, RunCommand } from './io.js';
import {
  addApiFlags,
  addLockFlags,
  durationFlag,
  environmentOptions,
  openFromFlags,
  pollIntervalFromEnv,
} from './shared-flags.js';
import { wholeNumber } from './options.js';
import type { ApiFlags } from './shared-flags.js';
import { stopOnSignals } from './stop-signals.js';
import { watchEventLines } from './watch-log.js';

interface WatchFlags extends ApiFlags {
  interval: string;
  heal?: boolean;
  maxRegenerations?: string;
  notify?: string;
  listen: string;
}

export function registerWatch(program: Command, run: RunCommand): void {
  const command = program
    .command('watch')
    .description(
      'check for drift on an interval (and with --heal revert it), serve /healthz and /metrics, notify when something changed',
    )
    .argument('[paths...]', 'manifest files or folders (default: the current folder)')
    .option('--interval <duration>', 'time between two drift checks', '15m')
    .option(
      '--heal',
      'revert drift by applying the manifests (deletes, replaces and archives are left and reported; holds the lock only while applying)',
    )
    .option(
      '--max-regenerations <n>',
      'regenerations heals may start over the whole watch (default 0: free heals only)',
    )
    .option(
      '--notify <url>',
      'POST a JSON report here when something changed (default SCRAPEFORM_NOTIFY_URL)',
    )
    .option(
      '--listen <host:port>',
      'where /healthz and /metrics are served (port 0: a free one)',
      '127.0.0.1:9464',
    );
  addLockFlags(addApiFlags(command)).action(async (paths: string[], flags: WatchFlags) =>
    run((ctx) => watch(ctx, paths, flags)),
  );
}

async function watch(ctx: CommandContext, paths: string[], flags: WatchFlags): Promise<RunStatus> {
  const intervalMs = durationFlag(flags.interval, '--interval', '30s, 15m or 1h', 1);
  const maxRegenerations = wholeNumber(flags.maxRegenerations, '--max-regenerations') ?? 0;
  if (flags.maxRegenerations !== undefined && flags.heal !== true)
    throw new ScrapeformError('cli.usage', '--max-regenerations is the budget of --heal: pass --heal too');
  const listen = parseListen(flags.listen);
  const notifyUrl = flags.notify ?? (ctx.io.env.SCRAPEFORM_NOTIFY_URL || undefined);
  if (notifyUrl !== undefined) checkNotifyUrl(notifyUrl);

  const controller = new AbortController();
  const stopListening = stopOnSignals(
    ctx,
    controller,
    'watch: stopping; a call in flight finishes and state is saved first (again to exit at once)',
  );
  try {
    return await using(
      openFromFlags(ctx, paths, flags, controller.signal),
      async (ws): Promise<RunStatus> => {
        const status = newWatchStatus(flags.heal === true ? { heal: { maxRegenerations } } : {});
        const endpoint = await startWatchEndpoint(listen, () => status);
        ctx.log(`watch: every ${flags.interval}; /healthz and /metrics on ${endpoint.url}`);
        const poll = pollIntervalFromEnv(ctx.io.env);
        // Read again at every run, as every other command reads them: the environment's paths and variables and
        // the var files (or a heal would push the variables' defaults, unapproved, or fail each run).
        // Manifests with errors (a bad commit, a half-written checkout) never heal; without --heal, the drift check
        // goes on with the last valid ones, so a watch that only notifies is not silenced by them.
        let lastValid = ws.manifests;
        const readManifests = async (): Promise<LoadedManifests> => {
          // The workspace's own reading (the environment's paths, variables and var files), whose diagnostics
          // quote the run's key nowhere.
          const loaded = await (
            ws.reloadManifests ??
            (() => loadManifests({ paths, env: ctx.io.env, ...environmentOptions(flags) }))
          )();
          if (loaded.valid) {
            lastValid = loaded;
            return loaded;
          }
          const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
          const first =
            errors[0] !== undefined ? renderDiagnostic(errors[0], { colors: createColors(false) }) : '';
          const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
          if (flags.heal === true)
            throw new ScrapeformError(
              'manifest.invalid',
              `the manifests have errors; nothing was healed: ${first}${more}`,
              { details: { diagnostics: loaded.diagnostics } },
            );
          ctx.log(`watch: the manifests have errors; checking with the last valid ones: ${first}${more}`);
          return lastValid;
        };
        try {
          await runWatch(
            ws,
            {
              intervalMs,
              signal: controller.signal,
              manifests: ws.manifests,
              ...(flags.heal === true
                ? { heal: { maxRegenerations, loadManifests: readManifests } }
                : { reloadManifests: readManifests }),
              ...(notifyUrl !== undefined ? { notifyUrl } : {}),
              ...(poll !== undefined
                ? { pollMinMs: poll, pollMaxMs: Math.max(poll, Math.min(15_000, poll * 15)) }
                : {}),
              onEvent: (event) => {
                for (const line of watchEventLines(event, ctx.colors)) ctx.log(line);
              },
            },
            status,
          );
        } finally {
          await endpoint.close();
        }
        return 'ok';
      },
    );
  } finally {
    stopListening();
  }
}

function parseListen(text: string): { host: string; port: number } {
  const match = /^(.*):(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (match === null || port > 65_535)
    throw new ScrapeformError('cli.usage', `--listen: "${text}" is not host:port`, {
      hint: 'such as 127.0.0.1:9464',
    });
  return { host: (match[1] ?? '').replace(/^\[(.*)\]$/, '$1') || '127.0.0.1', port };
}
/**
 * `--notify` (or SCRAPEFORM_NOTIFY_URL), checked before the watch starts and never shown: chat webhook URLs carry
 * their secret. One with a user name or password was accepted, and fetch then refused every post with an error
 * that quoted it, credentials included, in the log.
 */
function checkNotifyUrl(value: string): void {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    throw new ScrapeformError('cli.usage', '--notify is not an http(s) URL');
  if (url.username !== '' || url.password !== '')
    throw new ScrapeformError('cli.usage', '--notify must not hold a user name or password (user:secret@)', {
      hint: 'notifications are posted without them (fetch refuses such a URL); give the endpoint a token in its path or query, as chat webhooks do',
    });
}
