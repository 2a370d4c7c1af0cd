import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { z } from 'zod';
import { adminOperations } from '../../src/admin/catalogue.ts';
import { Amount } from '../../src/domain/kernel/fields.ts';
import { type FieldRule, ruledFieldError } from '../../src/errors/problem-error.ts';
import {
  displayValue,
  type FieldContext,
  fieldErrorsOf,
  formFields,
  hintOf,
  labelOf,
  readFields,
} from '../../src/web/admin/console/fields.ts';
import { parseMoney } from '../../src/web/admin/console/fields-schema.ts';
import { fromLocalInput, toLocalInput } from '../../src/web/shared/school-format.ts';

/** The console's form library: every catalogue body renders, reads back, and says things in words. */

const EUR: FieldContext = { currency: 'EUR', locale: 'en-GB', timeZone: 'Europe/Berlin' };
const JPY: FieldContext = { currency: 'JPY', locale: 'ja-JP', timeZone: 'Asia/Tokyo' };

const body = (name: string): z.ZodType => {
  const op = adminOperations.find((o) => o.name === name);
  assert.ok(op?.input.body, `${name} has a body`);
  return op.input.body as z.ZodType;
};

const render = async (h: unknown) => String(await h);

/** Each visible control of a form: its tag, attributes and whether a `<label for>` names it. */
function controls(page: string): { tag: string; attrs: string; id?: string; name?: string; type?: string }[] {
  return [...page.matchAll(/<(input|select|textarea)\b([^>]*)>/g)]
    .map((m) => ({
      tag: m[1],
      attrs: m[2],
      id: /\sid="([^"]*)"/.exec(m[2])?.[1],
      name: /\sname="([^"]*)"/.exec(m[2])?.[1],
      type: /\stype="([^"]*)"/.exec(m[2])?.[1],
    }))
    .filter((c) => c.type !== 'hidden');
}

/** A plausible value for every control, as a person would fill the form in. */
function fill(page: string): URLSearchParams {
  const form = new URLSearchParams();
  for (const m of page.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    form.append(m[1], m[2]);
  for (const c of controls(page)) {
    if (!c.name) continue;
    if (c.tag === 'select') {
      const select = page.slice(page.indexOf(`name="${c.name}"`));
      const first = /<option value="([^"]+)"/.exec(select.slice(0, select.indexOf('</select>')));
      if (first) form.set(c.name, first[1]);
    } else if (c.type === 'checkbox') form.append(c.name, /value="([^"]*)"/.exec(c.attrs)?.[1] ?? 'true');
    else if (c.type === 'email') form.set(c.name, 'ada@example.com');
    else if (c.type === 'url') form.set(c.name, 'https://example.com/x');
    else if (c.type === 'number') form.set(c.name, /min="([^"]*)"/.exec(c.attrs)?.[1] ?? '1');
    else if (c.type === 'datetime-local') form.set(c.name, '2026-05-01T10:00');
    else if (c.type === 'date') form.set(c.name, '2026-05-01');
    else if (/inputmode="decimal"/.test(c.attrs)) form.set(c.name, '12.50');
    else form.set(c.name, c.tag === 'textarea' ? 'first\nsecond' : 'x');
  }
  return form;
}

