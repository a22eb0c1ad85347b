import type { Command } from 'commander';

/** Examples shown at the end of each command's --help (as gh and terraform do). */
const EXAMPLES: Record<string, string[]> = {
  validate: [
    'scrapeform validate                 # without --env: every environment of scrapeform.yaml',
    'scrapeform validate parsers/ projects/ --json',
    'scrapeform validate --env prod --var-file extra.yaml',
  ],
  render: ['scrapeform render --env staging', 'scrapeform render --env prod teams/search/ > expanded.yaml'],
  plan: [
    'scrapeform plan',
    'scrapeform plan --out plan.json            # save it for apply --plan',
    'scrapeform plan --markdown > plan.md       # a pull-request comment',
    'scrapeform plan --detailed-exitcode        # exit 2 when there are changes',
    'scrapeform plan --target parser.books-product',
  ],
  apply: [
    'scrapeform apply',
    'scrapeform apply --plan plan.json          # exactly the reviewed plan',
    'scrapeform apply --auto-approve --allow-destroy --json',
  ],
  drift: [
    'scrapeform drift                           # exit 4 when something changed outside scrapeform',
    'scrapeform drift --json | jq .summary',
    'scrapeform drift --accept --target parser.books-product',
  ],
  watch: [
    'scrapeform watch --interval 15m --notify https://hooks.slack.com/services/…',
    'scrapeform watch --interval 5m --heal --max-regenerations 2 --listen 0.0.0.0:9464',
  ],
  import: [
    'scrapeform import --out manifests/imported --filter "books-*"',
    'scrapeform import --only parsers --out manifests/imported',
  ],
  status: ['scrapeform status', 'scrapeform status --json'],
  doctor: [
    'scrapeform doctor                    # before the first plan against a real account',
    'scrapeform doctor --json',
    'scrapeform doctor --only parsers     # a key for the AI Parser service only',
  ],
  output: [`scrapeform output --json | jq -r '.parsers["books-product"].id'`],
  parse: [
    'scrapeform parse books-product https://books.example/catalogue/a-light-in-the-attic_1000/index.html',
  ],
  test: ['scrapeform test', 'scrapeform test --junit report.xml'],
  run: ['scrapeform run nightly-book-pages --wait'],
  jobs: ['scrapeform jobs nightly-book-pages --json'],
  cancel: ['scrapeform cancel nightly-book-pages 42'],
  'diff-results': ['scrapeform diff-results books-product --from 1 --to 2'],
  schema: ['scrapeform schema > scrapeform.schema.json'],
  emulator: ['scrapeform emulator --port 8780', 'scrapeform emulator --port 0 --data-dir .emulator'],
  'force-unlock': ['scrapeform force-unlock --state postgres://ci@db/scrapeform'],
  state: [
    'scrapeform state pull > state.json',
    'scrapeform state push state.json --state postgres://ci@db/scrapeform',
  ],
  demo: ['scrapeform demo'],
  version: ['scrapeform version --json'],
  fmt: ['scrapeform fmt', 'scrapeform fmt --check        # in CI: exit 1 when a file is not formatted'],
  show: ['scrapeform plan --out plan.json && scrapeform show plan.json --markdown'],
  completion: [
    'source <(scrapeform completion bash)',
    'scrapeform completion zsh > "${fpath[1]}/_scrapeform"',
    'scrapeform completion fish | source',
  ],
};

export function addExamples(program: Command): void {
  for (const command of program.commands) {
    const examples = EXAMPLES[command.name()];
    if (examples === undefined) continue;
    command.addHelpText('after', `\nExamples:\n${examples.map((e) => `  $ ${e}`).join('\n')}\n`);
  }
}
