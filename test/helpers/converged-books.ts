import type { EmulatorHarness } from './emulator.js';
import { bookParser, TestWorkspace } from './workspace.js';

/** The fields of the books parser the watch tests apply and then change by hand. */
export const BOOK_FIELDS = `  title: { description: Book title, selector: h1 }
  price: { description: Price including tax, type: number }
`;

/** A fresh emulator account and workspace with the books parser applied: the workspace and the parser's id. */
export async function convergedBooks(h: EmulatorHarness): Promise<{ ws: TestWorkspace; id: string }> {
  h.emulator.reset();
  const ws = await TestWorkspace.create(h);
  await ws.write({ 'books.yaml': bookParser(BOOK_FIELDS) });
  await ws.converge();
  return { ws, id: String((await ws.state()).resources['parser.books']?.id) };
}
