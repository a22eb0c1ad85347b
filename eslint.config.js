// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Modules that do I/O or touch the process; the pure core (plan/, output/) must not import them. */
const impureModules = [
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'undici',
  'process',
  'node:process',
  'node:http',
  'http',
  'node:net',
  'net',
];

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', 'schemas/**', 'emulator-site/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'error',
    },
  },
  {
    files: ['src/plan/**/*.ts', 'src/output/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: impureModules.map((name) => ({
            name,
            message: 'plan/ and output/ are pure: pass data in, return data out.',
          })),
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'plan/ and output/ are pure: pass what you need in.' },
        { name: 'console', message: 'plan/ and output/ never print: return strings.' },
        { name: 'fetch', message: 'plan/ and output/ never do I/O.' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Pass `now` in; the pure core never reads the clock.',
        },
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Pass `now` in; the pure core never reads the clock.',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'bench/**/*.js'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['bench/**/*.js'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        performance: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    // The bench's usage hook is CommonJS, preloaded with --require (see the file).
    files: ['bench/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { process: 'readonly', require: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
