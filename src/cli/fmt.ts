import type { Command } from 'commander';
import { discoverManifestFiles } from '../manifest/discover-files.js';
import type { Diagnostic } from '../manifest/diagnostic.js';
import { formatManifestText } from '../manifest/format-manifest.js';
import { readManifestText } from '../manifest/read-manifest-file.js';
import { countDiagnostics, renderDiagnostics } from '../output/render-diagnostics.js';
import type { RunCommand } from './io.js';
import { writeOutputFile } from './write-output.js';

/** `scrapeform fmt`: manifests in canonical key order and indentation, comments kept (`--check` for CI). */
export function registerFmt(program: Command, run: RunCommand): void {
  program
    .command('fmt')
    .description('rewrite manifests in canonical key order and indentation (comments kept)')
    .argument('[paths...]', 'manifest files or folders (default: the current folder)')
    .option('--check', 'write nothing; exit 1 and list the files that are not formatted')
    .action(async (paths: string[], flags: { check?: boolean }) =>
      run(async (ctx) => {
        const { files, diagnostics } = await discoverManifestFiles(paths, { enterProjects: true });
        // A path that does not exist (a CI step `fmt --check manifest/` for manifests/) passed as formatted with
        // nothing checked, and under a .scrapeformignore that cannot be read, files it leaves out were rewritten:
        // an error, as for every command that reads manifests, and nothing is written.
        const errors = diagnostics.filter((d) => d.severity === 'error');
        if (errors.length > 0) {
          ctx.log(renderDiagnostics(errors, { colors: ctx.colors }));
          ctx.log(countDiagnostics(errors));
          return 'error';
        }
        // Read as every command reads a manifest: a file that is not UTF-8 (Latin-1, UTF-16) is an error at its first
        // bad byte, and nothing is written. Decoded loosely, its bytes were rewritten as U+FFFD, for good.
        const texts: [string, string][] = [];
        const unreadable: Diagnostic[] = [];
        for (const file of files) {
          // A UTF-8 byte order mark is kept: fmt writes the file back as it found it but for the format.
          const read = readManifestText(file, true);
          if ('text' in read) texts.push([file, read.text]);
          else unreadable.push(read.diagnostic);
        }
        if (unreadable.length > 0) {
          ctx.log(renderDiagnostics(unreadable, { colors: ctx.colors }));
          ctx.log(`${countDiagnostics(unreadable)}; nothing was formatted`);
          return 'error';
        }
        const changed: string[] = [];
        for (const [file, text] of texts) {
          const formatted = formatManifestText(text);
          if (formatted === text) continue;
          if (flags.check !== true) {
            // Whole or not at all: a manifest cut short by a full disk or a kill would plan deletes for what was cut.
            const n = changed.length;
            const before =
              n === 0
                ? ''
                : `; ${n === 1 ? '1 file' : `${n} files`} before it ${n === 1 ? 'was' : 'were'} formatted`;
            await writeOutputFile(
              file,
              formatted,
              'the formatted manifest',
              `the file is unchanged${before}`,
              {
                whole: true,
              },
            );
          }
          changed.push(file);
        }
        if (flags.check === true) {
          if (changed.length === 0) return 'ok';
          ctx.log(`Not formatted (run scrapeform fmt):\n${changed.map((f) => `  ${f}`).join('\n')}`);
          return 'error';
        }
        ctx.print(
          changed.length === 0 ? 'Nothing to format.' : changed.map((f) => `formatted ${f}`).join('\n'),
        );
        return 'ok';
      }),
    );
}
