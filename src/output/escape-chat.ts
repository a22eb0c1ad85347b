import { printable } from './escape-text.js';

/**
 * A user or service value inside the `text` of a chat notification (`watch --notify`): printable, then `&`, `<` and
 * `>` as the entities Slack documents for message text (https://api.slack.com/reference/surfaces/formatting#escaping).
 * Slack reads `<!channel>`, `<!here>`, `<@U123>`, `<#C123>` and `<https://evil|click>` as a mention or a link whose
 * target is hidden: escaped, a parser name or an error message holding one shows as text and pings nobody. Only the
 * values are escaped; scrapeform's own words around them stay as written.
 */
export function chatText(text: string): string {
  return printable(text).replace(/[&<>]/g, (c) => SLACK_ENTITIES[c] ?? c);
}

const SLACK_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };
