/**
 * `/admin/:school/webhooks`: the webhook endpoints of a school, for its owners and admins; the
 * same rules as the admin API (webhooks/), every change a CSRF-checked POST. The audit trail
 * (`/admin/:school/audit`) is audit-pages.ts, mounted here.
 */
import { type Context, Hono } from 'hono';
import { ProblemError, problems } from '../../errors/problem-error.ts';
import type { AppContext, AppEnv } from '../../http/context.ts';
import { listAttempts, replay } from '../../webhooks/delivery-log.ts';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointSettings,
  getEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  sendTestEvent,
  updateEndpoint,
} from '../../webhooks/endpoints.ts';
import { messagePage, readForm, sendAreaPage } from '../shared/page-kit.ts';
import { type Area, areaPath, operatorPage } from './area.ts';
import { createAuditPagesApp } from './audit-pages.ts';
import {
  DELETE_CONFIRMED,
  deleteEndpointPage,
  type EndpointFormErrors,
  type EndpointFormValues,
  endpointPage,
  endpointSecretPage,
  webhooksPage,
} from './events-views.ts';

type Handler = (c: Context<AppEnv>, area: Area) => Promise<Response>;

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The form field each of the endpoint rule's fields is typed into, and its name in a sentence. */
const ENDPOINT_FORM: Record<string, { field: keyof EndpointFormErrors; label: string }> = {
  url: { field: 'url', label: 'The URL' },
  eventTypes: { field: 'event_types', label: 'The event types' },
  description: { field: 'description', label: 'The description' },
};

/** The typed list of event types as the rule takes it: comma-separated, blanks ignored. */
const typedPatterns = (typed: string) =>
  typed
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * A refused endpoint's errors beside the fields the rule names (`eventTypes.2` is the third
 * typed pattern); what names no form field is the page's error.
 */
function endpointFormErrors(err: ProblemError, patterns: readonly string[]): EndpointFormErrors {
  const errors: EndpointFormErrors = {};
  const add = (field: keyof EndpointFormErrors, text: string) => {
    errors[field] = errors[field] ? `${errors[field]} ${text}` : text;
  };
  for (const e of err.errors ?? []) {
    const [name, index] = e.field.split('.');
    const form = Object.hasOwn(ENDPOINT_FORM, name) ? ENDPOINT_FORM[name] : undefined;
    if (!form) add('form', `The ${e.field} ${e.message}.`);
    else if (index !== undefined && patterns[Number(index)] !== undefined)
      add(form.field, `“${patterns[Number(index)]}” ${e.message}.`);
    else add(form.field, `${form.label} ${e.message}.`);
  }
  if (!err.errors?.length) add('form', err.detail ?? err.title);
  return errors;
}

/** A problem's message for a page: the first field error, or its detail. */
function problemText(err: ProblemError): string {
  return err.errors?.[0]?.message
    ? `The ${err.errors[0].field.replace('body.', '')} ${err.errors[0].message}.`
    : (err.detail ?? err.title);
}

