/**
 * `/admin/:school/webhooks`: the webhook endpoints of a school, for its owners and admins; the
 * same rules as the admin API (webhooks/), every change a POST.
 */
import { Hono } from 'hono';
import { ProblemError, problems } from '../../errors/problem-error.ts';
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
import { sendAreaPage } from '../shared/page-kit.ts';
import { PageRefusal } from '../shared/refusal.ts';
import { type Area, areaPath } from './area.ts';
import { type ConsoleContext, type ConsoleEnv, operators, postedForm } from './console-env.ts';
import {
  DELETE_CONFIRMED,
  deleteEndpointPage,
  type EndpointFormErrors,
  type EndpointFormValues,
  endpointPage,
  endpointSecretPage,
  webhooksPage,
} from './events-views.ts';

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

/** The endpoint rule's settings, from the app's configuration. */
function settingsOf(c: ConsoleContext): EndpointSettings {
  const { config } = c.var.app;
  return {
    key: config.secret,
    allowLoopbackHttp: config.webhooks.allowLoopbackHttp,
    secretOverlapSeconds: config.webhooks.secretOverlapSeconds,
  };
}

const webhooksPath = (area: Area, rest = '') => areaPath(area.school.id, `/webhooks${rest}`);
const endpointPath = (area: Area, id: string) => webhooksPath(area, `/${encodeURIComponent(id)}`);
const endpointId = (c: ConsoleContext) => c.req.param('endpoint') ?? '';

async function showWebhooks(
  c: ConsoleContext,
  status = 200,
  values: EndpointFormValues = { url: '', eventTypes: '*', description: '' },
  errors: EndpointFormErrors = {},
): Promise<Response> {
  const { area, app } = c.var;
  const endpoints = await listEndpoints(app.db, area.school.id, { limit: 100 });
  return sendAreaPage(
    c,
    status,
    `${area.school.name} · Webhooks`,
    webhooksPage(area, endpoints.data, { values, errors }, c.req.query('done')),
  );
}

async function addEndpoint(c: ConsoleContext): Promise<Response> {
  const { area, app } = c.var;
  const fields = postedForm(c);
  // What the operator typed, as typed: the endpoint's rule (webhooks/endpoints.ts) decides.
  const values: EndpointFormValues = {
    url: fields.get('url') ?? '',
    eventTypes: fields.get('event_types') ?? '',
    description: fields.get('description') ?? '',
  };
  const patterns = typedPatterns(values.eventTypes);
  try {
    const input = { url: values.url, eventTypes: patterns, description: values.description };
    const created = await createEndpoint(app.db, area.school.id, input, settingsOf(c));
    const page = endpointSecretPage(area, created.endpoint, created.secret, false);
    return sendAreaPage(c, 201, 'Endpoint added', page);
  } catch (err) {
    if (!(err instanceof ProblemError)) throw err;
    return showWebhooks(c, err.status, values, endpointFormErrors(err, patterns));
  }
}

/**
 * A page of one endpoint: an endpoint of another school or none is the 404; any other refusal of
 * the endpoint's rule is said on a page that leads back to the endpoint.
 */
function withEndpoint(handler: (c: ConsoleContext, id: string) => Promise<Response>) {
  return async (c: ConsoleContext): Promise<Response> => {
    const { area } = c.var;
    const id = endpointId(c);
    try {
      return await handler(c, id);
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
      if (err.code === 'not_found') {
        throw new PageRefusal(404, 'Endpoint not found', 'This school has no such webhook endpoint.', {
          links: [{ href: webhooksPath(area), label: 'Back to Webhooks' }],
        });
      }
      throw new PageRefusal(err.status, 'Not done', problemText(err), {
        links: [{ href: endpointPath(area, id), label: 'Back to the endpoint' }],
      });
    }
  };
}

