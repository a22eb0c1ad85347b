import type { CommandContext } from './io.js';

/**
 * Ctrl-C and SIGTERM for a command that stops gracefully (apply, watch, test): the first aborts `controller` (no new
 * calls; calls in flight finish; apply and watch save state, test reports the checks that ran) and says `stopping`;
 * a second exits at once with 130, saying `again`, as Terraform does on a second interrupt. A CI cancel sends
 * SIGINT, then SIGTERM, then SIGKILL seconds later: a run that cannot stop in that time (a service or database that
 * stopped answering) exits on the second signal rather than be killed. State writes are atomic, so nothing is left
 * half written; what the last calls did is recovered by name by the next plan, and a lock left by this process is
 * taken over by the next run on the same machine (on another, `force-unlock`). Returns what removes the listeners.
 */
export function stopOnSignals(
  ctx: CommandContext,
  controller: AbortController,
  stopping: string,
  /** Said on the second signal: what is left behind (a command that writes no state says so of its own). */
  again = 'Interrupted again: exiting now. State holds what was written; the next plan recovers the rest by name.',
): () => void {
  const onSignal = (): void => {
    if (controller.signal.aborted) {
      ctx.log(ctx.colors.red(again));
      process.exit(130);
    }
    controller.abort();
    ctx.log(ctx.colors.yellow(stopping));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
