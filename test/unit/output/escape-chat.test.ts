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
  ['ask <@U123>', 'ask &lt;@U123&gt;'],
  ['in <#C123>', 'in &lt;#C123&gt;'],
  ['<https://evil.example|click>', '&lt;https://evil.example|click&gt;'],
  ['a &lt; b & c', 'a &amp;lt; b &amp; c'],
  ['x\u001b[2J\n\u202ey', 'x\\u001b[2J\\n\\u202ey'],
])('chatText(%j) is %j', (text, shown) => {
  expect(chatText(text)).toBe(shown);
});