const showEndpoint = withEndpoint(async (c, id) => {
  const { area, app } = c.var;
  const endpoint = await getEndpoint(app.db, area.school.id, id);
  const attempts = await listAttempts(app.db, area.school.id, id, { limit: 50 });
  const page = endpointPage(area, endpoint, attempts.data, c.req.query('done'));
  return sendAreaPage(c, 200, endpoint.url, page);
});

// Deleting asks first: the endpoint page links to this confirmation page, whose form alone
// carries the confirmed field; a POST without it deletes nothing and leads to the question.
const askDeleteEndpoint = withEndpoint(async (c, id) => {
  const endpoint = await getEndpoint(c.var.app.db, c.var.area.school.id, id);
  return sendAreaPage(c, 200, 'Delete this endpoint?', deleteEndpointPage(c.var.area, endpoint));
});

/** An action on an endpoint: the work names the notice of the redirect to the endpoint. */
function endpointAction(work: (c: ConsoleContext, id: string, fields: URLSearchParams) => Promise<string>) {
  return withEndpoint(async (c, id) => {
    const { area } = c.var;
    const result = await work(c, id, postedForm(c));
    if (result === 'confirm-delete') return c.redirect(`${endpointPath(area, id)}/delete`, 303);
    if (result === 'deleted') return c.redirect(webhooksPath(area, '?done=deleted'), 303);
    return c.redirect(`${endpointPath(area, id)}?done=${result}`, 303);
  });
}

const enableEndpoint = endpointAction(async (c, id) => {
  await updateEndpoint(c.var.app.db, c.var.area.school.id, id, { enabled: true }, settingsOf(c));
  return 'enabled';
});
const disableEndpoint = endpointAction(async (c, id) => {
  await updateEndpoint(c.var.app.db, c.var.area.school.id, id, { enabled: false }, settingsOf(c));
  return 'disabled';
});
const removeEndpoint = endpointAction(async (c, id, fields) => {
  await getEndpoint(c.var.app.db, c.var.area.school.id, id);
  if (fields.get(DELETE_CONFIRMED) !== 'yes') return 'confirm-delete';
  await deleteEndpoint(c.var.app.db, c.var.area.school.id, id);
  return 'deleted';
});
const testEndpoint = endpointAction(async (c, id) => {
  await sendTestEvent(c.var.app.db, c.var.area.school.id, id);
  return 'test';
});
const replayEndpoint = endpointAction(async (c, id, fields) => {
  const since = fields.get('since') ?? '';
  if (!DATE.test(since) || Number.isNaN(Date.parse(since))) {
    throw problems.validation([{ field: 'since', message: 'must be a date as YYYY-MM-DD' }]);
  }
  await replay(c.var.app.db, c.var.area.school.id, id, { since: `${since}T00:00:00.000Z` });
  return 'replayed';
});

// Rotation answers with the new secret, once, on a page of its own.
const rotateSigningSecret = withEndpoint(async (c, id) => {
  const { area, app } = c.var;
  const rotated = await rotateEndpointSecret(app.db, area.school.id, id, settingsOf(c));
  const page = endpointSecretPage(area, rotated.endpoint, rotated.secret, true);
  return sendAreaPage(c, 200, 'New signing secret', page);
});

/** The webhooks pages. */
export function webhookRoutes(): Hono<ConsoleEnv> {
  const app = new Hono<ConsoleEnv>();
  const at = '/:school/webhooks/:endpoint';
  app.get('/:school/webhooks', operators, (c) => showWebhooks(c));
  app.post('/:school/webhooks', operators, addEndpoint);
  app.get(at, operators, showEndpoint);
  app.post(`${at}/enable`, operators, enableEndpoint);
  app.post(`${at}/disable`, operators, disableEndpoint);
  app.get(`${at}/delete`, operators, askDeleteEndpoint);
  app.post(`${at}/delete`, operators, removeEndpoint);
  app.post(`${at}/test`, operators, testEndpoint);
  app.post(`${at}/replay`, operators, replayEndpoint);
  app.post(`${at}/rotate`, operators, rotateSigningSecret);
  return app;
}
