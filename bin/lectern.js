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
// How the server process runs, from server-process.json (bench/servers.ts starts the benched
// server from the same file), to keep RSS under load under 200 MB (docs/performance.md, #14):
// - V8 flags: 8 MB semi-spaces instead of V8's default (up to 32 MB on 64-bit), the young
//   generation's own size; and old space grown by 50 % over what the last full collection kept,
//   instead of V8's adaptive factor (up to 4×): under 64 concurrent connections on PostgreSQL each
//   request lives long enough to be promoted, and the adaptive factor let the old space fill with
//   that garbage to ~200 MB before collecting it (peak 300–310 MB; 183–188 MB with the flag, same
//   CPU per request). It sets no ceiling: a larger live set still gets a larger heap. V8 refuses
//   these in NODE_OPTIONS, so they go on the command line; NODE_OPTIONS naming its own semi-space
//   size wins for that flag.
// - Node's compile cache (NODE_COMPILE_CACHE), in node_modules/.cache/lectern unless
//   NODE_COMPILE_CACHE names another directory: it keeps each module's type-stripped source and
//   bytecode, so a start after the first never loads the TypeScript stripper (~20 MB resident
//   for the process's life) and starts faster. Entries are checked against the source, a stale
//   one is recompiled; an unwritable directory only turns the cache off. NODE_DISABLE_COMPILE_CACHE=1
//   turns it off too.
const options = JSON.parse(readFileSync(join(root, 'bin', 'server-process.json'), 'utf8'));
const V8_FLAGS = options.v8Flags.filter(
  (flag) => !(process.env.NODE_OPTIONS ?? '').includes(flag.split('=')[0]),
);
const child = spawn(nodeBin, [...V8_FLAGS, join(root, 'src', 'main.ts'), ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: {
    ...process.env,
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE || join(root, options.compileCache),
  },
});
// A signal sent to this process alone (`kill <pid>`, a process manager stopping it) reaches the
// server, which shuts down gracefully; without this the server would be left running.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => {
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
