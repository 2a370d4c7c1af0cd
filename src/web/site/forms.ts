/**
 * A school's public forms (`/schools/<subdomain>/forms/<formId>`): anyone may fill one in, and
 * the answers are stored through the forms domain, where operators read them as the form's
 * submissions. A visitor has no session, so the form carries a signed token instead of a CSRF
 * token (tied to the form and expiring), plus a honeypot field that people never see; posting
 * is throttled per client address.
 */
import { type Context, Hono } from 'hono';
import { html } from 'hono/html';
import { type PublicForm, publicForm } from '../../domain/catalog/public-catalogue.ts';
import { type FormField, formFields, submissionProblems, submitForm } from '../../domain/community/forms.ts';
import { clientAddress } from '../../http/client-address.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { isFormRequest } from '../../oauth/form-body.ts';
import { minutes } from '../error-page.ts';
import type { Html } from '../layout.ts';
import { notice } from '../shared/page-kit.ts';
import { found, openSite, type SiteRequest, sendSitePage, siteNotFound } from './kit.ts';
import { signFor, verifySigned } from './signing.ts';

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
<input type="hidden" name="form_token" value="${signFor(ctx, 'site-form', form.id, TOKEN_SECONDS)}">
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

/** The public forms of every school's site, mounted by one line in pages.ts. */
export function createSiteFormsApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  async function open(c: Context): Promise<{ req: SiteRequest; form: PublicForm } | Response> {
    const req = await openSite(ctx, c);
    if (req instanceof Response) return req;
    const formId = c.req.param('formId') ?? '';
    const form = /^frm_[0-9a-z]{26}$/.test(formId)
      ? await found(publicForm(ctx.db, req.site.id, formId))
      : undefined;
    return form ? { req, form } : siteNotFound(c, req, 'This form does not exist.');
  }

  app.get('/schools/:school/forms/:formId', async (c) => {
    const opened = await open(c);
    if (opened instanceof Response) return opened;
    const { req, form } = opened;
    const sent = c.req.query('sent') === '1';
    const body = sent
      ? html`<h1>${form.title}</h1>
${notice('success', 'Thank you: your message was sent.')}
<p><a href="${req.base}/">Back to ${req.site.name}</a></p>`
      : formPage(ctx, req, form);
    return sendSitePage(c, req, 200, form.title, body);
  });

  app.post('/schools/:school/forms/:formId', async (c) => {
    const opened = await open(c);
    if (opened instanceof Response) return opened;
    const { req, form } = opened;
    const reservation = await ctx.throttle.reserve([
      {
        key: `site-form:ip:${clientAddress(ctx.config, c)}`,
        limit: ADDRESS_LIMIT,
        windowSeconds: WINDOW_SECONDS,
      },
    ]);
    if (reservation.retryAfter > 0) {
      const body = html`<h1>${form.title}</h1>
${notice('error', `Too many messages were sent from your network. Try again in ${minutes(reservation.retryAfter)}.`)}`;
      return sendSitePage(c, req, 429, form.title, body, {
        headers: { 'Retry-After': String(reservation.retryAfter) },
      });
    }
    if (!isFormRequest(c)) {
      const body = html`<h1>Unsupported form</h1>${notice('error', 'This form must be sent as a web form.')}`;
      return sendSitePage(c, req, 415, 'Unsupported form', body);
    }
    const posted = new URLSearchParams(await c.req.text());
    const fields = formFields(form);
    // Only the form's own fields are kept, each cut to a little over its limit before checking.
    const values = Object.fromEntries(
      fields.map((f) => [f.name, (posted.get(f.name) ?? '').slice(0, f.maxLength + 1)]),
    );
    const again = (status: number, errors: Record<string, string>, message?: string) =>
      sendSitePage(
        c,
        req,
        status,
        form.title,
        html`${message ? notice('error', message) : ''}${formPage(ctx, req, form, values, errors)}`,
      );
    if (!verifySigned(ctx, 'site-form', form.id, posted.get('form_token') ?? '')) {
      return again(403, {}, 'This form has expired or did not come from this page. Please send it again.');
    }
    const sentHere = c.redirect(`${req.base}/forms/${form.id}?sent=1`, 303);
    // A filled honeypot is a script: it is thanked like anyone, and nothing is stored.
    if ((posted.get(HONEYPOT) ?? '') !== '') return sentHere;
    const errors = submissionProblems(fields, values);
    if (Object.keys(errors).length > 0) return again(422, errors);
    await submitForm(ctx.db, req.site.id, form.id, values);
    return sentHere;
  });

  return app;
}
