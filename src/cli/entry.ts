#!/usr/bin/env node
// The `scrapeform` bin (dist/cli/bin.cjs): loads the command line (dist/cli/main.cjs, bundled from bin.ts) through a
// code cache of its own compiled code (code-cache.ts), then the command runs as it loads.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { useCodeCache } from './code-cache.js';

const here = path.dirname(fileURLToPath(import.meta.url));
useCodeCache({ root: here, env: process.env });
createRequire(import.meta.url)('./main.cjs');
