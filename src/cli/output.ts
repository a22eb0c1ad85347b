import type { Command } from 'commander';
import { createStateBackend } from '../state/create-backend.js';
import { stateOptions } from './shared-flags.js';
import type { RunCommand } from './io.js';

export function registerOutput(program: Command, run: RunCommand): void {
  program
    .command('output')
    .description(
      'ids and versions of managed parsers and projects, for consumers (reads state only; no key needed)',
    )
    .option('--json', 'print them as JSON')
    .option('--state <path-or-url>', 'state file, or a postgres:// URL')
    .option('--workspace <name>', 'workspace in a database state backend')
    .action(async (flags: { json?: boolean; state?: string; workspace?: string }) =>
      run(async (ctx) => {
        const where = stateOptions(ctx, flags);
        const backend = createStateBackend(where.statePath, where.workspace);
        const state = await backend.read().finally(() => backend.close?.());
        const parsers: Record<string, { address: string; id: string; version: number | null }> = {};
        const projects: Record<string, { address: string; id: number }> = {};
        for (const [address, r] of Object.entries(state.resources)) {
          if (r.kind === 'Parser') parsers[r.name] = { address, id: r.id, version: r.version };
          else projects[r.name] = { address, id: r.id };
        }
        if (flags.json === true) {
          ctx.print(JSON.stringify({ parsers, projects }, null, 2));
          return 'ok';
        }
        const rows = [
          ...Object.values(parsers).map((p) => [
            p.address,
            p.id,
            p.version === null ? '-' : String(p.version),
          ]),
          ...Object.values(projects).map((p) => [p.address, String(p.id), '']),
        ];
        ctx.print(rows.length === 0 ? 'Nothing is managed yet.' : table(['address', 'id', 'version'], rows));
        return 'ok';
      }),
    );
}

/** A plain text table, columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}
