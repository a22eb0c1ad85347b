import {
  accessSync,
  constants,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * A V8 code cache for the bundled CLI's own files (dist/cli/main.cjs and its chunks), as Node 22's
 * `module.enableCompileCache` keeps one; Node 20 has none. Most of a command's start is V8 compiling code it runs
 * for the first time (BENCHMARKS.md): with the bytecode of the functions an earlier run compiled, `validate` of one
 * file started in about 0.86x the time, and 1,000 project creates took about 0.92x.
 *
 * The cache lives beside the code it was made from (`dist/cli/code-cache/`, made by the first run that loads a file
 * and can write there), so it is trusted exactly as far as that code: a cache in a shared folder such as the
 * system's temporary one could be planted by another user. Each entry starts with the CRC-32 and length of the
 * source it was made from: V8 itself checks only the length, and a file changed in place must not run old bytecode.
 * V8 refuses an entry made by another V8 version or with other flags; the file is then compiled as usual and the
 * entry made again at exit. Anything that goes wrong here falls back to Node's own loading.
 */

/** `SCRAPEFORM_CODE_CACHE=0` turns it off; `SCRAPEFORM_CODE_CACHE_DEBUG=1` says at exit what it did (stderr). */
export interface CodeCacheOptions {
  /** The folder of the files to cache (dist/cli): only `.cjs` files under it are loaded through the cache. */
  root: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** What one run did with the cache, for SCRAPEFORM_CODE_CACHE_DEBUG. */
interface Tally {
  used: number;
  refused: number;
  missing: number;
  written: number;
}

const HEADER_BYTES = 8;

export function useCodeCache(options: CodeCacheOptions): void {
  const off = options.env.SCRAPEFORM_CODE_CACHE;
  if (off === '0' || off === 'false' || off === 'off') return;
  const dir = path.join(options.root, 'code-cache');
  // Node 22 and later keep such a cache themselves.
  const native = (Module as unknown as { enableCompileCache?: (dir: string) => unknown }).enableCompileCache;
  if (typeof native === 'function') {
    native(dir);
    return;
  }
  const own = options.root + path.sep;
  const tally: Tally = { used: 0, refused: 0, missing: 0, written: 0 };
  const toWrite: { script: vm.Script; file: string; header: Buffer }[] = [];
  type Compile = (this: Module, content: string, filename: string) => unknown;
  const proto = Module.prototype as unknown as { _compile: Compile };
  const original = proto._compile;
  proto._compile = function (this: Module, content: string, filename: string): unknown {
    if (!filename.startsWith(own) || !filename.endsWith('.cjs'))
      return original.call(this, content, filename);
    const source = Module.wrap(withoutShebang(content));
    const header = headerOf(source);
    const file = path.join(dir, `${path.relative(options.root, filename).split(path.sep).join('~')}.cache`);
    const cachedData = readEntry(file, header);
    const script = new vm.Script(source, {
      filename,
      ...(cachedData !== undefined ? { cachedData } : {}),
    });
    if (cachedData === undefined) tally.missing++;
    else if (script.cachedDataRejected === true) tally.refused++;
    else tally.used++;
    if (cachedData === undefined || script.cachedDataRejected === true)
      toWrite.push({ script, file, header });
    const run = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return run.call(this.exports, this.exports, requireOf(this), this, filename, path.dirname(filename));
  };
  process.once('exit', () => {
    // The bytecode of every function compiled so far is in the entry: made at exit, not when the file loaded. Whether
    // the folder can be written is asked only when there is something to write (not at every start).
    const writable = toWrite.length > 0 && canWrite(options.root);
    if (writable) removeLeftovers(dir);
    for (const { script, file, header } of writable ? toWrite : []) {
      if (writeEntry(dir, file, header, script.createCachedData())) tally.written++;
    }
    if (options.env.SCRAPEFORM_CODE_CACHE_DEBUG === '1') {
      process.stderr.write(
        `code cache: ${tally.used} used, ${tally.refused} refused, ${tally.missing} missing, ${tally.written} written\n`,
      );
    }
  });
}

/** The CRC-32 and length (in UTF-16 units) of the source an entry is for. */
function headerOf(source: string): Buffer {
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32LE(crc32(source), 0);
  header.writeUInt32LE(source.length, 4);
  return header;
}

/** The V8 data of an entry made from this very source, or undefined. */
function readEntry(file: string, header: Buffer): Buffer | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER_BYTES || !bytes.subarray(0, HEADER_BYTES).equals(header)) return undefined;
  return bytes.subarray(HEADER_BYTES);
}

/** Written whole or not at all (a run reading it meanwhile sees the old entry or the new one). */
function writeEntry(dir: string, file: string, header: Buffer, data: Buffer): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(temporary, Buffer.concat([header, data]));
    renameSync(temporary, file);
    return true;
  } catch {
    rmSync(temporary, { force: true });
    return false;
  }
}

/** How old a temporary entry must be to count as left by a run killed while writing it (a write takes milliseconds). */
export const LEFTOVER_AGE_MS = 60_000;

/**
 * Temporary entries of runs killed between their write and its rename, which nothing else would ever remove: taken
 * out when entries are written (rarely: once per command kind and build), never one another run may be writing now.
 */
function removeLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const name of names) {
    if (!name.endsWith('.tmp')) continue;
    const file = path.join(dir, name);
    try {
      if (now - statSync(file).mtimeMs > LEFTOVER_AGE_MS) rmSync(file, { force: true });
    } catch {
      // Gone meanwhile (its run renamed it), or not ours to remove: left.
    }
  }
}

function canWrite(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Node strips a `#!` line from a CommonJS file before wrapping it. */
function withoutShebang(content: string): string {
  return content.startsWith('#!') ? `//${content.slice(2)}` : content;
}

/** The `require` Node gives a module: through the module itself, so its children and `require.main` are as usual. */
function requireOf(module: Module): NodeJS.Require {
  const statics = Module as unknown as {
    _resolveFilename(request: string, parent: Module, isMain: boolean, options?: unknown): string;
    _cache: NodeJS.Require['cache'];
    _extensions: NodeJS.Require['extensions'];
    _resolveLookupPaths(request: string, parent: Module): string[] | null;
  };
  const require = ((id: string) => module.require(id)) as NodeJS.Require;
  const resolve = ((request: string, options?: { paths?: string[] }) =>
    statics._resolveFilename(request, module, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => statics._resolveLookupPaths(request, module);
  require.resolve = resolve;
  require.main = process.mainModule;
  require.cache = statics._cache;
  require.extensions = statics._extensions;
  return require;
}
