import { formatCount } from '../format-count.js';
import { markdownText } from './escape-markdown.js';

/**
 * A list entry's text is whole unless the list does not fit the comment. Then the longest entries are shortened,
 * each no more than needed and never below this, so one long reason cannot push every other entry out.
 */
const ITEM_TEXT_MIN = 400;

/**
 * A list entry: its lead (Markdown of ours, already escaped), its text (a user or service value, raw) and what
 * follows the text on its line (`after`, Markdown of ours: the cells after it in a table row). `compact` is the
 * entry without its text (its lead alone, without the `: ` before the text): what is shown of every entry when even
 * ITEM_TEXT_MIN characters each would leave some out, so the list names every entry before it drops one.
 */
export interface ListItem {
  lead: string;
  text: string;
  after?: string;
  compact?: string;
}

/** A list as BoundedText.addList writes it: its heading, entries, the line counting those left out, its end. */
export interface BoundedList {
  head: string;
  items: ListItem[];
  more: (left: number) => string;
  tail: string;
}

/**
 * The room a list takes with every entry compact (its lead alone, for entries without a compact form) and a line
 * counting any left out: what addList needs to name every entry. Kept free while a part written before it is added.
 */
export function compactRoom(list: BoundedList): number {
  if (list.items.length === 0) return 0;
  const entries = list.items.reduce((sum, item) => sum + (item.compact ?? item.lead).length + 1, 0);
  return list.head.length + entries + list.more(1_000_000).length + list.tail.length;
}

/** Room a bounded text always keeps for the last line that says what was cut (cutNotice). */
export const NOTICE_RESERVE = 200;

/**
 * The last line of a text cut to fit a comment: what was cut (`parts`, each a count; empty ones left out), joined
 * as a sentence, then where to see all of it; nothing when nothing was cut.
 */
export function cutNotice(parts: readonly string[], seeAll: string): string {
  const cut = parts.filter((p) => p !== '');
  if (cut.length === 0) return '';
  const listed = cut.length > 1 ? `${cut.slice(0, -1).join(', ')} and ${cut.at(-1) ?? ''}` : (cut[0] ?? '');
  return `\n_…${listed} cut to fit the comment limit; ${seeAll}._\n`;
}

/** What a BoundedText cut of its list entries, as cutNotice lists it: entries left out, then entries shortened. */
export function listCuts(out: { cutItems: number; shortenedItems: number }): string[] {
  const entries = (n: number): string => `${n} list ${n === 1 ? 'entry' : 'entries'}`;
  return [
    out.cutItems > 0 ? entries(out.cutItems) : '',
    out.shortenedItems > 0 ? `part of ${entries(out.shortenedItems)}` : '',
  ];
}

/** Text that never grows past its limit: what does not fit is counted instead. */
export class BoundedText {
  text = '';
  cutChanges = 0;
  cutItems = 0;
  shortenedItems = 0;

  constructor(private limit: number) {}

  /** Keeps `length` characters free until the returned function gives them back, for a part written later. */
  setAside(length: number): () => void {
    const kept = Math.max(0, Math.min(length, this.limit - this.text.length));
    this.limit -= kept;
    return () => {
      this.limit += kept;
    };
  }

  fits(length: number): boolean {
    return this.text.length + length <= this.limit;
  }

  add(part: string): boolean {
    if (!this.fits(part.length)) return false;
    this.text += part;
    return true;
  }

  /**
   * A list with its heading. Every entry whole when they all fit; else every entry, the longest texts shortened to
   * the longest length at which they all fit (not below ITEM_TEXT_MIN); else, for a list with a compact form, entries
   * compact (their lead alone), else shortened to that minimum, while they fit, then a line counting the rest.
   * Returns how many entries were written, the first of `items`.
   */
  addList(list: BoundedList): number {
    const { items } = list;
    if (items.length === 0) return 0;
    const keep = list.tail.length + list.more(items.length).length;
    if (this.text.length + list.head.length + keep > this.limit) {
      this.cutItems += items.length;
      return 0;
    }
    // The room the loop below allows: it keeps the tail and a line counting the rest free to the end.
    const room = this.limit - this.text.length - list.head.length - keep;
    const size = (cap: number): number => items.reduce((n, item) => n + renderItem(item, cap).length, 0);
    const longest = Math.max(...items.map((item) => item.text.length));
    let cap = longest;
    if (size(longest) > room) {
      cap = ITEM_TEXT_MIN;
      if (size(ITEM_TEXT_MIN) <= room) {
        // The longest cap at which every entry still fits: no entry loses more than the limit needs.
        let tooLong = longest;
        while (tooLong - cap > 1) {
          const middle = Math.floor((cap + tooLong) / 2);
          if (size(middle) <= room) cap = middle;
          else tooLong = middle;
        }
      } else if (items.every((item) => item.compact !== undefined)) {
        cap = 0;
      }
    }
    this.text += list.head;
    let i = 0;
    for (const item of items) {
      const line = cap === 0 ? compactItem(item) : renderItem(item, cap);
      if (this.text.length + line.length + keep > this.limit) break;
      this.text += line;
      if (item.text.length > cap) this.shortenedItems++;
      i++;
    }
    const left = items.length - i;
    if (left > 0) {
      this.text += list.more(left);
      this.cutItems += left;
    }
    this.text += list.tail;
    return i;
  }
}

/** One list entry on its line, its text cut to `cap` characters, saying how many more there were. */
function renderItem(item: ListItem, cap: number): string {
  const after = item.after ?? '';
  if (item.text === '') return `${item.lead}${after}\n`;
  if (item.text.length <= cap) return `${item.lead}${markdownText(item.text)}${after}\n`;
  // Never split a surrogate pair: half a character would show as a replacement sign.
  const end = /[\ud800-\udbff]/.test(item.text.charAt(cap - 1)) ? cap - 1 : cap;
  const left = item.text.length - end;
  return `${item.lead}${markdownText(item.text.slice(0, end))}… _(${formatCount(left)} more ${left === 1 ? 'character' : 'characters'} cut to fit the comment limit)_${after}\n`;
}

/** One list entry without its text (ListItem.compact). */
function compactItem(item: ListItem): string {
  return `${item.compact ?? item.lead}\n`;
}