export function createAdminEventsPagesApp(ctx: AppContext): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const settings: EndpointSettings = {
    key: ctx.config.secret,
    allowLoopbackHttp: ctx.config.webhooks.allowLoopbackHttp,
    secretOverlapSeconds: ctx.config.webhooks.secretOverlapSeconds,
  };
  const operator = (handler: Handler) => operatorPage(ctx, handler);
  const webhooksPath = (area: Area, rest = '') => areaPath(area.school.id, `/webhooks${rest}`);
  const notFound = (c: Context, area: Area) =>
    messagePage(c, 404, 'Endpoint not found', 'This school has no such webhook endpoint.', {
      href: webhooksPath(area),
      label: 'Back to Webhooks',
    });

  // The audit trail is its own page (audit-pages.ts), mounted here beside the webhooks.
  app.route('/', createAuditPagesApp(ctx));

  const showWebhooks = async (
    c: Context,
    area: Area,
    status = 200,
    values: EndpointFormValues = { url: '', eventTypes: '*', description: '' },
    errors: EndpointFormErrors = {},
  ) => {
    const endpoints = await listEndpoints(ctx.db, area.school.id, { limit: 100 });
    return sendAreaPage(
      c,
      status,
      `${area.school.name} · Webhooks`,
      webhooksPage(area, endpoints.data, { values, errors }, c.req.query('done')),
    );
  };

  app.get(
    '/admin/:school/webhooks',
    operator((c, area) => showWebhooks(c, area)),
  );

  app.post(
    '/admin/:school/webhooks',
    operator(async (c, area) => {
      const fields = await readForm(ctx, c, area.viewer);
      if (fields instanceof Response) return fields;
      // What the operator typed, as typed: the endpoint's rule (webhooks/endpoints.ts) decides.
      const values: EndpointFormValues = {
        url: fields.get('url') ?? '',
        eventTypes: fields.get('event_types') ?? '',
        description: fields.get('description') ?? '',
      };
      const patterns = typedPatterns(values.eventTypes);
      try {
        const created = await createEndpoint(
          ctx.db,
          area.school.id,
          { url: values.url, eventTypes: patterns, description: values.description },
          settings,
        );
        return sendAreaPage(
          c,
          201,
          'Endpoint added',
          endpointSecretPage(area, created.endpoint, created.secret, false),
        );
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        return showWebhooks(c, area, err.status, values, endpointFormErrors(err, patterns));
      }
    }),
  );

  const withEndpoint = (handler: (c: Context<AppEnv>, area: Area, id: string) => Promise<Response>) =>
    operator(async (c, area) => {
      const id = c.req.param('endpoint') ?? '';
      try {
        return await handler(c, area, id);
      } catch (err) {
        if (err instanceof ProblemError && err.code === 'not_found') return notFound(c, area);
        if (err instanceof ProblemError) {
          return messagePage(c, err.status, 'Not done', problemText(err), {
            href: webhooksPath(area, `/${encodeURIComponent(id)}`),
            label: 'Back to the endpoint',
          });
        }
        throw err;
      }
    });

  app.get(
    '/admin/:school/webhooks/:endpoint',
    withEndpoint(async (c, area, id) => {
      const endpoint = await getEndpoint(ctx.db, area.school.id, id);
      const attempts = await listAttempts(ctx.db, area.school.id, id, { limit: 50 });
      return sendAreaPage(
        c,
        200,
        endpoint.url,
        endpointPage(area, endpoint, attempts.data, c.req.query('done')),
      );
    }),
  );

  const action = (
    name: string,
    run: (area: Area, id: string, fields: URLSearchParams) => Promise<Response | string>,
  ) =>
    app.post(
      `/admin/:school/webhooks/:endpoint/${name}`,
      withEndpoint(async (c, area, id) => {
        const fields = await readForm(ctx, c, area.viewer);
        if (fields instanceof Response) return fields;
        const result = await run(area, id, fields);
        if (typeof result !== 'string') return result;
        const endpointPath = webhooksPath(area, `/${encodeURIComponent(id)}`);
        if (result === 'confirm-delete') return c.redirect(`${endpointPath}/delete`, 303);
        return c.redirect(
          result === 'deleted' ? webhooksPath(area, '?done=deleted') : `${endpointPath}?done=${result}`,
          303,
        );
      }),
    );

  action('enable', async (area, id) => {
    await updateEndpoint(ctx.db, area.school.id, id, { enabled: true }, settings);
    return 'enabled';
  });
  action('disable', async (area, id) => {
    await updateEndpoint(ctx.db, area.school.id, id, { enabled: false }, settings);
    return 'disabled';
  });
  // Deleting asks first: the endpoint page links to this confirmation page, whose form alone
  // carries the confirmed field; a POST without it deletes nothing and leads to the question.
  app.get(
    '/admin/:school/webhooks/:endpoint/delete',
    withEndpoint(async (c, area, id) => {
      const endpoint = await getEndpoint(ctx.db, area.school.id, id);
      return sendAreaPage(c, 200, 'Delete this endpoint?', deleteEndpointPage(area, endpoint));
    }),
  );
  action('delete', async (area, id, fields) => {
    await getEndpoint(ctx.db, area.school.id, id);
    if (fields.get(DELETE_CONFIRMED) !== 'yes') return 'confirm-delete';
    await deleteEndpoint(ctx.db, area.school.id, id);
    return 'deleted';
  });
  action('test', async (area, id) => {
    await sendTestEvent(ctx.db, area.school.id, id);
    return 'test';
  });
  action('replay', async (area, id, fields) => {
    const since = fields.get('since') ?? '';
    if (!DATE.test(since) || Number.isNaN(Date.parse(since))) {
      throw problems.validation([{ field: 'since', message: 'must be a date as YYYY-MM-DD' }]);
    }
    await replay(ctx.db, area.school.id, id, { since: `${since}T00:00:00.000Z` });
    return 'replayed';
  });
  // Rotation answers with the new secret, once, on a page of its own.
  app.post(
    '/admin/:school/webhooks/:endpoint/rotate',
    withEndpoint(async (c, area, id) => {
      const fields = await readForm(ctx, c, area.viewer);
      if (fields instanceof Response) return fields;
      const rotated = await rotateEndpointSecret(ctx.db, area.school.id, id, settings);
      return sendAreaPage(
        c,
        200,
        'New signing secret',
        endpointSecretPage(area, rotated.endpoint, rotated.secret, true),
      );
    }),
  );
  return app;
}
