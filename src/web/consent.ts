import type { Context } from 'hono';
import { html } from 'hono/html';
import { CSRF_FIELD } from '../http/sessions.ts';
import type { AuthorizePages, ConsentPageInput } from '../oauth/authorize/authorize-pages.ts';
import type { AuthorizationRequest } from '../oauth/authorize/authorize-request.ts';
import { AUTHORIZE_PARAMS } from '../oauth/authorize/authorize-request.ts';
import { consoleOnThisSite, isConsoleClient } from '../oauth/clients/console-clients.ts';
import { isLoopbackRedirectUri } from '../oauth/clients/redirect-uris.ts';
import { describeScopes } from '../oauth/scopes.ts';
import { errorPage } from './error-page.ts';
import { sendPage } from './layout.ts';

/** Where a redirect URI points, as a person can read it: its host, or scheme for app links. */
function redirectTarget(uri: string): { label: string; source: string } {
  try {
    const url = new URL(uri);
    if (url.protocol === 'http:' || url.protocol === 'https:') return { label: url.host, source: url.origin };
    return { label: `${url.protocol}//${url.host}`, source: url.protocol };
  } catch {
    return { label: uri, source: "'none'" };
  }
}

/** Who asks, as the page names them (product.md §8): a console of this site, or the client. */
interface Asker {
  /** The name in the heading: the console's description, else the client's own name. */
  readonly title: string;
  /** Its kind, in words. */
  readonly kind: string;
  /** A console of this very site: no warning, nothing to check about who made it. */
  readonly onThisSite: boolean;
}

function askerOf(req: AuthorizationRequest, schoolName: string | undefined): Asker {
  const onThisSite = consoleOnThisSite(req.client, req.redirectUri);
  if (onThisSite) return { title: onThisSite, kind: 'Part of Lectern', onThisSite: true };
  const asker = (kind: string): Asker => ({ title: req.client.name, kind, onThisSite: false });
  // A console client_id returning anywhere but its page here is a local program using its name.
  if (isConsoleClient(req.client)) return asker('App on your own computer');
  switch (req.client.kind) {
    case 'vendor':
      return asker('Known integration');
    case 'loopback':
      return asker('App on your own computer');
    case 'cimd':
      return asker(req.client.reviewed ? 'Web app (reviewed)' : 'Web app, not reviewed by Lectern');
    case 'member':
      return asker(schoolName ? `App of ${schoolName}` : 'School app');
  }
}

function warning(req: AuthorizationRequest, asker: Asker) {
  if (asker.onThisSite) return '';
  if (req.client.kind === 'loopback') {
    return html`<div class="notice warning" role="note"><p><strong>Check that you started this app yourself.</strong>
It runs on your own computer and named itself; Lectern cannot confirm who made it.</p></div>`;
  }
  if (req.client.kind === 'cimd' && !req.client.reviewed) {
    return html`<div class="notice warning" role="note"><p><strong>Lectern has not reviewed this app.</strong>
It identifies itself by <code>${req.client.id}</code>. Until it is reviewed it may only read.</p></div>`;
  }
  // RFC 8252 §8.6: any program on this computer can answer a loopback redirect under a known name.
  if (isLoopbackRedirectUri(req.redirectUri)) {
    return html`<div class="notice warning" role="note"><p><strong>Continue only if you just started ${req.client.name} yourself.</strong>
Approval is handed to a program on your own computer, which Lectern cannot identify.</p></div>`;
  }
  return '';
}

/**
 * The consent page (product.md §8): who asks, for which school, what it may do in plain words
 * (one line per thing it reaches), where you will be sent, and allow / deny. The form posts the
 * original request back.
 */
function consentPage(c: Context, input: ConsentPageInput): Promise<Response> {
  const { request: req, schools } = input;
  const target = redirectTarget(req.redirectUri);
  const selected = schools.find((s) => s.id === req.orgId) ?? schools[0];
  const asker = askerOf(req, req.client.kind === 'member' ? schools[0]?.name : undefined);
  const hidden = AUTHORIZE_PARAMS.filter((p) => p !== 'org_id').flatMap((name) =>
    req.raw.getAll(name).map((value) => html`<input type="hidden" name="${name}" value="${value}">`),
  );
  const picker =
    schools.length > 1
      ? html`<label for="org_id">School</label>
<select id="org_id" name="org_id">${schools.map(
          (s) =>
            html`<option value="${s.id}"${s.id === selected.id ? html` selected` : ''}>${s.name} (${s.roles.join(', ')})</option>`,
        )}</select>`
      : html`<p>School: <strong>${selected.name}</strong></p><input type="hidden" name="org_id" value="${selected.id}">`;
  const lines = describeScopes(req.scopes, {
    school: schools.length === 1 ? selected.name : 'the chosen school',
  });
  const destination = asker.onThisSite
    ? html`you will return to ${asker.title}`
    : html`you will be sent to <strong>${target.label}</strong>`;
  const body = html`<h1>Allow ${asker.title} to use your account?</h1>
<p class="muted">${asker.kind} · signed in as ${input.userEmail}</p>
${warning(req, asker)}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
${hidden}
${picker}
<h2 id="consent-scopes">What it may do</h2>
<ul class="scopes" aria-labelledby="consent-scopes">${lines.map((line) => html`<li>${line}</li>`)}</ul>
<p class="muted">After you decide ${destination}.</p>
<div class="actions">
<button class="secondary" type="submit" name="decision" value="deny">Deny</button>
<button class="primary" type="submit" name="decision" value="allow">Allow</button>
</div>
</form>
<form method="post" action="/logout" class="switch">
<input type="hidden" name="${CSRF_FIELD}" value="${input.csrfToken}">
<input type="hidden" name="return_to" value="${input.returnTo}">
<p class="muted">Not ${input.userEmail}? <button class="link" type="submit">Use another account</button></p>
</form>`;
  // The form's response redirects to the client: form-action must allow that target too.
  return sendPage(c, 200, `Allow ${asker.title}?`, body, { formAction: ["'self'", target.source] });
}

/** The pages of `/oauth/authorize`, handed to oauth/ by app.ts. */
export const authorizePages: AuthorizePages = { consent: consentPage, error: errorPage };
