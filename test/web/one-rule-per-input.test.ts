import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { betaFeatures, findSchoolById } from '../../src/domain/school/schools.ts';
import { api } from '../admin/api.ts';
import { createLoggedTestApp, type LoggedTestApp } from '../support/logged-app.ts';
import type { Browser } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { locationOf, signedIn, submit } from './pages-support.ts';

const PATH = '/api/v1/webhook-endpoints';

/** What a page shows of one form field: its value, its error, and how they are tied together. */
function formField(page: string, id: string) {
  const input = new RegExp(`<input id="${id}"[^>]*>`).exec(page)?.[0] ?? '';
  const error = new RegExp(`<p class="field-error" id="${id}-error">([^<]*)</p>`).exec(page)?.[1];
  return {
    value: /value="([^"]*)"/.exec(input)?.[1],
    invalid: /aria-invalid="true"/.test(input),
    describedBy: /aria-describedby="([^"]*)"/.exec(input)?.[1]?.split(' ') ?? [],
    error,
  };
}

/**
 * One input, one rule, one trail: a webhook endpoint meets the same rule through the admin API
 * and through the operator pages (the API's 422 problem names the field; the page keeps what was
 * typed and shows the error beside it), and the MCP connections beta leaves the same security log
 * line whichever surface switched it.
 */