describe('console fields: every body of the catalogue', () => {
  it('renders every create/update body with a label for each control, and reads a filled form back', async () => {
    let bodies = 0;
    for (const op of adminOperations) {
      const schema = op.input.body as z.ZodType | undefined;
      if (!schema || op.binary) continue;
      bodies++;
      const page = await render(formFields(schema, undefined, {}, EUR));
      const ids = new Set<string>();
      for (const c of controls(page)) {
        assert.ok(c.id, `${op.name}: ${c.tag} ${c.name} has an id`);
        assert.ok(!ids.has(c.id), `${op.name}: id ${c.id} is unique`);
        ids.add(c.id);
        assert.match(
          page,
          new RegExp(`<label (class="check" )?for="${c.id}"`),
          `${op.name}: ${c.id} has a label`,
        );
        assert.doesNotMatch(c.name ?? '', /^$/, `${op.name}: ${c.id} has a name`);
      }
      assert.doesNotMatch(page, /minor units|`|\[object Object\]|undefined/, `${op.name} says nothing raw`);
      const empty = readFields(schema, new URLSearchParams(), EUR);
      assert.deepEqual(empty, { ok: true, body: {} }, `${op.name}: an empty form reads as nothing`);
      const filled = readFields(schema, fill(page), EUR);
      assert.equal(filled.ok, true, `${op.name}: a filled form reads back (${JSON.stringify(filled)})`);
      // The filled values are shown again as they were read.
      if (filled.ok) await render(formFields(schema, filled.body, {}, EUR));
    }
    assert.ok(bodies >= 30, `walked ${bodies} bodies`);
  });

  it('a form filled in the usual way is a body the operation accepts, for the main groups', async () => {
    const cases: [string, Record<string, string | string[]>][] = [
      [
        'courses.create',
        { slug: 'intro', title: 'Intro', price_amount: '49.00', status: 'published', lecturer_ids: '' },
      ],
      [
        'curriculum.create_lecture',
        { title: 'One', type: 'text', is_free_preview: ['false', 'true'], body: 'Hi' },
      ],
      ['students.enroll', { course_id: 'crs_1', email: 'ada@example.com', expires_at: '2026-12-31T23:59' }],
      ['members.invite', { email: 'ada@example.com', roles: ['', 'lecturer', 'student'], course_ids: '' }],
      ['lecturers.create', { name: 'Ada', headline: '', bio: '', avatar_url: '' }],
      ['coupons.create', { code: 'SPRING', kind: 'fixed', amount_off: '5', currency: 'EUR', applies_to: '' }],
      [
        'membership_plans.create',
        { name: 'All', interval: 'month', price_amount: '9.99', course_ids: 'crs_1\ncrs_2' },
      ],
      [
        'events.create',
        { title: 'Live', starts_at: '2026-06-01T18:00', ends_at: '2026-06-01T19:30', capacity: '' },
      ],
      ['digital_products.create', { title: 'Book', price_amount: '12', file_id: '' }],
      ['posts.create', { title: 'News', slug: 'news', body: 'Text', status: 'draft', author_user_id: '' }],
      ['school.update', { name: 'Academy', timezone: 'Europe/Berlin', currency: 'EUR', contact_email: '' }],
      ['appearance.update', { primary_color: '#1f4b99', font: 'Inter', logo_file_id: '' }],
      [
        'school.create_webhook_endpoint',
        { url: 'https://hooks.example.com/x', event_types: 'enrollment.*\nenrollment.created' },
      ],
      ['subscriptions.cancel', { at_period_end: 'false' }],
    ];
    for (const [name, fields] of cases) {
      const form = new URLSearchParams();
      for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) form.append(k, one);
      const read = readFields(body(name), form, EUR);
      assert.equal(read.ok, true, `${name}: ${JSON.stringify(read)}`);
      if (!read.ok) continue;
      const parsed = body(name).safeParse(read.body);
      assert.equal(parsed.success, true, `${name}: ${JSON.stringify(read.body)} ${parsed.error?.message}`);
    }
  });
});

describe('console fields: rendering', () => {
  it('shows a course form with amounts, words, required marks, hints and errors beside their fields', async () => {
    const page = await render(
      formFields(
        body('courses.create'),
        {
          slug: 'intro',
          title: 'Intro <b>',
          price_amount: 4900,
          status: 'published',
          lecturer_ids: ['lec_1', 'lec_2'],
        },
        { price_amount: 'Price must be at least 0.', image_url: 'Image URL must be an http or https URL.' },
        EUR,
      ),
    );
    assert.match(page, /<label for="f-title">Title <span class="muted">\(required\)<\/span><\/label>/);
    assert.match(page, /<input type="text" id="f-title" name="title" value="Intro &lt;b&gt;" required>/);
    assert.match(
      page,
      /<label for="f-price_amount">Price<\/label><div class="affixed"><span class="affix" id="f-price_amount-unit">€<\/span>/,
    );
    assert.match(
      page,
      /<input type="text" inputmode="decimal" autocomplete="off" id="f-price_amount" name="price_amount" value="49.00" aria-describedby="f-price_amount-unit f-price_amount-error" aria-invalid="true">/,
    );
    assert.match(page, /<p class="field-error" id="f-price_amount-error">Price must be at least 0.<\/p>/);
    assert.match(
      page,
      /<input type="url" id="f-image_url" name="image_url" value="" aria-describedby="f-image_url-error" aria-invalid="true">/,
    );
    assert.match(
      page,
      /<select id="f-status" name="status"><option value="">—<\/option><option value="draft">Draft<\/option><option value="published" selected>Published<\/option>/,
    );
    assert.match(page, /<textarea id="f-description" name="description" rows="10">/);
    assert.match(
      page,
      /<textarea id="f-lecturer_ids" name="lecturer_ids" rows="4" aria-describedby="f-lecturer_ids-hint">lec_1\nlec_2<\/textarea><p class="hint" id="f-lecturer_ids-hint">[^<]*One per line.<\/p>/,
    );
    assert.match(page, /<label for="f-lecturer_ids">Lecturers<\/label>/);
    assert.match(page, /<option value="EUR">Euro \(EUR\)<\/option>/);
    assert.doesNotMatch(page, /price_amount<\/label>|minor units/);
  });

  it('puts the amount in the currency the body names (JPY has no decimals; its symbol goes before)', async () => {
    const page = await render(
      formFields(body('courses.update'), { price_amount: 4900, currency: 'JPY' }, {}, JPY),
    );
    assert.match(
      page,
      /<span class="affix" id="f-price_amount-unit">￥<\/span><input[^>]*name="price_amount" value="4900"/,
    );
    const de = await render(
      formFields(body('courses.update'), { price_amount: 123456 }, {}, { ...EUR, locale: 'de-DE' }),
    );
    assert.match(
      de,
      /name="price_amount" value="1234,56"[^>]*><span class="affix" id="f-price_amount-unit">€<\/span>/,
    );
  });

  it('shows percent with a % sign, instants in the school’s zone, checkboxes with their unticked value', async () => {
    const coupon = await render(
      formFields(
        body('coupons.update'),
        { percent_off: 25, expires_at: '2026-10-25T01:30:00.000Z', active: true },
        {},
        EUR,
      ),
    );
    assert.match(
      coupon,
      /<input type="number" id="f-percent_off" name="percent_off" value="25" min="1" max="100" step="1"[^>]*><span class="affix">%<\/span>/,
    );
    assert.match(
      coupon,
      /<input type="datetime-local" id="f-expires_at" name="expires_at" value="2026-10-25T02:30" aria-describedby="f-expires_at-hint"><p class="hint" id="f-expires_at-hint">Date and time in Europe\/Berlin.<\/p>/,
    );
    assert.match(
      coupon,
      /<input type="hidden" name="active" value="false"><label class="check" for="f-active"><input type="checkbox" id="f-active" name="active" value="true" checked> Active<\/label>/,
    );
    assert.match(
      coupon,
      /<label for="f-kind">Discount type<\/label><select id="f-kind" name="kind"><option value="">—<\/option><option value="percent">Percentage<\/option><option value="fixed">Fixed amount<\/option>/,
    );
  });

  it('offers roles as checkboxes, references as choices, and leaves out fields the API ignores', async () => {
    const invite = await render(
      formFields(
        body('members.invite'),
        { roles: ['student'] },
        { 'roles.0': 'Role must be one of Owner, Admin.' },
        EUR,
        {
          choices: { course_ids: [{ value: 'crs_1', label: 'Intro to <Python>' }] },
        },
      ),
    );
    assert.match(
      invite,
      /<fieldset aria-describedby="f-roles-error"><legend>Roles <span class="muted">\(required\)<\/span><\/legend><input type="hidden" name="roles" value="">/,
    );
    assert.match(
      invite,
      /<label class="check" for="f-roles-3"><input type="checkbox" id="f-roles-3" name="roles" value="student" checked> Student<\/label>/,
    );
    assert.match(invite, /<p class="field-error" id="f-roles-error">Role must be one of Owner, Admin.<\/p>/);
    assert.match(
      invite,
      /<input type="checkbox" id="f-course_ids-0" name="course_ids" value="crs_1"> Intro to &lt;Python&gt;<\/label>/,
    );
    assert.doesNotMatch(invite, /name="name"/, 'the ignored name field is not asked for');
    const enroll = await render(
      formFields(body('students.enroll'), { course_id: 'crs_2' }, {}, EUR, {
        choices: {
          course_id: [
            { value: 'crs_1', label: 'Intro' },
            { value: 'crs_2', label: 'Advanced' },
          ],
        },
        omit: ['user_id'],
      }),
    );
    assert.match(
      enroll,
      /<label for="f-course_id">Course <span class="muted">\(required\)<\/span><\/label><select id="f-course_id" name="course_id" required><option value="crs_1">Intro<\/option><option value="crs_2" selected>Advanced<\/option><\/select>/,
    );
    assert.doesNotMatch(enroll, /user_id/);
    // Choices reach a field inside rows by its path without row numbers.
    const blocks = await render(
      formFields(
        body('pages.update'),
        { blocks: [{ type: 'course_list', course_ids: ['crs_2'] }] },
        {},
        EUR,
        {
          choices: { 'blocks.course_ids': [{ value: 'crs_2', label: 'Advanced' }] },
        },
      ),
    );
    assert.match(
      blocks,
      /<input type="checkbox" id="f-blocks-0-course_ids-0" name="blocks.0.course_ids" value="crs_2" checked> Advanced<\/label>/,
    );
    assert.deepEqual(
      readFields(
        body('pages.update'),
        new URLSearchParams(
          'blocks=&blocks.0.type=course_list&blocks.0.course_ids=&blocks.0.course_ids=crs_2',
        ),
        EUR,
      ),
      { ok: true, body: { blocks: [{ type: 'course_list', course_ids: ['crs_2'] }] } },
    );
  });

  it('shows page blocks as one fieldset per block, then empty ones to add, with row errors beside their fields', async () => {
    const page = await render(
      formFields(
        body('pages.update'),
        {
          blocks: [
            { type: 'heading', text: 'Welcome', level: 2 },
            { type: 'course_list', course_ids: ['crs_1'] },
          ],
        },
        { 'blocks.0.text': 'Text must have at most 300 characters.', 'blocks.1': 'Block 2 is not valid.' },
        EUR,
      ),
    );
    assert.match(
      page,
      /<fieldset id="f-blocks-0"><legend>Block 1<\/legend><label for="f-blocks-0-type">Block type<\/label><select id="f-blocks-0-type" name="blocks.0.type"><option value="">—<\/option><option value="hero">Hero<\/option><option value="heading" selected>Heading<\/option>/,
    );
    assert.match(
      page,
      /<textarea id="f-blocks-0-text" name="blocks.0.text" rows="4" aria-describedby="f-blocks-0-text-error" aria-invalid="true">Welcome<\/textarea>/,
    );
    assert.match(
      page,
      /<input type="number" id="f-blocks-0-level" name="blocks.0.level" value="2" min="1" max="4" step="1">/,
    );
    assert.doesNotMatch(page, /name="blocks.0.markdown"/, 'a heading row shows the heading’s fields only');
    assert.match(
      page,
      /<fieldset id="f-blocks-1" aria-describedby="f-blocks-1-error"><legend>Block 2<\/legend>/,
    );
    assert.match(
      page,
      /<input type="checkbox" id="f-blocks-1-remove" name="blocks.1._remove" value="true"> Remove this block<\/label>/,
    );
    assert.match(page, /<legend>New block<\/legend>[\s\S]*name="blocks.2.type"/);
    assert.doesNotMatch(page, /name="blocks.3.type"/, 'one empty row of every kind of block');
    assert.doesNotMatch(
      page,
      /<legend>New block<\/legend>[\s\S]*\(required\)/,
      'nothing of a new row is required',
    );
    assert.doesNotMatch(page, / required[ >]/, 'the browser never insists on a row’s field');
    assert.match(page, /<p class="hint" id="f-blocks-2-markdown-hint">For text.<\/p>/);
  });

  it('lists errors for fields the form does not show above the fields, and leaves the form’s error to the page', async () => {
    const page = await render(
      formFields(body('students.enroll'), {}, { '': 'Not allowed.', user_id: 'User must exist.' }, EUR, {
        omit: ['user_id'],
      }),
    );
    assert.match(page, /^<div class="notice error" role="alert"><p>User must exist.<\/p><\/div>/);
    assert.doesNotMatch(page, /Not allowed/);
  });
});

describe('console fields: reading a form back', () => {
  it('reads nested objects, dates and lists of objects holding lists (a quiz) back into their shape', async () => {
    const quiz = z.strictObject({
      title: z.string().min(1),
      opens_on: z.iso.date().optional(),
      contact: z.object({ email: z.email(), site: z.url().nullable() }).optional(),
      questions: z
        .array(
          z.object({
            prompt: z.string().min(1),
            choices: z.array(z.string()).min(2),
            points: z.number().int(),
          }),
        )
        .optional(),
    });
    const page = await render(
      formFields(quiz, { questions: [{ prompt: 'Two plus two?', choices: ['3', '4'], points: 1 }] }, {}, EUR),
    );
    assert.match(page, /<input type="date" id="f-opens_on" name="opens_on" value="">/);
    assert.match(
      page,
      /<fieldset id="f-contact"><legend>Contact<\/legend><input type="hidden" name="contact" value="">/,
    );
    assert.match(
      page,
      /<legend>Question 1<\/legend><label for="f-questions-0-prompt">Prompt <span class="muted">\(required\)<\/span><\/label>/,
    );
    assert.match(
      page,
      /<textarea id="f-questions-0-choices" name="questions.0.choices"[^>]*>3\n4<\/textarea>/,
    );
    assert.match(
      page,
      /<legend>New question<\/legend>[\s\S]*<legend>New question<\/legend>/,
      'two empty questions',
    );
    const read = readFields(
      quiz,
      new URLSearchParams({
        title: 'Quiz',
        opens_on: '2026-05-01',
        contact: '',
        'contact.email': 'ada@example.com',
        'contact.site': '',
        questions: '',
        'questions.0.prompt': 'Two plus two?',
        'questions.0.choices': '3\n4\n5',
        'questions.0.points': '2',
        'questions.1.prompt': '',
        'questions.1.choices': '',
        'questions.1.points': '',
      }),
      EUR,
    );
    assert.deepEqual(read, {
      ok: true,
      body: {
        title: 'Quiz',
        opens_on: '2026-05-01',
        contact: { email: 'ada@example.com', site: null },
        questions: [{ prompt: 'Two plus two?', choices: ['3', '4', '5'], points: 2 }],
      },
    });
    assert.equal(quiz.safeParse(read.ok && read.body).success, true);
    assert.match(
      page,
      /<input type="number" id="f-questions-0-points" name="questions.0.points" value="1" step="1">/,
    );
    assert.match(
      page,
      /<input type="email" id="f-contact-email" name="contact.email" value="" autocomplete="email">/,
    );
    assert.deepEqual(
      readFields(quiz, new URLSearchParams('title=Q&contact=&contact.email=&contact.site='), EUR),
      {
        ok: true,
        body: { title: 'Q' },
      },
    );
    assert.deepEqual(readFields(quiz, new URLSearchParams({ opens_on: '1 May' }), EUR), {
      ok: false,
      errors: { opens_on: 'Opens on must be a date.' },
      values: { opens_on: '1 May' },
    });
  });

  it('reads numbers and amounts in the currency’s decimals, and refuses what is not a number', () => {
    const course = body('courses.create');
    const read = (fields: Record<string, string>, fc = EUR) =>
      readFields(course, new URLSearchParams(fields), fc);
    assert.deepEqual(read({ price_amount: '49.00' }), { ok: true, body: { price_amount: 4900 } });
    assert.deepEqual(read({ price_amount: ' 49 ' }), { ok: true, body: { price_amount: 4900 } });
    assert.deepEqual(read({ price_amount: '49,5' }), { ok: true, body: { price_amount: 4950 } });
    assert.deepEqual(read({ price_amount: '€1,234.56' }), { ok: true, body: { price_amount: 123456 } });
    assert.deepEqual(read({ price_amount: '0.1' }), { ok: true, body: { price_amount: 10 } });
    assert.deepEqual(read({ price_amount: '1.234,56' }, { ...EUR, locale: 'de-DE' }), {
      ok: true,
      body: { price_amount: 123456 },
    });
    assert.deepEqual(read({ price_amount: '4900' }, JPY), { ok: true, body: { price_amount: 4900 } });
    assert.deepEqual(read({ price_amount: '4,900' }, JPY), { ok: true, body: { price_amount: 4900 } });
    assert.deepEqual(read({ price_amount: '49.5' }, JPY), {
      ok: false,
      errors: { price_amount: 'Price must be a whole amount (JPY has no decimals).' },
      values: { price_amount: '49.5' },
    });
    // A course priced in yen in a euro school: the body's currency decides the decimals.
    assert.deepEqual(read({ price_amount: '1000', currency: 'JPY' }), {
      ok: true,
      body: { price_amount: 1000, currency: 'JPY' },
    });
    assert.deepEqual(read({ price_amount: '49.001' }), {
      ok: false,
      errors: { price_amount: 'Price can have at most 2 decimals.' },
      values: { price_amount: '49.001' },
    });
    assert.deepEqual(read({ price_amount: 'forty' }), {
      ok: false,
      errors: { price_amount: 'Price must be an amount, like 49.00.' },
      values: { price_amount: 'forty' },
    });
    assert.deepEqual(read({ price_amount: '' }), { ok: true, body: {} });
    const lecture = body('curriculum.create_lecture');
    assert.deepEqual(
      readFields(lecture, new URLSearchParams({ duration_seconds: '90', position: '' }), EUR),
      {
        ok: true,
        body: { duration_seconds: 90 },
      },
    );
    assert.deepEqual(readFields(lecture, new URLSearchParams({ duration_seconds: '1.5' }), EUR), {
      ok: false,
      errors: { duration_seconds: 'Duration (seconds) must be a whole number.' },
      values: { duration_seconds: '1.5' },
    });
    assert.deepEqual(readFields(lecture, new URLSearchParams({ duration_seconds: '1e400' }), EUR), {
      ok: false,
      errors: { duration_seconds: 'Duration (seconds) must be a number.' },
      values: { duration_seconds: '1e400' },
    });
    assert.equal(parseMoney('9007199254740993', 'EUR', 'en').ok, false, 'too large for an exact number');
  });

  it('reads wall-clock times in the school’s zone across both DST changes of Europe/Berlin', () => {
    const berlin = 'Europe/Berlin';
    assert.equal(fromLocalInput('2026-01-15T12:00', berlin), '2026-01-15T11:00:00.000Z');
    assert.equal(fromLocalInput('2026-07-01T12:00', berlin), '2026-07-01T10:00:00.000Z');
    assert.equal(fromLocalInput('2026-03-29T01:59', berlin), '2026-03-29T00:59:00.000Z');
    // 02:30 does not exist on 29 March (clocks jump from 02:00 to 03:00): it is read as 03:30.
    assert.equal(fromLocalInput('2026-03-29T02:30', berlin), '2026-03-29T01:30:00.000Z');
    assert.equal(fromLocalInput('2026-03-29T03:00', berlin), '2026-03-29T01:00:00.000Z');
    // 02:30 happens twice on 25 October: the first (summer time) is meant.
    assert.equal(fromLocalInput('2026-10-25T02:30', berlin), '2026-10-25T00:30:00.000Z');
    assert.equal(fromLocalInput('2026-10-25T03:30', berlin), '2026-10-25T02:30:00.000Z');
    // A year is the year written, even before 100 (never read as 19xx).
    assert.equal(fromLocalInput('0050-01-01T10:00', 'UTC'), '0050-01-01T10:00:00.000Z');
    assert.equal(fromLocalInput('2026-10-25T02:30:15', berlin), '2026-10-25T00:30:15.000Z');
    assert.equal(toLocalInput('2026-10-25T00:30:00.000Z', berlin), '2026-10-25T02:30');
    assert.equal(toLocalInput('2026-10-25T01:30:00.000Z', berlin), '2026-10-25T02:30');
    assert.equal(toLocalInput('2026-03-29T01:30:00Z', berlin), '2026-03-29T03:30');
    assert.equal(toLocalInput('2026-07-01T10:00:05Z', berlin), '2026-07-01T12:00:05');
    assert.equal(fromLocalInput('2026-02-30T10:00', berlin), undefined);
    assert.equal(fromLocalInput('2026-13-01T10:00', berlin), undefined);
    assert.equal(fromLocalInput('tomorrow', berlin), undefined);
    const events = body('events.create');
    assert.deepEqual(
      readFields(
        events,
        new URLSearchParams({ starts_at: '2026-03-29T02:30', ends_at: '2026-10-25T03:30' }),
        EUR,
      ),
      { ok: true, body: { starts_at: '2026-03-29T01:30:00.000Z', ends_at: '2026-10-25T02:30:00.000Z' } },
    );
    assert.deepEqual(readFields(events, new URLSearchParams({ starts_at: '29/03/2026' }), EUR), {
      ok: false,
      errors: { starts_at: 'Starts must be a date and time.' },
      values: { starts_at: '29/03/2026' },
    });
    // An empty optional instant that may be null is cleared; one that may not is left out.
    const enrollment = body('students.update_enrollment');
    assert.deepEqual(readFields(enrollment, new URLSearchParams({ expires_at: '' }), EUR), {
      ok: true,
      body: { expires_at: null },
    });
  });

  it('reads checkboxes the form showed as true or false, and leaves out those it did not show', () => {
    const lecture = body('curriculum.update_lecture');
    const read = (form: string) => readFields(lecture, new URLSearchParams(form), EUR);
    assert.deepEqual(read('is_free_preview=false&is_free_preview=true'), {
      ok: true,
      body: { is_free_preview: true },
    });
    assert.deepEqual(read('is_free_preview=false'), { ok: true, body: { is_free_preview: false } });
    assert.deepEqual(read('title=A'), { ok: true, body: { title: 'A' } });
    assert.deepEqual(
      readFields(body('subscriptions.cancel'), new URLSearchParams('at_period_end=false'), EUR),
      {
        ok: true,
        body: { at_period_end: false },
      },
    );
  });

  it('reads lists one per line or one per ticked box, and refuses a list longer than any form has', () => {
    const course = body('courses.update');
    assert.deepEqual(
      readFields(course, new URLSearchParams({ lecturer_ids: ' lec_1 \r\n\r\nlec_2\n' }), EUR),
      {
        ok: true,
        body: { lecturer_ids: ['lec_1', 'lec_2'] },
      },
    );
    assert.deepEqual(readFields(course, new URLSearchParams({ lecturer_ids: '' }), EUR), {
      ok: true,
      body: { lecturer_ids: [] },
    });
    const invite = body('members.invite');
    assert.deepEqual(readFields(invite, new URLSearchParams('roles=&roles=admin&roles=student'), EUR), {
      ok: true,
      body: { roles: ['admin', 'student'] },
    });
    const hostile = readFields(invite, new URLSearchParams('roles=&roles=root'), EUR);
    assert.equal(hostile.ok, false);
    assert.deepEqual(!hostile.ok && hostile.errors, { roles: 'Roles must be one of the choices offered.' });
    const many = Array.from({ length: 10_000 }, (_, i) => `lec_${i}`).join('\n');
    const long = readFields(course, new URLSearchParams({ lecturer_ids: many }), EUR);
    assert.equal(long.ok, false);
    assert.deepEqual(!long.ok && long.errors, { lecturer_ids: 'Lecturers can have at most 500 items.' });
    assert.equal(!long.ok && (long.values.lecturer_ids as string[]).length, 500);
    const coupon = body('coupons.update');
    assert.deepEqual(readFields(coupon, new URLSearchParams('applies_to='), EUR), {
      ok: true,
      body: { applies_to: null },
    });
  });

  it('reads page blocks row by row: empty and removed rows dropped, each row with its own type’s fields', () => {
    const pages = body('pages.update');
    const form = new URLSearchParams();
    form.append('blocks', '');
    form.append('blocks.0.type', 'hero');
    form.append('blocks.0.heading', 'Learn with us');
    form.append('blocks.0.text', 'Courses for everyone');
    form.append('blocks.0.image_file_id', '');
    form.append('blocks.0.markdown', 'ignored: not a hero field');
    form.append('blocks.1.type', 'text');
    form.append('blocks.1.markdown', 'Removed');
    form.append('blocks.1._remove', 'true');
    form.append('blocks.2.type', '');
    form.append('blocks.2.heading', '');
    form.append('blocks.12.type', 'course_list');
    form.append('blocks.12.course_ids', 'crs_1\ncrs_2');
    form.append('blocks.5.type', 'heading');
    form.append('blocks.5.text', 'About');
    form.append('blocks.5.level', '3');
    const read = readFields(pages, form, EUR);
    assert.deepEqual(read, {
      ok: true,
      body: {
        blocks: [
          { type: 'hero', heading: 'Learn with us', text: 'Courses for everyone', image_file_id: null },
          { type: 'heading', text: 'About', level: 3 },
          { type: 'course_list', course_ids: ['crs_1', 'crs_2'] },
        ],
      },
    });
    assert.equal(pages.safeParse(read.ok && read.body).success, true);
    // A row with content but no type is kept to show again, with the error on its type.
    const untyped = readFields(pages, new URLSearchParams('blocks=&blocks.0.type=&blocks.0.heading=Hi'), EUR);
    assert.deepEqual(untyped, {
      ok: false,
      errors: { 'blocks.0.type': 'Block 1: choose its type.' },
      values: { blocks: [{ heading: 'Hi' }] },
    });
    // A non-number in a row names the row as the form shows it again (empty rows dropped first).
    const bad = readFields(
      pages,
      new URLSearchParams('blocks=&blocks.0.type=&blocks.1.type=heading&blocks.1.text=A&blocks.1.level=two'),
      EUR,
    );
    assert.deepEqual(bad, {
      ok: false,
      errors: { 'blocks.0.level': 'Heading level must be a whole number.' },
      values: { blocks: [{ type: 'heading', text: 'A', level: 'two' }] },
    });
    assert.deepEqual(readFields(pages, new URLSearchParams('blocks='), EUR), {
      ok: true,
      body: { blocks: [] },
    });
  });

  it('stands hostile input: 10 000 rows, huge strings and prototype keys', () => {
    const pages = body('pages.create');
    const form = new URLSearchParams('blocks=');
    for (let i = 0; i < 10_000; i++) {
      form.append(`blocks.${i}.type`, 'text');
      form.append(`blocks.${i}.markdown`, `row ${i}`);
    }
    // Read in one pass (no timing here: speed is the bench's; a quadratic read would hit the
    // test's timeout long before it finished).
    const rows = readFields(pages, form, EUR);
    assert.equal(rows.ok, false);
    assert.deepEqual(!rows.ok && rows.errors, { blocks: 'Blocks can have at most 500 items.' });
    // Rows claimed but left empty cost no more than reading them once.
    const empties = new URLSearchParams('blocks=');
    for (let i = 0; i < 50_000; i++) empties.append(`blocks.${i}.markdown`, '');
    const none = readFields(pages, empties, EUR);
    assert.deepEqual(!none.ok && none.errors, { blocks: 'Blocks can have at most 500 items.' });
    const fewEmpty = new URLSearchParams('blocks=');
    for (let i = 0; i < 900; i++) fewEmpty.append(`blocks.${i}.markdown`, i % 300 === 0 ? 'text' : '');
    for (let i = 0; i < 900; i += 300) fewEmpty.append(`blocks.${i}.type`, 'text');
    const few = readFields(pages, fewEmpty, EUR);
    assert.equal(few.ok && (few.body.blocks as unknown[]).length, 3);
    const huge = 'x'.repeat(1_000_000);
    const big = readFields(pages, new URLSearchParams({ title: huge }), EUR);
    assert.deepEqual(!big.ok && big.errors, { title: 'Title must have at most 200000 characters.' });
    const proto = readFields(
      pages,
      new URLSearchParams(
        '__proto__=x&__proto__.polluted=1&constructor.prototype.polluted=1&blocks=&blocks.__proto__.polluted=1&blocks.0.__proto__=1&blocks.0.type=text&blocks.0.markdown=Hi&title=T&toString=1',
      ),
      EUR,
    );
    assert.deepEqual(proto, { ok: true, body: { title: 'T', blocks: [{ type: 'text', markdown: 'Hi' }] } });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(proto.ok && proto.body), Object.prototype);
  });
});

describe('console fields: errors, labels, hints and values in words', () => {
  it('maps a refused operation’s errors to the form’s fields, in sentences with the field’s label', () => {
    // A schema's refusal carries zod's code and bounds; its English message is never read (here
    // it is not even English), while the domain's own sentences (no rule) are said as they are.
    const zod = (field: string, rule: FieldRule) => ruledFieldError(field, 'ignored words', rule);
    assert.deepEqual(
      fieldErrorsOf({
        title: 'Validation failed',
        detail: 'The request is not valid.',
        errors: [
          zod('body.price_amount', { code: 'too_small', origin: 'number', minimum: 0, inclusive: true }),
          zod('body.title', { code: 'invalid_type', expected: 'string', missing: true }),
          zod('body.title', { code: 'too_small', origin: 'string', minimum: 1, inclusive: true }),
          zod('body.blocks.2.text', { code: 'too_big', origin: 'string', maximum: 300, inclusive: true }),
          zod('body.blocks.1', { code: 'invalid_union' }),
          zod('body.status', { code: 'invalid_value', values: ['draft', 'published'] }),
          zod('body.starts_at', { code: 'invalid_format', format: 'datetime' }),
          zod('body.contact_email', { code: 'invalid_format', format: 'email' }),
          { field: 'body.ends_at', message: 'must be after the start' },
          { field: 'body.slug', message: 'A course with this slug already exists' },
          { field: 'body.bogus', message: 'is not a known field' },
        ],
      }),
      {
        price_amount: 'Price must be at least 0.',
        title: 'Title is required. Title must not be empty.',
        'blocks.2.text': 'Text must have at most 300 characters.',
        'blocks.1': 'Block 2 is not valid.',
        status: 'Status must be one of Draft, Published.',
        starts_at: 'Starts must be a date and time.',
        contact_email: 'Contact email must be an email address.',
        ends_at: 'Ends must be after the start.',
        slug: 'Slug: a course with this slug already exists.',
        '': 'The form sent a field this operation does not take.',
      },
    );
    // Given the body's schema, an amount's bounds read as money in the body's currency.
    const money = {
      title: 'x',
      errors: [zod('body.amount_off', { code: 'too_small', origin: 'number', minimum: 1, inclusive: true })],
    };
    assert.deepEqual(fieldErrorsOf(money, { schema: body('coupons.create'), fc: EUR }), {
      amount_off: 'Amount off must be at least €0.01.',
    });
    assert.deepEqual(
      fieldErrorsOf(money, { schema: body('coupons.create'), fc: EUR, values: { currency: 'JPY' } }),
      {
        amount_off: 'Amount off must be at least JP¥1.',
      },
    );
    assert.deepEqual(fieldErrorsOf(money, { schema: body('pages.create'), fc: EUR }), {
      amount_off: 'Amount off must be at least 1.',
    });
    assert.deepEqual(fieldErrorsOf({ title: 'Conflict', detail: 'The slug is taken.' }), {
      '': 'The slug is taken.',
    });
    assert.deepEqual(fieldErrorsOf({ title: 'Not found' }), { '': 'Not found' });
  });

  it('labels fields in words and rewrites descriptions for a person', () => {
    assert.equal(labelOf('price_amount'), 'Price');
    assert.equal(labelOf('percent_off'), 'Percent off');
    assert.equal(labelOf('starts_at'), 'Starts');
    assert.equal(labelOf('is_free_preview'), 'Free preview');
    assert.equal(labelOf('course_id'), 'Course');
    assert.equal(labelOf('lecturer_ids'), 'Lecturers');
    assert.equal(labelOf('author_user_id'), 'Author');
    assert.equal(labelOf('image_url'), 'Image URL');
    assert.equal(labelOf('max_redemptions'), 'Maximum redemptions');
    const coupon = (key: string) => (body('coupons.create') as z.ZodObject).shape[key] as z.ZodType;
    assert.equal(hintOf('amount_off', coupon('amount_off')), 'For fixed amount coupons.');
    assert.equal(hintOf('percent_off', coupon('percent_off')), 'For percentage coupons.');
    const webhook = (body('school.create_webhook_endpoint') as z.ZodObject).shape.event_types as z.ZodType;
    assert.equal(
      hintOf('event_types', webhook),
      'Event types to receive: exact types, <group>.* (e.g. enrollment.*) or * for all.',
    );
    const slug = (body('courses.create') as z.ZodObject).shape.slug as z.ZodType;
    assert.equal(hintOf('slug', slug), 'Lower-case letters, digits and single hyphens (≤ 100).');
    assert.equal(
      hintOf('title', (body('courses.create') as z.ZodObject).shape.title as z.ZodType),
      undefined,
    );
  });

  it('shows values as a person reads them', async () => {
    const show = async (schema: z.ZodType | undefined, value: unknown, fc = EUR, key?: string) =>
      render(displayValue(schema, value, fc, { key }));
    const course = body('courses.create') as z.ZodObject;
    assert.equal(await show(course.shape.price_amount as z.ZodType, 4900, EUR, 'price_amount'), '€49.00');
    assert.equal(await show(course.shape.price_amount as z.ZodType, 4900, JPY, 'price_amount'), '￥4,900');
    // What a value is comes from its rule's declaration, never from its field's name.
    const coupon = body('coupons.create') as z.ZodObject;
    const amountOff = coupon.shape.amount_off as z.ZodType;
    assert.equal(await show(amountOff, 4900, { ...EUR, locale: 'de-DE' }, 'amount_off'), '49,00\u00a0€');
    assert.equal(await show(undefined, 4900, { ...EUR, locale: 'de-DE' }, 'amount_off'), '4.900');
    assert.equal(await show(course.shape.status as z.ZodType, 'published'), 'Published');
    assert.equal(await show(undefined, true), 'Yes');
    assert.equal(await show(undefined, false), 'No');
    assert.equal(await show(undefined, null), '<span class="muted">—</span>');
    assert.equal(await show(coupon.shape.percent_off as z.ZodType, 25, EUR, 'percent_off'), '25%');
    assert.equal(await show(undefined, 25, EUR, 'percent_off'), '25');
    assert.equal(
      await show(undefined, '2026-07-01T10:00:00.000Z'),
      '<time datetime="2026-07-01T10:00:00.000Z">1 Jul 2026, 12:00</time>',
    );
    assert.equal(await show(undefined, ['a', '<b>']), 'a, &lt;b&gt;');
    assert.equal(
      await show(undefined, 'https://example.com/a?b=1&c=2'),
      '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer">https://example.com/a?b=1&amp;c=2</a>',
    );
    assert.equal(await show(undefined, 'javascript:alert(1)'), 'javascript:alert(1)');
    const product = z.object({
      title: z.string(),
      price_amount: Amount,
      currency: z.string(),
      status: z.enum(['draft', 'published', 'past_due']),
      image_url: z.string().nullable(),
      tags: z.array(z.string()),
    });
    assert.equal(
      await show(product, {
        title: 'Intro',
        price_amount: 1000,
        currency: 'JPY',
        status: 'past_due',
        tags: [],
      }),
      '<dl><dt>Title</dt><dd>Intro</dd><dt>Price</dt><dd>JP¥1,000</dd><dt>Currency</dt><dd>JPY</dd><dt>Status</dt><dd>Past due</dd><dt>Image URL</dt><dd><span class="muted">—</span></dd><dt>Tags</dt><dd><span class="muted">—</span></dd></dl>',
    );
    const blocks = (body('pages.create') as z.ZodObject).shape.blocks as z.ZodType;
    assert.equal(
      await show(blocks, [{ type: 'heading', text: 'Hi', level: 2 }], EUR, 'blocks'),
      '<ol><li><dl><dt>Type</dt><dd>Heading</dd><dt>Text</dt><dd>Hi</dd><dt>Heading level</dt><dd>2</dd></dl></li></ol>',
    );
  });
});
