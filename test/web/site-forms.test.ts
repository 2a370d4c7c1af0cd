/**
 * A school's public form over HTTP: a visitor fills it in without an account, and the answers
 * appear where operators read submissions (the admin API's forms operation). The form carries a
 * signed token (tied to the form, expiring) and a honeypot; errors come back by the fields;
 * posting is throttled per address; another school's form is a 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { api } from '../admin/api.ts';
import { createTestApp, type TestApp } from '../support/app.ts';
import { formFields } from '../support/oauth-flow.ts';
import { createWorld, type World } from '../support/world.ts';
import { assertPageHeaders, locationOf } from './pages-support.ts';

describe('public forms of a school site', () => {
  let t: TestApp;
  let w: World;
  let demoApi: ReturnType<typeof api>;
  let formId: string;
  let otherFormId: string;
  let address = 0;
  // Each test posts from its own address, so the per-address limit is one test's business.
  const from = () => ({ 'x-forwarded-for': `198.51.100.${++address}` });

  before(async () => {
    t = await createTestApp({ TRUST_PROXY: 'true' });
    w = await createWorld(t);
    demoApi = api(t, await w.demo.token());
    formId = (await demoApi('GET', '/api/v1/forms')).body.data[0].id;
    otherFormId = 'frm_01jf3k6m2v8w9x0y1z2a3b4c5d';
    await t.runtime.db
      .insertInto('forms')
      .values({
        id: otherFormId,
        school_id: w.other.schoolId,
        title: 'Kontakt',
        fields: JSON.stringify([{ name: 'nachricht', label: 'Nachricht', type: 'textarea', required: true }]),
        created_at: '2026-01-01T00:00:00.000Z',
        updated_at: '2026-01-01T00:00:00.000Z',
      })
      .execute();
  });
  after(() => t.close());

  const path = () => `/schools/demo/forms/${formId}`;

  async function shown(): Promise<URLSearchParams> {
    const res = await t.request(path(), { headers: { accept: 'text/html' } });
    assert.equal(res.status, 200);
    return formFields(await res.text(), path());
  }

  function post(fields: URLSearchParams, headers: Record<string, string> = from()): Promise<Response> {
    return t.request(path(), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: fields.toString(),
    });
  }

  async function submissions(): Promise<Array<{ email: string | null; data: Record<string, string> }>> {
    const res = await demoApi('GET', `/api/v1/forms/${formId}/submissions?limit=100`);
    assert.equal(res.status, 200);
    return res.body.data;
  }

  it('the form page: its fields with labels, a signed token and a hidden honeypot', async () => {
    const res = await t.request(path(), { headers: { accept: 'text/html' } });
    assert.equal(res.status, 200);
    assertPageHeaders(res);
    const html = await res.text();
    assert.ok(html.includes('<h1>Contact us</h1>'));
    assert.ok(html.includes('<label for="f-name">Your name</label>'));
    assert.ok(html.includes('<input type="text" id="f-name" name="name" required maxlength="500" value="">'));
    assert.ok(
      html.includes(
        '<input type="email" autocomplete="email" id="f-email" name="email" required maxlength="254" value="">',
      ),
    );
    assert.ok(html.includes('<textarea id="f-message" name="message" required maxlength="5000"></textarea>'));
    assert.match(html, /<input type="hidden" name="form_token" value="\d{13}\.[A-Za-z0-9_-]{43}">/);
    assert.ok(
      html.includes(
        '<div class="hp" aria-hidden="true"><label for="hp-website">Leave this field empty</label><input id="hp-website" name="website" type="text" tabindex="-1" autocomplete="off"></div>',
      ),
    );
    assert.ok(html.includes('<button class="primary" type="submit">Send</button>'));
  });

  it('a visitor’s submission → thanks after a redirect; operators read it through the admin API', async () => {
    const before = (await submissions()).length;
    const fields = await shown();
    fields.set('name', '  Vera Visitor ');
    fields.set('email', 'Vera@Example.com');
    fields.set('message', 'Do you have evening classes?');
    fields.set('unknown', 'dropped');
    const res = await post(fields);
    assert.equal(res.status, 303);
    assert.equal(locationOf(res), `${path()}?sent=1`);
    const thanks = await (await t.request(locationOf(res), { headers: { accept: 'text/html' } })).text();
    assert.ok(thanks.includes('Thank you: your message was sent.'));
    const all = await submissions();
    assert.equal(all.length, before + 1);
    const last = all[all.length - 1];
    assert.equal(last.email, 'vera@example.com');
    assert.deepEqual(last.data, {
      name: 'Vera Visitor',
      email: 'Vera@Example.com',
      message: 'Do you have evening classes?',
    });
  });

  it('errors come back by the fields, with what was typed; nothing is stored', async () => {
    const before = (await submissions()).length;
    const fields = await shown();
    fields.set('name', '');
    fields.set('email', 'not an email');
    fields.set('message', 'm'.repeat(20_000));
    const res = await post(fields);
    assert.equal(res.status, 422);
    const html = await res.text();
    assert.ok(html.includes('<p class="field-error" id="f-name-error">Your name is required.</p>'));
    assert.ok(
      html.includes(
        '<p class="field-error" id="f-email-error">Email must be an email address, like name@example.com.</p>',
      ),
    );
    assert.ok(
      html.includes(
        '<p class="field-error" id="f-message-error">Message must be at most 5000 characters.</p>',
      ),
    );
    assert.ok(html.includes('aria-invalid="true" aria-describedby="f-email-error" value="not an email"'));
    const nul = await shown();
    nul.set('name', 'N\u0000');
    nul.set('email', 'n@example.com');
    nul.set('message', 'hi');
    const refused = await post(nul);
    assert.equal(refused.status, 422);
    assert.ok((await refused.text()).includes('Your name contains a character that is not allowed.'));
    assert.equal((await submissions()).length, before);
  });

  it('a tampered, missing, expired or other form’s token is refused, with a way back to the form', async () => {
    const before = (await submissions()).length;
    const good = await shown();
    good.set('name', 'T');
    good.set('email', 't@example.com');
    good.set('message', 'hello');
    const token = good.get('form_token')!;
    const [expires, mac] = token.split('.');
    for (const bad of [`${Number(expires) + 1}.${mac}`, '', 'x', `${expires}.${'A'.repeat(43)}`]) {
      const fields = new URLSearchParams(good);
      fields.set('form_token', bad);
      const res = await post(fields);
      assert.equal(res.status, 403, bad);
      const text = await res.text();
      assert.ok(
        text.includes(
          'This form has expired or did not come from this site. Go back, reload the page and try again.',
        ),
      );
      assert.ok(text.includes(`<a href="/schools/demo/forms/${formId}">Back to the page</a>`));
    }
    // The token of Other School's form does not open Demo Academy's.
    const otherPage = await t.request(`/schools/other/forms/${otherFormId}`, {
      headers: { accept: 'text/html' },
    });
    const otherToken = formFields(await otherPage.text()).get('form_token')!;
    const swapped = new URLSearchParams(good);
    swapped.set('form_token', otherToken);
    assert.equal((await post(swapped)).status, 403);
    // Three hours later the shown form has expired.
    t.clock.advance(3 * 3600 * 1000);
    try {
      assert.equal((await post(good)).status, 403);
    } finally {
      t.clock.advance(-3 * 3600 * 1000);
    }
    assert.equal((await submissions()).length, before);
  });

  it('a filled honeypot is thanked like anyone, and nothing is stored', async () => {
    const before = (await submissions()).length;
    const fields = await shown();
    fields.set('name', 'Bot');
    fields.set('email', 'bot@example.com');
    fields.set('message', 'buy now');
    fields.set('website', 'https://spam.example');
    const res = await post(fields);
    assert.equal(res.status, 303);
    assert.equal((await submissions()).length, before);
  });

  it('another school’s form under this school, and unknown ids, are a 404 (a post without the form’s token is refused first)', async () => {
    for (const id of [otherFormId, 'frm_00000000000000000000000000', 'nope', '%3Cscript%3E']) {
      const res = await t.request(`/schools/demo/forms/${id}`, { headers: { accept: 'text/html' } });
      assert.equal(res.status, 404, id);
      assert.ok((await res.text()).includes('This form does not exist.'));
      const posted = await t.request(`/schools/demo/forms/${id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...from() },
        body: 'nachricht=hi',
      });
      // Every form post is checked for its token before anything is read: the same 403 whether
      // or not the form exists.
      assert.equal(posted.status, 403);
    }
    assert.equal(
      (await t.request(`/schools/other/forms/${otherFormId}`, { headers: { accept: 'text/html' } })).status,
      200,
    );
  });

  it('posting is throttled per address: the eleventh post in ten minutes waits', async () => {
    const headers = from();
    const fields = await shown();
    for (let i = 0; i < 10; i++) assert.notEqual((await post(fields, headers)).status, 429, `post ${i + 1}`);
    const slow = await post(fields, headers);
    assert.equal(slow.status, 429);
    assert.ok(Number(slow.headers.get('retry-after')) > 0);
    assert.ok((await slow.text()).includes('Too many messages were sent from your network.'));
  });
});
