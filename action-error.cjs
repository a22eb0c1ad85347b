// The plan's error as action.yml shows it, in the pull-request comment and in the job summary alike: required by the
// comment step's script, and run by the plan step as `node action-error.cjs refused|failed FILE CODE` (the text on
// stdout). One copy, so the summary is never the raw stderr the comment escapes and bounds.
'use strict';
/* global require, module, process */

// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS, for actions/github-script's require
const fs = require('node:fs');

// The error's own lines are kept; any other control, a bidirectional override that would show the text around it
// reordered, and a character that shows as nothing (a zero-width space) are written as visible escapes (as
// printable() in escape-text.ts does).
const visible = (text) =>
  text.replace(
    // eslint-disable-next-line no-control-regex -- the controls are what it escapes
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

// The end of stderr when it is too long, from a whole line: the error and its hint are printed last, after any
// retries and warnings, and the start was kept, so a few retries left a refusal without its reason.
const last = (text, max) => {
  if (text.length <= max) return text;
  const end = text.slice(text.length - max + 2);
  const line = end.indexOf('\n');
  return `…\n${line >= 0 && line < end.length - 1 ? end.slice(line + 1) : end}`;
};

// In a code block whose fence is longer than any run of backticks in the error (a service error or a manifest value
// quoted in it): a fixed one was closed by a line of as many, and the rest rendered as Markdown.
const fenced = (stderr, max) => {
  const error = last(visible(stderr.split('\n').slice(-200).join('\n')), max);
  const fence = '`'.repeat(Math.max(3, ...[...error.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${fence}text\n${error}\n${fence}\n`;
};

// Exit 3 with a plan written: refused (more regenerations than max-regenerations); the plan follows.
const refused = (stderr) =>
  `### scrapeform plan refused (exit 3)\n\nNothing was applied. The plan below was refused:\n\n${fenced(stderr, 600)}\n`;

// Any other failure: the error alone.
const failed = (stderr, code) =>
  `### scrapeform plan failed (exit ${code})\n\nNothing was applied. The error:\n\n${fenced(stderr, 20000)}`;

module.exports = { visible, last, fenced, refused, failed };

if (require.main === module) {
  const [kind, file, code] = process.argv.slice(2);
  const stderr = fs.readFileSync(file, 'utf8');
  process.stdout.write(kind === 'refused' ? refused(stderr) : failed(stderr, code));
}
