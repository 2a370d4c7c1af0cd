/**
 * A node:test reporter that prints, once a run ends, its ten slowest test files with their wall
 * times: where a run's time goes, in every CI log. scripts/test.ts adds it beside the spec
 * reporter.
 */
import { resolve } from 'node:path';

interface TestEvent {
  type: string;
  data: { name?: string; file?: string; nesting?: number; details?: { duration_ms?: number } };
}

export default async function* slowestFiles(source: AsyncIterable<TestEvent>): AsyncGenerator<string> {
  const files: { file: string; ms: number }[] = [];
  for await (const { type, data } of source) {
    // Each file run in a process of its own completes as a test named by its path.
    if (type !== 'test:complete' || data.nesting !== 0 || !data.file || !data.name) continue;
    if (resolve(data.name) !== data.file) continue;
    files.push({ file: data.name, ms: data.details?.duration_ms ?? 0 });
  }
  if (files.length < 2) return;
  const total = files.reduce((sum, f) => sum + f.ms, 0);
  yield `\nℹ slowest files (of ${files.length}, ${(total / 1000).toFixed(0)} s in all):\n`;
  for (const { file, ms } of files.sort((a, b) => b.ms - a.ms).slice(0, 10)) {
    yield `ℹ ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}\n`;
  }
}
