/**
 * A school's public forms (`/schools/<subdomain>/forms/<formId>`): anyone may fill one in, and
 * the answers are stored through the forms domain, where operators read them as the form's
 * submissions. A visitor has no session, so the form carries a token signed for the address it
 * posts to (checked with every other form of the site, context.ts), plus a honeypot field that
 * people never see; posting is throttled per client address.
 */
import { html } from 'hono/html';
import { type PublicForm, publicForm } from '../../domain/catalog/public-site-content.ts';
import { type FormField, formFields, submissionProblems, submitForm } from '../../domain/community/forms.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext } from '../../http/context.ts';
import { minutes } from '../error-page.ts';
import type { Html } from '../layout.ts';
import { notice } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import type { SiteContext } from './context.ts';
import { found, notFound, type SiteRequest, sendSitePage } from './kit.ts';
import { FORM_TOKEN_FIELD, signFor } from './signing.ts';

/** How long a shown form may be sent. */
const TOKEN_SECONDS = 2 * 3600;
// Submissions per client address within 10 minutes.
const ADDRESS_LIMIT = 10;
const WINDOW_SECONDS = 600;
/** The honeypot's name: a field people never see, that form-filling scripts tend to fill. */
const HONEYPOT = 'website';

function control(f: FormField, value: string, error: string | undefined): Html {
  const attrs = html` id="f-${f.name}" name="${f.name}"${f.required ? html` required` : ''} maxlength="${f.maxLength}"${error ? html` aria-invalid="true" aria-describedby="f-${f.name}-error"` : ''}`;
  if (f.type === 'textarea') return html`<textarea${attrs}>${value}</textarea>`;
  return f.type === 'email'
    ? html`<input type="email" autocomplete="email"${attrs} value="${value}">`
    : html`<input type="text"${attrs} value="${value}">`;
}

function formPage(
  ctx: AppContext,
  req: SiteRequest,
  form: PublicForm,
  values: Readonly<Record<string, string>> = {},
  errors: Readonly<Record<string, string>> = {},
): Html {
  const fields = formFields(form);
  const action = `${req.base}/forms/${form.id}`;
  return html`<h1>${form.title}</h1>
${Object.keys(errors).length > 0 ? notice('error', 'Please correct the fields marked below.') : ''}
<form class="site-form" method="post" action="${action}" novalidate>
<input type="hidden" name="${FORM_TOKEN_FIELD}" value="${signFor(ctx, 'site-form', action, TOKEN_SECONDS)}">
${fields.map(
  (
    f,
  ) => html`<label for="f-${f.name}">${f.label}${f.required ? '' : html` <span class="muted">(optional)</span>`}</label>
${control(f, values[f.name] ?? '', errors[f.name])}
${errors[f.name] ? html`<p class="field-error" id="f-${f.name}-error">${f.label} ${errors[f.name]}.</p>` : ''}`,
)}
<div class="hp" aria-hidden="true"><label for="hp-${HONEYPOT}">Leave this field empty</label><input id="hp-${HONEYPOT}" name="${HONEYPOT}" type="text" tabindex="-1" autocomplete="off"></div>
<div class="actions"><button class="primary" type="submit">Send</button></div>
</form>`;
}

/** The published form of the path's `:formId`; anything else is a 404. */
async function formOfPath(ctx: AppContext, c: SiteContext): Promise<PublicForm> {
  const formId = c.req.param('formId') ?? '';
  const form = /^frm_[0-9a-z]{26}$/.test(formId)
    ? await found(publicForm(ctx.db, c.get('site').site.id, formId))
    : undefined;
  if (!form) throw notFound('This form does not exist.');
  return form;
}

/** `GET …/forms/:formId`: the form, or the thanks after sending it. */
export async function showForm(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const form = await formOfPath(ctx, c);
  const body =
    c.req.query('sent') === '1'
      ? html`<h1>${form.title}</h1>
${notice('success', 'Thank you: your message was sent.')}
<p><a href="${req.base}/">Back to ${req.site.name}</a></p>`
      : formPage(ctx, req, form);
  return sendSitePage(c, req, 200, form.title, body);
}

/** Counts a submission against the client address; too many is a 429 refusal. */
async function throttleSubmissions(ctx: AppContext, c: SiteContext): Promise<void> {
  const key = `site-form:ip:${clientAddress(ctx.config, c)}`;
  const { retryAfter } = await ctx.throttle.reserve([
    { key, limit: ADDRESS_LIMIT, windowSeconds: WINDOW_SECONDS },
  ]);
  if (retryAfter === 0) return;
  throw new PageRefusal(
    429,
    'Too many messages',
    `Too many messages were sent from your network. Try again in ${minutes(retryAfter)}.`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}

/** `POST …/forms/:formId`: stores the answers, or shows the form again with the errors. */
export async function sendForm(ctx: AppContext, c: SiteContext): Promise<Response> {
  const req = c.get('site');
  const form = await formOfPath(ctx, c);
  await throttleSubmissions(ctx, c);
  const posted = c.get('form');
  const fields = formFields(form);
  // Only the form's own fields are kept, each cut to a little over its limit before checking.
  const values = Object.fromEntries(
    fields.map((f) => [f.name, (posted.get(f.name) ?? '').slice(0, f.maxLength + 1)]),
  );
  const thanks = `${req.base}/forms/${form.id}?sent=1`;
  // A filled honeypot is a script: it is thanked like anyone, and nothing is stored.
  if ((posted.get(HONEYPOT) ?? '') !== '') return c.redirect(thanks, 303);
  const errors = submissionProblems(fields, values);
  if (Object.keys(errors).length > 0) {
    return sendSitePage(c, req, 422, form.title, formPage(ctx, req, form, values, errors));
  }
  await submitForm(ctx.db, req.site.id, form.id, values);
  return c.redirect(thanks, 303);
}
