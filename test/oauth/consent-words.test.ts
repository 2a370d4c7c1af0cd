/**
 * What the consent page says, as a person reads it (product.md §8), through the real authorize
 * flow for each kind of client: who asks (a console of this very site, a known vendor, a program
 * on the computer, an unreviewed metadata document, a school's app), the warning where the
 * client's identity cannot be assured (RFC 8252 §8.6), and the scopes grouped by what they reach
 * in plain words, write implying read (product.md §4).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEMO_MEMBER_APP_ID } from '../../src/domain/demo/demo-seed.ts';
import { DOCS_CLIENT_ID, GRAPHIQL_CLIENT_ID } from '../../src/oauth/clients/console-clients.ts';
import { ALL_SCOPES, describeScope, describeScopes, OPERATOR_SCOPES } from '../../src/oauth/scopes.ts';
import { CIMD_HOST, type CimdSite, startCimdSite } from '../clients/cimd-server.ts';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../support/app.ts';
import {
  authorizeInBrowser,
  Browser,
  pkcePair,
  registerLoopbackClient,
  signIn,
} from '../support/oauth-flow.ts';
import { createWorld } from '../support/world.ts';

const IDENTITY = ['openid', 'profile', 'email', 'offline_access'];
const FULL_OPERATOR = [...IDENTITY, ...OPERATOR_SCOPES];
const MEMBER = ['openid', 'profile', 'email', 'account:read', 'account:write'];

/** Every line of a full operator request, in the order the page lists them. */
const FULL_OPERATOR_LINES = [
  'Who you are: your name and email address',
  'Courses: view and change',
  'Students, their enrollments and progress: view, and change enrollments',
  'Members and invitations: view and change',
  'Analytics (revenue, enrollments, completion): view',
  'Course content (sections and lectures): view and change',
  'Orders: view',
  'School settings, webhooks and audit trail: view, and change settings and webhooks',
  'Appearance (theme, logo, font): view and change',
  'Events and registrations: view and change',
  'Membership plans: view and change',
  'Coupons: view and change',
  'Posts: view and change',
  'Subscriptions: view and change',
  'Digital products: view and change',
  'Comments: view',
  'Lecturer profiles: view and change',
  'Files: view, upload and delete',
  'Forms and submissions: view',
  'Pages: view and change',
  'Stay connected when you are not using it',
];

const MEMBER_LINES = [
  'Who you are: your name and email address',
  'Your courses, progress, orders and event registrations at Demo Academy: view, record your progress, register for events and change your name',
];

const LOOPBACK_WARNING =
  'Check that you started this app yourself. It runs on your own computer and named itself; Lectern cannot confirm who made it.';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" };

/** The text a person reads in an HTML fragment: no tags, entities decoded, spaces collapsed. */
function visible(fragment: string): string {
  return fragment
    .replace(/<[^>]*>/g, '')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ENTITIES[e])
    .replace(/\s+/g, ' ')
    .trim();
}

/** The parts of a consent page, as visible text. */
interface Consent {
  heading: string;
  kind: string;
  /** The warning's text, or null when the page shows none. */
  warning: string | null;
  scopesHeading: string;
  lines: string[];
  destination: string;
}

function readConsent(page: string): Consent {
  const one = (re: RegExp, what: string) => {
    const m = re.exec(page);
    assert.ok(m, `${what} not found in:\n${page}`);
    return visible(m[1]);
  };
  const warnings = [...page.matchAll(/<div class="notice warning" role="note">([\s\S]*?)<\/div>/g)];
  assert.ok(warnings.length <= 1, 'at most one warning');
  const list = /<ul class="scopes" aria-labelledby="consent-scopes">([\s\S]*?)<\/ul>/.exec(page);
  assert.ok(list, 'the scope list, labelled by its heading');
  return {
    heading: one(/<h1>([\s\S]*?)<\/h1>/, 'h1'),
    kind: one(/<\/h1>\s*<p class="muted">([\s\S]*?)<\/p>/, 'kind line'),
    warning: warnings.length === 0 ? null : visible(warnings[0][1]),
    scopesHeading: one(/<h2 id="consent-scopes">([\s\S]*?)<\/h2>/, 'scope heading'),
    lines: [...list[1].matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => visible(m[1])),
    destination: one(/<p class="muted">(After you decide[\s\S]*?)<\/p>/, 'destination'),
  };
}

