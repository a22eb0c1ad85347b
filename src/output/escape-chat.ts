import { printable } from './escape-text.js';

/**
 * A user or service value inside the `text` of a chat notification (`watch --notify`): printable, then `&`, `<` and
 * `>` as the entities Slack documents for message text (https://api.slack.com/reference/surfaces/formatting#escaping),
 * and a zero-width space after every `@`. Slack reads `<!channel>`, `<!here>`, `<@U123>`, `<#C123>` and
 * `<https://evil|click>` as a mention or a link whose target is hidden; Mattermost reads `@channel`, `@all`, `@here`
 * and `@name` in plain text as mentions, and Discord's Slack-compatible webhook `@everyone` and `@here`. Escaped, a
 * parser name or an error message holding one shows as the same text and pings nobody. The zero-width space is added
 * after `printable`, which writes one the value held as `\u200b`: two values that differ never look the same. Only
 * the values are escaped; scrapeform's own words around them stay as written.
 */
export function chatText(text: string): string {
  return printable(text)
    .replace(/[&<>]/g, (c) => SLACK_ENTITIES[c] ?? c)
    .replace(/@/g, `@${ZERO_WIDTH_SPACE}`);
}

const SLACK_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

const ZERO_WIDTH_SPACE = '\u200b';
