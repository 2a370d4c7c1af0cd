import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoData } from '../../src/domain/demo/demo-seed.ts';
import { findSchoolBySubdomain } from '../../src/domain/school/schools.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { type Browser, formFields } from '../support/oauth-flow.ts';
import { WebhookReceiver } from '../support/webhook-receiver.ts';
import { FakeClock, testWorker } from '../webhooks/support.ts';
import { assertPageHeaders, locationOf, signedIn, submit } from './pages-support.ts';

/** Issue #13: the audit trail and webhook pages of `/admin`, for owners and admins only. */
describe('/admin: audit trail and webhooks pages', () => {
  let t: TestApp;
  let demo: string;
  let other: string;
  let owner: Browser;
  let student: Browser;
  let receiver: WebhookReceiver;
  before(async () => {
    t = await createTestApp();
    await seedDemoData(t.runtime.db);
    demo = (await findSchoolBySubdomain(t.runtime.db, 'demo'))!.id;
    other = (await findSchoolBySubdomain(t.runtime.db, 'other'))!.id;
    owner = await signedIn(t, 'owner@example.com');
    student = await signedIn(t, 'student@example.com');
    receiver = await new WebhookReceiver().start();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });

  it('shows the school’s audit trail with filters and paging; bad filters get a 400 page', async () => {
    const page = await owner.request(`/admin/${demo}/audit`);
    assert.equal(page.status, 200);
    assertPageHeaders(page);
    const body = await page.text();
    assert.match(body, /Demo Academy · Audit trail/);
    assert.match(body, /Enrolled Sam Student in the course “/, 'the demo seed left events');
    const filtered = await (await owner.request(`/admin/${demo}/audit?type=order.paid`)).text();
    assert.doesNotMatch(filtered, /Enrolled Sam Student/);
    assert.match(filtered, /Recorded order \S+ of Sam Student as paid: /);
    const bad = await owner.request(`/admin/${demo}/audit?type=%3Cscript%3E&from=yesterday`);
    assert.equal(bad.status, 400);
    assert.doesNotMatch(await bad.text(), /<script>/);
    const cursor = await owner.request(`/admin/${demo}/audit?cursor=garbage`);
    assert.equal(cursor.status, 400);
  });

  it('adds an endpoint (secret shown once), lists it, tests it and shows the attempt', async () => {
    const res = await submit(owner, `/admin/${demo}/webhooks`, `/admin/${demo}/webhooks`, {
      url: `${receiver.url}/admin`,
      event_types: 'course.*, webhook.test',
      description: 'From the page',
    });
    assert.equal(res.status, 422, 'webhook.test is no subscription');
    assert.match(await res.text(), /deliverable event types/);
    const created = await submit(owner, `/admin/${demo}/webhooks`, `/admin/${demo}/webhooks`, {
      url: `${receiver.url}/admin`,
      event_types: 'course.*',
      description: 'From the page',
    });
    assert.equal(created.status, 201);
    const text = await created.text();
    const secret = /id="webhook-secret">(whsec_[^<]+)</.exec(text)?.[1];
    assert.ok(secret);
    receiver.secrets = [secret];
    const endpointPath = /href="(\/admin\/[^"]+\/webhooks\/whe_[^"]+)"/.exec(text)?.[1];
    assert.ok(endpointPath);
    const list = await (await owner.request(`/admin/${demo}/webhooks`)).text();
    assert.match(list, new RegExp(`${receiver.url}/admin`));
    assert.doesNotMatch(list, /whsec_/, 'the secret is not shown again');
    const test = await submit(owner, endpointPath, `${endpointPath}/test`, {});
    assert.equal(test.status, 303);
    assert.equal(locationOf(test), `${endpointPath}?done=test`);
    await testWorker(t, new FakeClock()).runOnce();
    assert.equal(receiver.on('/admin')[0].json.type, 'webhook.test');
    assert.deepEqual(receiver.on('/admin')[0].signedBy, [0]);
    const detail = await (await owner.request(endpointPath)).text();
    assert.match(detail, /<code>webhook\.test<\/code>/);
    assert.match(detail, /<td>204<\/td>/);
    const bad = await submit(owner, `/admin/${demo}/webhooks`, `/admin/${demo}/webhooks`, {
      url: 'https://10.0.0.1/x',
      event_types: '*',
    });
    assert.equal(bad.status, 422);
    assert.match(await bad.text(), /public address/);
  });

  it('tells operators on every page when Lectern disabled an endpoint, and lets them enable it', async () => {
    const created = await submit(owner, `/admin/${demo}/webhooks`, `/admin/${demo}/webhooks`, {
      url: `${receiver.url}/gone`,
      event_types: 'order.*',
    });
    const endpointPath = /href="(\/admin\/[^"]+\/webhooks\/whe_[^"]+)"/.exec(await created.text())![1];
    receiver.plan('/gone', { status: 410 });
    assert.equal((await submit(owner, endpointPath, `${endpointPath}/test`, {})).status, 303);
    await testWorker(t, new FakeClock()).runOnce();
    const settings = await (await owner.request(`/admin/${demo}`)).text();
    assert.match(settings, /Webhooks \(1 disabled\)/);
    const list = await (await owner.request(`/admin/${demo}/webhooks`)).text();
    assert.match(list, /410 Gone/);
    const enabled = await submit(owner, endpointPath, `${endpointPath}/enable`, {});
    assert.equal(locationOf(enabled), `${endpointPath}?done=enabled`);
    assert.doesNotMatch(await (await owner.request(`/admin/${demo}`)).text(), /disabled\)/);
    const rotated = await submit(owner, endpointPath, `${endpointPath}/rotate`, {});
    assert.equal(rotated.status, 200);
    assert.match(await rotated.text(), /id="webhook-secret">whsec_/);
    const deleted = await submit(owner, `${endpointPath}/delete`, `${endpointPath}/delete`, {
      confirmed: 'yes',
    });
    assert.equal(locationOf(deleted), `/admin/${demo}/webhooks?done=deleted`);
    assert.equal((await owner.request(endpointPath)).status, 404);
  });

  it('deleting an endpoint asks first; a POST without the confirmation deletes nothing', async () => {
    const created = await submit(owner, `/admin/${demo}/webhooks`, `/admin/${demo}/webhooks`, {
      url: `${receiver.url}/asked`,
      event_types: '*',
    });
    const endpointPath = /href="(\/admin\/[^"]+\/webhooks\/whe_[^"]+)"/.exec(await created.text())![1];
    const page = await (await owner.request(endpointPath)).text();
    assert.match(page, new RegExp(`<a href="${endpointPath}/delete">Delete endpoint</a>`));
    assert.doesNotMatch(page, new RegExp(`<form[^>]*action="${endpointPath}/delete"`), 'no one-click delete');

    const unconfirmed = await submit(owner, endpointPath, `${endpointPath}/delete`, {});
    assert.equal(unconfirmed.status, 303);
    assert.equal(locationOf(unconfirmed), `${endpointPath}/delete`);
    assert.equal((await owner.request(endpointPath)).status, 200, 'still there');

    const confirm = await owner.request(`${endpointPath}/delete`);
    assert.equal(confirm.status, 200);
    assertPageHeaders(confirm);
    const question = await confirm.text();
    assert.match(question, /<h1>Delete this endpoint\?<\/h1>/);
    assert.match(question, /<button class="danger" type="submit">Delete endpoint<\/button>/);
    assert.match(question, new RegExp(`<a href="${endpointPath}">Cancel</a>`));
    const fields = formFields(question, `${endpointPath}/delete`);
    assert.equal(fields.get('confirmed'), 'yes');
    assert.ok(fields.get('csrf_token'));
    const done = await owner.postForm(`${endpointPath}/delete`, fields);
    assert.equal(locationOf(done), `/admin/${demo}/webhooks?done=deleted`);
    assert.equal((await owner.request(endpointPath)).status, 404);
    assert.equal((await owner.request(`${endpointPath}/delete`)).status, 404);
  });

  it('keeps schools apart and students out, and refuses forged POSTs', async () => {
    assert.equal((await student.request(`/admin/${demo}/audit`)).status, 403);
    assert.equal((await student.request(`/admin/${demo}/webhooks`)).status, 403);
    assert.equal((await owner.request(`/admin/${other}/audit`)).status, 403);
    const created = await submit(owner, `/admin/${demo}/webhooks`, `/admin/${demo}/webhooks`, {
      url: `${receiver.url}/mine`,
      event_types: '*',
    });
    const endpointPath = /href="(\/admin\/[^"]+\/webhooks\/(whe_[^"]+))"/.exec(await created.text())!;
    const foreign = await owner.request(`/admin/${other}/webhooks/${endpointPath[2]}`);
    assert.equal(foreign.status, 403);
    const forged = await owner.postForm(`${endpointPath[1]}/delete`, { csrf_token: 'nope' });
    assert.equal(forged.status, 403);
    assert.equal((await owner.request(endpointPath[1])).status, 200, 'still there');
  });
});
