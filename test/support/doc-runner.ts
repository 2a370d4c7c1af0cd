/**
 * Runs the examples of a Markdown document as a reader would: every ```sh block in one shell
 * session (variables and functions carry over from block to block), every ```js block as a
 * module body with the values the test provides. Each `curl` the document runs is recorded with
 * its HTTP status, so a test can assert outcomes without the document having to print them.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fenced code block with the heading it sits under and the prose around it. */
export interface DocBlock {
  readonly lang: string;
  readonly code: string;
  /** The nearest heading above the block, e.g. `### 4.1 Register a loopback client`. */
  readonly heading: string;
  /** The prose between the previous block and this one. */
  readonly before: string;
  /** The prose between this block and the next (blocks of other languages excluded). */
  after: string;
  /** The next block, whatever its language (e.g. the ```json answer an example shows). */
  next?: DocBlock;
}

/** Every fenced block of `markdown`, in document order. */
export function docBlocks(markdown: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  const fence = /^```(\w*)\n([\s\S]*?)^```$/gm;
  let heading = '';
  let last = 0;
  for (const m of markdown.matchAll(fence)) {
    const before = markdown.slice(last, m.index);
    for (const h of before.matchAll(/^#{1,4} .+$/gm)) heading = h[0];
    const block: DocBlock = { lang: m[1], code: m[2], heading, before, after: '' };
    const previous = blocks.at(-1);
    if (previous) {
      previous.after = before;
      previous.next = block;
    }
    blocks.push(block);
    last = m.index + m[0].length;
  }
  const previous = blocks.at(-1);
  if (previous) previous.after = markdown.slice(last);
  return blocks;
}

/** One `curl` call a block made: its HTTP status and what it printed. */
interface CurlCall {
  readonly status: number;
  readonly body: string;
}

/** The outcome of one shell block. */
export interface ShellRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly curls: CurlCall[];
  /** The session's variables after the block. */
  readonly vars: Readonly<Record<string, string>>;
}

// `curl` as the document calls it, plus `-w` writing the status after the body into a log file;
// what the reader sees on stdout is unchanged.
const CURL_WRAPPER = `curl() {
  local __out __rc __n
  __out=$(command curl -w '\\n%{http_code}' "$@"); __rc=$?
  __n=$(ls "$CURL_DIR" | wc -l)
  printf '%s' "$__out" > "$CURL_DIR/$(printf '%04d' "$__n")"
  printf '%s' "\${__out%$'\\n'*}"
  return $__rc
}`;

/**
 * A `bash` session spread over several processes: after each block its variables (the names the
 * document assigns) and functions are saved and restored before the next.
 */
export class ShellSession {
  readonly dir = mkdtempSync(join(tmpdir(), 'lectern-doc-'));
  private readonly names: readonly string[];

  /** `names`: the shell variables to carry over, e.g. every NAME= the document assigns. */
  constructor(names: Iterable<string>) {
    this.names = [...new Set(names)];
  }

  /** The upper-case shell variables a set of blocks assigns (`NAME=`). */
  static assignedNames(blocks: readonly DocBlock[]): string[] {
    return blocks.flatMap((b) => [...b.code.matchAll(/(?:^|[\s;(])([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]));
  }

  /** Runs one block in the session; resolves whatever its exit status. */
  run(code: string): Promise<ShellRun> {
    const curlDir = join(this.dir, 'curl');
    rmSync(curlDir, { recursive: true, force: true });
    mkdirSync(curlDir);
    const names = this.names.join(' ');
    const script = [
      `CURL_DIR='${curlDir}'`,
      CURL_WRAPPER,
      '[ -f state.sh ] && . ./state.sh',
      code,
      '__status=$?',
      `{ declare -p ${names} 2>/dev/null; declare -f; } > state.sh`,
      `for __v in ${names}; do printf '%s=%s\\n' "$__v" "\${!__v}"; done > vars.txt`,
      'exit $__status',
    ].join('\n');
    return new Promise((resolve, reject) => {
      execFile(
        'bash',
        ['--noprofile', '--norc', '-c', script],
        {
          cwd: this.dir,
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: this.dir, LC_ALL: 'C' },
          timeout: 30_000,
          maxBuffer: 16 * 1024 * 1024,
        },
        (error, stdout, stderr) => {
          if (error && typeof error.code !== 'number') return reject(error);
          const exitCode = typeof error?.code === 'number' ? error.code : 0;
          const curls = readdirSync(curlDir)
            .sort()
            .map((file) => {
              const text = readFileSync(join(curlDir, file), 'utf8');
              const cut = text.lastIndexOf('\n');
              return { status: Number(text.slice(cut + 1)), body: text.slice(0, cut) };
            });
          const vars: Record<string, string> = {};
          for (const line of readFileSync(join(this.dir, 'vars.txt'), 'utf8').split('\n')) {
            const eq = line.indexOf('=');
            if (eq > 0) vars[line.slice(0, eq)] = line.slice(eq + 1);
          }
          resolve({ exitCode, stdout, stderr, curls, vars });
        },
      );
    });
  }

  /** Saves a file in the session's directory (the current directory of every block). */
  write(name: string, text: string): void {
    writeFileSync(join(this.dir, name), text);
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...args: string[]
) => (...args: unknown[]) => Promise<void>;

/**
 * Runs a ```js block as a module body would run: its `import { … } from '…'` lines resolved from
 * this repository's node_modules, the free variables it names supplied by `scope`, and what it
 * logs returned.
 */
export async function runJsBlock(code: string, scope: Record<string, unknown>): Promise<string[]> {
  const body = code.replace(
    /^import\s+\{([^}]*)\}\s+from\s+'([^']+)';?$/gm,
    (_, names: string, specifier: string) =>
      `const {${names.replace(/\s+as\s+/g, ': ')}} = await __import(${JSON.stringify(specifier)});`,
  );
  const logs: string[] = [];
  const console = { log: (...args: unknown[]) => logs.push(args.map(String).join(' ')) };
  const names = Object.keys(scope);
  const run = new AsyncFunction('__import', 'console', ...names, body);
  await run((specifier: string) => import(specifier), console, ...names.map((n) => scope[n]));
  return logs;
}

/** The JSON-RPC message of an MCP answer, sent as JSON or as one server-sent `message` event. */
export function jsonRpcBody(body: string): Record<string, unknown> {
  const data = body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => line.slice(6));
  return JSON.parse(data.length > 0 ? data[data.length - 1] : body);
}
