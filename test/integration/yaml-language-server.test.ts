import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** Every answer the test waits for is bounded: a server that never answers fails the test, it does not hang it. */
const ANSWER_MS = 20_000;

interface Diagnostic {
  message: string;
  range: { start: { line: number; character: number } };
}

/**
 * A minimal Language Server Protocol client over stdio: Content-Length framed JSON-RPC, answering the requests a
 * yaml-language-server makes of its editor (configuration, schema files), and collecting published diagnostics.
 */
class LspClient {
  private buffer = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, (result: unknown) => void>();
  private readonly diagnostics = new Map<string, ((d: Diagnostic[]) => void)[]>();
  stderr = '';

  constructor(private readonly server: ChildProcessWithoutNullStreams) {
    server.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    server.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
  }

  static start(): LspClient {
    const bin = createRequire(import.meta.url).resolve('yaml-language-server/bin/yaml-language-server');
    return new LspClient(spawn(process.execPath, [bin, '--stdio'], { stdio: 'pipe' }));
  }

  request(method: string, params: unknown): Promise<unknown> {
    const id = this.nextId++;
    this.send({ jsonrpc: '2.0', id, method, params });
    return bounded(new Promise((resolve) => this.pending.set(id, resolve)), `${method} answered`);
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** The diagnostics the server publishes for a document after it is opened. */
  diagnosticsOf(uri: string): Promise<Diagnostic[]> {
    return bounded(
      new Promise((resolve) => this.diagnostics.set(uri, [...(this.diagnostics.get(uri) ?? []), resolve])),
      `diagnostics of ${uri}`,
    );
  }

  stop(): void {
    if (this.server.exitCode === null) this.server.kill('SIGKILL');
  }

  private send(message: unknown): void {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    this.server.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const length = Number(/Content-Length: (\d+)/i.exec(this.buffer.subarray(0, end).toString())?.[1]);
      if (this.buffer.length < end + 4 + length) return;
      const message = JSON.parse(this.buffer.subarray(end + 4, end + 4 + length).toString('utf8')) as {
        id?: number;
        method?: string;
        params?: unknown;
        result?: unknown;
      };
      this.buffer = this.buffer.subarray(end + 4 + length);
      void this.handle(message);
    }
  }

  private async handle(message: { id?: number; method?: string; params?: unknown; result?: unknown }) {
    if (message.method === undefined && message.id !== undefined) {
      this.pending.get(message.id)?.(message.result);
      this.pending.delete(message.id);
      return;
    }
    if (message.method === 'textDocument/publishDiagnostics') {
      const { uri, diagnostics } = message.params as { uri: string; diagnostics: Diagnostic[] };
      const waiting = this.diagnostics.get(uri) ?? [];
      this.diagnostics.delete(uri);
      for (const resolve of waiting) resolve(diagnostics);
      return;
    }
    if (message.id === undefined) return;
    // Requests of the server to its editor.
    let result: unknown = null;
    if (message.method === 'workspace/configuration') {
      const { items } = message.params as { items: { section?: string }[] };
      result = items.map((item) => (item.section === 'yaml' ? YAML_SETTINGS.yaml : null));
    } else if (message.method === 'custom/schema/request') {
      const uri = (message.params as string[] | string).toString();
      result = await readFile(fileURLToPath(uri), 'utf8');
    }
    this.send({ jsonrpc: '2.0', id: message.id, result });
  }
}

/** Validation on, the schema store off (no network): only the `$schema` line of each file applies. */
const YAML_SETTINGS = {
  yaml: { validate: true, hover: false, completion: false, schemaStore: { enable: false }, schemas: {} },
};

function bounded<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`yaml-language-server: no ${what} within ${ANSWER_MS} ms`)),
      ANSWER_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function exampleManifests(): Promise<string[]> {
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== '.github') await walk(full);
      // Manifests only: a var file (examples/multi-env/vars) is plain data, with no kind and no schema of its own.
      else if (/\.ya?ml$/.test(entry.name) && /^kind: /m.test(await readFile(full, 'utf8'))) found.push(full);
    }
  };
  await walk(path.join(ROOT, 'examples'));
  return found.sort();
}

describe('the examples in a real editor (yaml-language-server over stdio)', () => {
  let lsp: LspClient;
  let version = 0;

  beforeAll(async () => {
    lsp = LspClient.start();
    await lsp.request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(ROOT).href,
      capabilities: { workspace: { configuration: true } },
      initializationOptions: {},
    });
    lsp.notify('initialized', {});
    lsp.notify('workspace/didChangeConfiguration', { settings: YAML_SETTINGS });
  }, ANSWER_MS + 5_000);

  afterAll(async () => {
    // Always ends the server, whatever happened above.
    if (lsp === undefined) return;
    await lsp.request('shutdown', null).catch(() => undefined);
    lsp.notify('exit', null);
    lsp.stop();
  });

  async function open(file: string, text: string): Promise<Diagnostic[]> {
    const uri = pathToFileURL(file).href;
    const diagnostics = lsp.diagnosticsOf(uri);
    lsp.notify('textDocument/didOpen', {
      textDocument: { uri, languageId: 'yaml', version: ++version, text },
    });
    const result = await diagnostics;
    lsp.notify('textDocument/didClose', { textDocument: { uri } });
    return result;
  }

  it('every example manifest has a $schema line and gets no diagnostics', async () => {
    const files = await exampleManifests();
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      expect(text, file).toMatch(/^# yaml-language-server: \$schema=\S+/);
      const diagnostics = await open(file, text);
      expect(
        diagnostics.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`),
        path.relative(ROOT, file),
      ).toEqual([]);
    }
  }, 120_000);

  it('a manifest with an unknown key does get a diagnostic (the check of the check)', async () => {
    const file = path.join(ROOT, 'examples/quickstart/books-product.yaml');
    const text = (await readFile(file, 'utf8')).replace('name: books-product', 'nmae: books-product');
    const diagnostics = await open(path.join(ROOT, 'examples/quickstart/books-product-broken.yaml'), text);
    // The schema's branches for a Parser written out and one that extends a template both explain the mistake.
    const messages = diagnostics.map((d) => d.message);
    expect(messages).toEqual(
      expect.arrayContaining(['Missing property "name".', 'Property nmae is not allowed.']),
    );
    expect(messages.every((m) => /nmae|"name"|"extends"/.test(m))).toBe(true);
  }, 60_000);
});
