#!/usr/bin/env node
// Runs src/main.ts on Node 24 or newer: the pinned `node` devDependency when the system Node is
// older (TypeScript type stripping needs Node >= 23.6).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { constants } from 'node:os';
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
// The V8 flags of v8-flags.json (bench/servers.ts starts the benched server with the same file),
// both to keep RSS under load near 200 MB (docs/performance.md, issue #14):
// - 8 MB semi-spaces instead of V8's default (up to 32 MB on 64-bit): the young generation's own
//   size;
// - old space grown by 50 % over what the last full collection kept, instead of V8's adaptive
//   factor (up to 4×): under 64 concurrent connections on PostgreSQL each request lives long
//   enough to be promoted, and the adaptive factor let the old space fill with that garbage to
//   ~200 MB before collecting it (peak 300–310 MB; 183–188 MB with the flag, same CPU per request).
//   It sets no ceiling: a larger live set still gets a larger heap.
// V8 refuses these in NODE_OPTIONS, so they go on the command line; NODE_OPTIONS naming its own
// semi-space size wins for that flag.
const V8_FLAGS = JSON.parse(readFileSync(join(root, 'bin', 'v8-flags.json'), 'utf8')).filter(
  (flag) => !(process.env.NODE_OPTIONS ?? '').includes(flag.split('=')[0]),
);
const child = spawn(nodeBin, [...V8_FLAGS, join(root, 'src', 'main.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
});
// A signal sent to this process alone (`kill <pid>`, a process manager stopping it) reaches the
// server, which shuts down gracefully; without this the server would be left running.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
