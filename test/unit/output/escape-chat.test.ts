import { expect, it } from 'vitest';
import { chatText } from '../../../src/output/escape-chat.js';

/**
 * Slack reads `<...>` in message text as a mention, a channel or a link whose target it hides; its documented
 * escaping (&amp; &lt; &gt;) makes a live name or an error message show as typed and ping nobody.
 */
it.each([
  ['<!channel> look', '&lt;!channel&gt; look'],
  ['<!here>', '&lt;!here&gt;'],
  ['<!everyone>', '&lt;!everyone&gt;'],
  ['ask <@U123>', 'ask &lt;@\u200bU123&gt;'],
  ['in <#C123>', 'in &lt;#C123&gt;'],
  ['<https://evil.example|click>', '&lt;https://evil.example|click&gt;'],
  ['a &lt; b & c', 'a &amp;lt; b &amp; c'],
  ['x\u001b[2J\n\u202ey', 'x\\u001b[2J\\n\\u202ey'],
])('chatText(%j) is %j', (text, shown) => {
  expect(chatText(text)).toBe(shown);
});

/**
 * Mattermost reads `@channel`, `@all`, `@here` and `@name` in plain text as mentions, Discord's Slack-compatible
 * webhook `@everyone` and `@here`: a zero-width space after every `@` of a value shows the same text and pings nobody.
 */
it.each([
  ['@channel look', '@\u200bchannel look'],
  ['error: @here and @all', 'error: @\u200bhere and @\u200ball'],
  ['@everyone', '@\u200beveryone'],
  ['ping @alice', 'ping @\u200balice'],
  ['ops@example.com', 'ops@\u200bexample.com'],
  ['@\u200bchannel', '@\u200b\\u200bchannel'],
])('chatText(%j) mentions nobody: %j', (text, shown) => {
  expect(chatText(text)).toBe(shown);
});