function authorizeUrl(clientId: string, redirectUri: string, scopes: readonly string[], resource?: string) {
  return `/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope: scopes.join(' '),
    state: 'st',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...(resource ? { resource } : {}),
  })}`;
}

/** The consent page a signed-in browser gets for the request (its status must be 200). */
async function consentFor(browser: Browser, url: string): Promise<Consent & { html: string }> {
  const res = await browser.request(url);
  const html = await res.text();
  assert.equal(res.status, 200, `expected the consent page, got ${res.status}: ${html}`);
  return { ...readConsent(html), html };
}

async function signedIn(t: TestApp, email: string): Promise<Browser> {
  const browser = new Browser(t);
  assert.equal((await signIn(browser, email)).status, 303);
  return browser;
}

describe('scope words (src/oauth/scopes.ts)', () => {
  it('a full operator request is one line per resource, write merged with read, identity said once', () => {
    assert.deepEqual(describeScopes(FULL_OPERATOR), FULL_OPERATOR_LINES);
    // The same lines whichever of read and write is asked for: write implies read.
    const writesOnly = OPERATOR_SCOPES.filter(
      (s) => s.endsWith(':write') || !OPERATOR_SCOPES.includes(s.replace(':read', ':write')),
    );
    assert.deepEqual(describeScopes([...IDENTITY, ...writesOnly]), FULL_OPERATOR_LINES);
  });

  it('member scopes name the school when the page knows it, and merge read into write', () => {
    assert.deepEqual(describeScopes(MEMBER, { school: 'Demo Academy' }), MEMBER_LINES);
    assert.deepEqual(describeScopes(['openid', 'account:read'], { school: 'Demo Academy' }), [
      'Who you are',
      'Your courses, progress, orders and event registrations at Demo Academy: view',
    ]);
    assert.deepEqual(describeScopes(['email']), ['Your email address']);
  });

  it('every scope has its own words, none reading "the school\'s school", and an unknown name stays visible', () => {
    for (const scope of ALL_SCOPES) {
      const words = describeScope(scope);
      assert.notEqual(words, scope, `${scope} has words`);
      assert.doesNotMatch(words, /school's school|_/, scope);
    }
    assert.equal(describeScope('school:read'), 'School settings, webhooks and audit trail: view');
    assert.equal(describeScope('coupons:read'), 'Coupons: view');
    assert.equal(describeScope('nonsense:read'), 'nonsense:read');
    assert.deepEqual(describeScopes(['courses:read', 'nonsense:read']), ['Courses: view', 'nonsense:read']);
  });
});

describe('the consent page for each kind of client (BASE_URL http://lectern.test)', () => {
  let t: TestApp;
  let cimd: CimdSite;
  let owner: Browser;
  let student: Browser;
  let loopback: string;
  const B = TEST_BASE_URL;

  before(async () => {
    cimd = await startCimdSite('Example Agent');
    t = await createTestApp({ CIMD_ALLOWED_HOSTS: CIMD_HOST }, { cimdFetch: cimd.fetchOptions });
    await createWorld(t);
    loopback = (await registerLoopbackClient(t, { name: 'Test CLI' })).client_id;
    owner = await signedIn(t, 'owner@example.com');
    student = await signedIn(t, 'student@example.com');
  });
  after(async () => {
    await t.close();
    await cimd.close();
  });

  it('/docs Authorize: the API reference on this site, no warning, exactly one line for courses', async () => {
    const page = await consentFor(owner, authorizeUrl(DOCS_CLIENT_ID, `${B}/docs`, FULL_OPERATOR));
    assert.equal(page.heading, "Allow Lectern's API reference on this site to use your account?");
    assert.equal(page.kind, 'Part of Lectern · signed in as owner@example.com');
    assert.equal(page.warning, null);
    assert.doesNotMatch(page.html, /cannot identify|cannot confirm|not reviewed/);
    assert.equal(page.scopesHeading, 'What it may do');
    assert.deepEqual(page.lines, FULL_OPERATOR_LINES);
    assert.deepEqual(
      page.lines.filter((l) => l.startsWith('Courses')),
      ['Courses: view and change'],
    );
    assert.ok(page.lines.every((l) => !/school's school/i.test(l)));
    assert.equal(
      page.destination,
      "After you decide you will return to Lectern's API reference on this site.",
    );
    assert.match(page.html, /<title>Allow Lectern&#39;s API reference on this site\?/);
  });

  it('GraphiQL Sign in: the GraphQL explorer on this site, no warning, the member lines; allowing returns a code', async () => {
    const url = authorizeUrl(GRAPHIQL_CLIENT_ID, `${B}/account/graphql`, MEMBER, B);
    const page = await consentFor(student, url);
    assert.equal(page.heading, 'Allow the GraphQL explorer on this site to use your account?');
    assert.equal(page.kind, 'Part of Lectern · signed in as student@example.com');
    assert.equal(page.warning, null);
    assert.deepEqual(page.lines, MEMBER_LINES);
    assert.equal(page.destination, 'After you decide you will return to the GraphQL explorer on this site.');
    const { location } = await authorizeInBrowser(student, url);
    assert.equal(`${location.origin}${location.pathname}`, `${B}/account/graphql`);
    assert.ok(location.searchParams.get('code'));
  });

  it('a loopback client: named as it named itself, warned about, the page every time', async () => {
    const url = authorizeUrl(loopback, 'http://127.0.0.1:5555/callback', [
      'openid',
      'email',
      'courses:read',
      'courses:write',
    ]);
    const page = await consentFor(owner, url);
    assert.equal(page.heading, 'Allow Test CLI to use your account?');
    assert.equal(page.kind, 'App on your own computer · signed in as owner@example.com');
    assert.equal(page.warning, LOOPBACK_WARNING);
    assert.deepEqual(page.lines, ['Who you are: your email address', 'Courses: view and change']);
    assert.equal(page.destination, 'After you decide you will be sent to 127.0.0.1:5555.');
    const browser = await signedIn(t, 'owner@example.com');
    assert.ok((await authorizeInBrowser(browser, url)).location.searchParams.get('code'));
    assert.equal((await consentFor(browser, url)).warning, LOOPBACK_WARNING, 'shown again');
  });

  it('a vendor: named as the vendor, no warning for its fixed HTTPS redirect', async () => {
    const page = await consentFor(
      owner,
      authorizeUrl('claude', 'https://claude.ai/api/mcp/auth_callback', [
        'openid',
        'profile',
        'coupons:read',
      ]),
    );
    assert.equal(page.heading, 'Allow Claude to use your account?');
    assert.equal(page.kind, 'Known integration · signed in as owner@example.com');
    assert.equal(page.warning, null);
    assert.deepEqual(page.lines, ['Who you are: your name', 'Coupons: view']);
    assert.equal(page.destination, 'After you decide you will be sent to claude.ai.');
  });

  it('a vendor returning to a loopback port: named as the vendor, warned that a local program receives it', async () => {
    const page = await consentFor(
      owner,
      authorizeUrl('claude-code', 'http://127.0.0.1:4242/callback', ['openid', 'courses:read']),
    );
    assert.equal(page.heading, 'Allow Claude Code to use your account?');
    assert.equal(page.kind, 'Known integration · signed in as owner@example.com');
    assert.equal(
      page.warning,
      'Continue only if you just started Claude Code yourself. Approval is handed to a program on your own computer, which Lectern cannot identify.',
    );
  });

  it('an unreviewed metadata document: warned about, naming its URL, the page every time', async () => {
    const url = authorizeUrl(cimd.clientId, cimd.redirectUri, [
      'openid',
      'profile',
      'email',
      'courses:read',
      'orders:read',
    ]);
    const page = await consentFor(owner, url);
    assert.equal(page.heading, 'Allow Example Agent to use your account?');
    assert.equal(page.kind, 'Web app, not reviewed by Lectern · signed in as owner@example.com');
    const warning = `Lectern has not reviewed this app. It identifies itself by ${cimd.clientId}. Until it is reviewed it may only read.`;
    assert.equal(page.warning, warning);
    assert.deepEqual(page.lines, [
      'Who you are: your name and email address',
      'Courses: view',
      'Orders: view',
    ]);
    assert.equal(page.destination, `After you decide you will be sent to ${CIMD_HOST}.`);
    const browser = await signedIn(t, 'owner@example.com');
    assert.ok((await authorizeInBrowser(browser, url)).location.searchParams.get('code'));
    assert.equal((await consentFor(browser, url)).warning, warning, 'shown again');
  });

  it("a school's member app: named as that school's app, the member lines", async () => {
    const page = await consentFor(
      student,
      authorizeUrl(DEMO_MEMBER_APP_ID, 'http://127.0.0.1:6000/callback', ['openid', 'account:read'], B),
    );
    assert.equal(page.heading, 'Allow Demo Member App to use your account?');
    assert.equal(page.kind, 'App of Demo Academy · signed in as student@example.com');
    assert.equal(
      page.warning,
      'Continue only if you just started Demo Member App yourself. Approval is handed to a program on your own computer, which Lectern cannot identify.',
    );
    assert.deepEqual(page.lines, [
      'Who you are',
      'Your courses, progress, orders and event registrations at Demo Academy: view',
    ]);
  });
});

describe('the consoles on a loopback BASE_URL (a development deployment)', () => {
  let t: TestApp;
  let owner: Browser;
  const B = 'http://localhost:3000';

  before(async () => {
    t = await createTestApp({ BASE_URL: B });
    await createWorld(t);
    owner = await signedIn(t, 'owner@example.com');
  });
  after(() => t.close());

  it('/docs returning to this very origin is the API reference on this site, with no loopback warning', async () => {
    const page = await consentFor(
      owner,
      authorizeUrl(DOCS_CLIENT_ID, `${B}/docs`, ['openid', 'courses:read']),
    );
    assert.equal(page.heading, "Allow Lectern's API reference on this site to use your account?");
    assert.equal(page.kind, 'Part of Lectern · signed in as owner@example.com');
    assert.equal(page.warning, null);
    assert.doesNotMatch(page.html, /a program on your own computer/);
  });

  it('GraphiQL returning to this very origin is the GraphQL explorer on this site, with no warning', async () => {
    const student = await signedIn(t, 'student@example.com');
    const page = await consentFor(
      student,
      authorizeUrl(
        GRAPHIQL_CLIENT_ID,
        `${B}/account/graphql`,
        ['openid', 'account:read', 'account:write'],
        B,
      ),
    );
    assert.equal(page.heading, 'Allow the GraphQL explorer on this site to use your account?');
    assert.equal(page.warning, null);
  });

  it('the console client_id on another loopback port is a program on the computer: not "this site", warned', async () => {
    // RFC 8252 §7.3 lets a loopback redirect match on any port: anyone local can borrow the id.
    const page = await consentFor(
      owner,
      authorizeUrl(DOCS_CLIENT_ID, 'http://localhost:4444/docs', ['openid', 'courses:read']),
    );
    assert.equal(page.heading, 'Allow Lectern API reference to use your account?');
    assert.equal(page.kind, 'App on your own computer · signed in as owner@example.com');
    assert.equal(
      page.warning,
      'Continue only if you just started Lectern API reference yourself. Approval is handed to a program on your own computer, which Lectern cannot identify.',
    );
    assert.doesNotMatch(page.html, /on this site/);
    assert.equal(page.destination, 'After you decide you will be sent to localhost:4444.');
  });
});