describe('one rule per input, whatever the surface', () => {
  let t: LoggedTestApp;
  let world: World;
  let demo: string;
  let owner: Browser;
  let call: ReturnType<typeof api>;
  const webhooks = () => `/admin/${demo}/webhooks`;
  const endpointCount = async () =>
    (
      await t.runtime.db
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('school_id', '=', demo)
        .executeTakeFirstOrThrow()
    ).n;

  before(async () => {
    t = await createLoggedTestApp({ LOG_LEVEL: 'info' });
    world = await createWorld(t);
    demo = world.demo.schoolId;
    owner = await signedIn(t, 'owner@example.com');
    call = api(t, await world.demo.token());
  });
  after(() => t.close());

  it('refuses an event type that is no subscription on both surfaces, naming the field; nothing is created', async () => {
    const before = Number(await endpointCount());
    const rest = await call('POST', PATH, {
      url: 'https://hooks.example.com/x',
      event_types: ['course.*', 'course.exploded'],
    });
    assert.equal(rest.status, 422);
    assert.equal(rest.headers.get('content-type'), 'application/problem+json');
    assert.equal(rest.body.code, 'validation_failed');
    assert.deepEqual(rest.body.errors, [
      {
        field: 'body.event_types.1',
        message: 'must be a deliverable event type, `<group>.*` or `*` (docs/webhooks.md)',
      },
    ]);

    const res = await submit(owner, webhooks(), webhooks(), {
      url: 'https://hooks.example.com/x',
      event_types: 'course.*, course.exploded',
      description: 'typed',
    });
    assert.equal(res.status, 422);
    const page = await res.text();
    const types = formField(page, 'event_types');
    assert.equal(types.value, 'course.*, course.exploded', 'what was typed is kept');
    assert.equal(types.invalid, true);
    assert.ok(types.describedBy.includes('event_types-error'));
    assert.equal(
      types.error,
      '“course.exploded” must be a deliverable event type, `&lt;group&gt;.*` or `*` (docs/webhooks.md).',
    );
    assert.equal(formField(page, 'url').invalid, false, 'only the failing field is marked');
    assert.equal(formField(page, 'description').value, 'typed');
    assert.equal(Number(await endpointCount()), before);
  });

  it('refuses an empty list of event types and a private address on both surfaces, under the same fields', async () => {
    const before = Number(await endpointCount());
    const restTypes = await call('POST', PATH, { url: 'https://hooks.example.com/x', event_types: [] });
    assert.equal(restTypes.status, 422);
    assert.deepEqual(
      restTypes.body.errors.map((e: { field: string }) => e.field),
      ['body.event_types'],
    );
    const restUrl = await call('POST', PATH, { url: 'https://10.0.0.8/x', event_types: ['*'] });
    assert.equal(restUrl.status, 422);
    assert.equal(restUrl.body.errors[0].field, 'body.url');
    assert.match(restUrl.body.errors[0].message, /public address/);

    const res = await submit(owner, webhooks(), webhooks(), {
      url: 'https://10.0.0.8/x',
      event_types: ' , ',
    });
    assert.equal(res.status, 422);
    const page = await res.text();
    const url = formField(page, 'url');
    assert.equal(url.value, 'https://10.0.0.8/x');
    assert.equal(url.invalid, true);
    assert.deepEqual(url.describedBy, ['url-error']);
    assert.match(url.error ?? '', /^The URL must be a public address/);
    const types = formField(page, 'event_types');
    assert.equal(types.invalid, true);
    assert.deepEqual(types.describedBy, ['types-help', 'event_types-error']);
    assert.equal(types.error, 'The event types must list 1 to 50 event types.');
    assert.equal(Number(await endpointCount()), before);
  });

  it('refuses a description of 501 characters on both surfaces, never truncating it; 500 is taken whole', async () => {
    const before = Number(await endpointCount());
    const long = 'd'.repeat(501);
    const rest = await call('POST', PATH, {
      url: 'https://hooks.example.com/long',
      event_types: ['*'],
      description: long,
    });
    assert.equal(rest.status, 422);
    assert.deepEqual(
      rest.body.errors.map((e: { field: string }) => e.field),
      ['body.description'],
    );

    const res = await submit(owner, webhooks(), webhooks(), {
      url: 'https://hooks.example.com/long',
      event_types: '*',
      description: long,
    });
    assert.equal(res.status, 422);
    const page = await res.text();
    const description = formField(page, 'description');
    assert.equal(description.value, long, 'the whole typed description is kept');
    assert.equal(description.invalid, true);
    assert.deepEqual(description.describedBy, ['description-error']);
    assert.equal(description.error, 'The description must be a string of at most 500 characters.');
    assert.equal(Number(await endpointCount()), before, 'nothing was created, truncated or not');

    const exact = 'e'.repeat(500);
    const created = await submit(owner, webhooks(), webhooks(), {
      url: 'https://hooks.example.com/exact',
      event_types: '*',
      description: exact,
    });
    assert.equal(created.status, 201);
    const stored = await t.runtime.db
      .selectFrom('webhook_endpoints')
      .select('description')
      .where('school_id', '=', demo)
      .where('url', '=', 'https://hooks.example.com/exact')
      .executeTakeFirstOrThrow();
    assert.equal(stored.description, exact);
    const changed = await call('PATCH', `${PATH}/${(await call('GET', PATH)).body.data[0].id}`, {
      description: long,
    });
    assert.equal(changed.status, 422, 'a change meets the same rule');
    assert.equal(changed.body.errors[0].field, 'body.description');
  });

  it('logs the same beta.toggled line when the beta is switched through PATCH /api/v1/school and the page', async () => {
    const ownerId = world.userId('owner@example.com');
    const betaLines = (from: number) =>
      t.logs.slice(from).filter((line) => line.event === 'beta.toggled') as Array<Record<string, unknown>>;
    const trail = (line: Record<string, unknown>) => ({
      msg: line.msg,
      schoolId: line.schoolId,
      actorUserId: line.actorUserId,
      feature: line.feature,
      enabled: line.enabled,
      changed: line.changed,
    });
    const isOn = async () =>
      betaFeatures((await findSchoolById(t.runtime.db, demo))!).includes('mcp_connections');
    assert.equal(await isOn(), true, 'the demo school starts with the beta on');

    let mark = t.logs.length;
    const off = await call('PATCH', '/api/v1/school', { beta_features: [] });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal(await isOn(), false);
    const [restOff, ...restMore] = betaLines(mark);
    assert.ok(restOff, 'the API left a beta.toggled line');
    assert.equal(restMore.length, 0);
    assert.equal(typeof restOff.requestId, 'string');

    mark = t.logs.length;
    const on = await submit(owner, `/admin/${demo}`, `/admin/${demo}/beta`, { enabled: 'on' });
    assert.equal(on.status, 303);
    assert.equal(locationOf(on), `/admin/${demo}?done=beta-on`);
    assert.equal(await isOn(), true);
    const [pageOn] = betaLines(mark);
    assert.ok(pageOn, 'the page left a beta.toggled line');

    mark = t.logs.length;
    const pageOffRes = await submit(owner, `/admin/${demo}`, `/admin/${demo}/beta`, { enabled: 'off' });
    assert.equal(pageOffRes.status, 303);
    const [pageOff] = betaLines(mark);

    mark = t.logs.length;
    const restOnRes = await call('PATCH', '/api/v1/school', { beta_features: ['mcp_connections'] });
    assert.equal(restOnRes.status, 200);
    const [restOn] = betaLines(mark);

    const expected = (enabled: boolean) => ({
      msg: 'security event beta.toggled',
      schoolId: demo,
      actorUserId: ownerId,
      feature: 'mcp_connections',
      enabled,
      changed: true,
    });
    assert.deepEqual(trail(restOff), expected(false));
    assert.deepEqual(trail(pageOff), expected(false), 'the page’s line is the API’s line');
    assert.deepEqual(trail(pageOn), expected(true));
    assert.deepEqual(trail(restOn), expected(true), 'the API’s line is the page’s line');

    mark = t.logs.length;
    const other = await call('PATCH', '/api/v1/school', { timezone: 'Europe/Berlin' });
    assert.equal(other.status, 200);
    assert.equal(betaLines(mark).length, 0, 'a change that does not name the beta does not log it');
  });
});
