/**
 * The texts developers' tools read from this server: `/openapi.json` passes the Redocly linter
 * (what `npx @redocly/cli lint` runs), and neither it nor the GraphQL schema points at this
 * project's internal documents, which readers cannot open (GraphiQL even renders "product.md" as a
 * link to http://product.md/). Public specifications (RFCs) may be cited.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { createTestApp, type TestApp } from '../support/app.ts';

const run = promisify(execFile);
const REDOCLY = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');

/** Internal references: the spec, the design notes, issue numbers. */
const INTERNAL = [
  /\bspec\s*§/i,
  /\bspec\.md\b/i,
  /product\.md/i,
  /architecture\.md/i,
  /decisions\.md/i,
  /issue\s*#\d/i,
];
/** A "§" must follow a public specification's name (RFC 6749 §3.3, OAuth 2.1 §4.1). */
const PUBLIC_SECTION = /(RFC \d{3,5}|OAuth 2\.1|OpenID Connect [A-Za-z ]+ 1\.0|draft-[a-z0-9-]+),? $/;

function internalReferences(text: string): string[] {
  const found: string[] = [];
  for (const pattern of INTERNAL) {
    const m = pattern.exec(text);
    if (m) found.push(text.slice(Math.max(0, m.index - 40), m.index + 40));
  }
  for (let i = text.indexOf('§'); i >= 0; i = text.indexOf('§', i + 1)) {
    if (!PUBLIC_SECTION.test(text.slice(Math.max(0, i - 60), i)))
      found.push(text.slice(Math.max(0, i - 40), i + 10));
  }
  return found;
}

describe('published texts', () => {
  let t: TestApp;
  let openapi: string;
  let sdl: string;
  before(async () => {
    t = await createTestApp();
    openapi = await (await t.request('/openapi.json')).text();
    const schema = await t.request('/account/graphql/schema.graphql');
    assert.equal(schema.status, 200);
    sdl = await schema.text();
  });
  after(() => t.close());

  it('the GraphQL schema text names no internal document (spec §, product.md, issue #)', () => {
    assert.deepEqual(internalReferences(sdl), []);
  });

  it('/openapi.json names no internal document', () => {
    assert.deepEqual(internalReferences(openapi), []);
  });

  it('/openapi.json passes @redocly/cli lint (recommended rules) with no error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lectern-redocly-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, openapi);
      // Telemetry and the update check off: the linter runs offline.
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
      const result = await run(process.execPath, [REDOCLY, 'lint', file, '--format=json'], {
        env,
        cwd: dir,
      }).catch((err: { stdout: string; stderr: string }) => err);
      const report = JSON.parse(result.stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
      };
      const errors = report.problems
        .filter((p) => p.severity === 'error')
        .map((p) => `${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
      assert.deepEqual(errors, []);
      assert.equal(report.totals.errors, 0);
      // The one warning left is info-license: the API has no public licence to name.
      assert.deepEqual(
        report.problems.map((p) => p.ruleId),
        ['info-license'],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
