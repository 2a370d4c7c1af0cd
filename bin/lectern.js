#!/usr/bin/env node
// Runs src/main.ts on Node 24 or newer: the pinned `node` devDependency when the system Node is
// older (TypeScript type stripping needs Node >= 23.6).
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const major = Number(process.versions.node.split('.')[0]);
let nodeBin = process.execPath;
if (major < 24) {
  try {
    nodeBin = join(dirname(createRequire(import.meta.url).resolve('node/package.json')), 'bin', 'node');
  } catch {
    console.error('lectern: needs Node.js 24 or newer (run `npm ci` to install the pinned one)');
    process.exit(1);
  }
}
// A young generation of 8 MB semi-spaces instead of V8's default (up to 32 MB on 64-bit): under
// 64 concurrent GraphQL and MCP connections the default let RSS peak at 290–330 MB, this keeps it
// near 200 MB at no measurable throughput cost (docs/performance.md, issue #14). NODE_OPTIONS
// naming its own semi-space size wins. bench/servers.ts starts the server with the same flag.
const V8_FLAGS = /--max-semi-space-size/.test(process.env.NODE_OPTIONS ?? '')
  ? []
  : ['--max-semi-space-size=8'];
const result = spawnSync(nodeBin, [...V8_FLAGS, join(root, 'src', 'main.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
