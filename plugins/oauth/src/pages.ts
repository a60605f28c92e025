import type { RouteResult } from '@gw/kernel';
import { SCOPE_DESCRIPTIONS, type OAuthScope } from './scopes.js';

/** Escapes text for HTML element content and double-quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Headers of every sign-in and consent page: no caching, no framing, no scripts, no referrer, and
 * forms that post only here (`form-action`; issue 33 finding 19). Chromium applies `form-action`
 * to the redirects that follow a form's POST as well, and a signed-in sign-in or a consent
 * ends with a redirect to the client: a page of an authorization request also allows its
 * redirect URI's origin (`formActionSource`).
 */
const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

function contentSecurityPolicy(redirectUri: string | undefined): string {
  const extra = redirectUri === undefined ? '' : ` ${formActionSource(redirectUri)}`;
  return `default-src 'none'; style-src 'unsafe-inline'; form-action 'self'${extra}; frame-ancestors 'none'; base-uri 'none'`;
}

/**
 * The CSP source that lets a form's redirect reach `redirectUri`: its origin (`https://app.example`,
 * `http://127.0.0.1:8765`), or its scheme alone where CSP has no host form for it (a native app's
 * private-use scheme, an IPv6 literal host). Registered redirect URIs are absolute URLs the
 * parser accepted, so the source holds no separator of the policy (`;`, `,`, white space).
 */
export function formActionSource(redirectUri: string): string {
  const url = new URL(redirectUri);
  if (url.origin === 'null' || url.hostname.startsWith('[')) return url.protocol;
  return url.origin;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#111}
label{display:block;font-weight:600;margin:1rem 0 .25rem}input[type=email],input[type=text]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
button{font-size:1rem;padding:.5rem 1rem;margin:1rem .5rem 0 0}.error{border:2px solid #b00020;padding:.5rem 1rem;color:#b00020}
.note{color:#444}code{word-break:break-all}`;

function page(title: string, body: string, status = 200, setCookie?: string, redirectUri?: string): RouteResult {
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body><main>
${body}
</main></body>
</html>
`;
  return {
    status,
    headers: { ...PAGE_HEADERS, 'Content-Security-Policy': contentSecurityPolicy(redirectUri), ...(setCookie ? { 'Set-Cookie': setCookie } : {}) },
    body: html,
  };
}

function alert(message: string | undefined): string {
  return message ? `<p class="error" role="alert" id="form-error">${escapeHtml(message)}</p>` : '';
}

/** The client as a person should see it: its name and, for a document client, the host serving it. */
export function clientLabel(client: { client_id: string; client_name: string | null }): string {
  if (client.client_id.startsWith('https://')) {
    const host = new URL(client.client_id).host;
    return client.client_name ? `${client.client_name} (${host})` : host;
  }
  return client.client_name ?? `Unnamed application ${client.client_id}`;
}

export interface FormContext {
  readonly requestId: string;
  readonly csrf: string;
  readonly clientLabel: string;
  /** The authorization request's redirect URI: where the page's form may end up. */
  readonly redirectUri: string;
  readonly setCookie?: string | undefined;
}

function hidden(form: FormContext, extra: Record<string, string> = {}): string {
  return Object.entries({ request: form.requestId, csrf: form.csrf, ...extra })
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('');
}

/** Step 1: the e-mail address of an invited user. */
export function signInPage(form: FormContext, options: { error?: string; status?: number; email?: string } = {}): RouteResult {
  return page(
    'Sign in',
    `<h1>Sign in</h1>
<p><strong>${escapeHtml(form.clientLabel)}</strong> wants to connect to your payment gateway account. Sign in with the e-mail address you were invited with; we will send you a one-time code.</p>
${alert(options.error)}
<form method="post" action="/oauth/authorize/email">${hidden(form)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="${escapeHtml(options.email ?? '')}"${options.error ? ' aria-describedby="form-error"' : ''}>
<button type="submit">Send code</button>
</form>`,
    options.status ?? 200,
    form.setCookie,
    form.redirectUri,
  );
}

/** Step 2: the code. The same page whether or not the address is invited. */
export function codePage(
  form: FormContext,
  challengeId: string,
  options: { error?: string; status?: number; operators?: readonly { id: string; name: string }[] } = {},
): RouteResult {
  return page(
    'Enter your code',
    `<h1>Enter your code</h1>
<p>If the address is invited, a 6-digit code is on its way. It expires in a few minutes.</p>
${alert(options.error)}
<form method="post" action="/oauth/authorize/verify">${hidden(form, { challenge: challengeId })}
<label for="code">One-time code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required maxlength="7"${options.error ? ' aria-describedby="form-error"' : ''}>
${options.operators ? operatorChoice(options.operators) : ''}
<button type="submit">Sign in</button>
</form>
<p class="note">No code? Check the address, or start again from the application.</p>`,
    options.status ?? 200,
    form.setCookie,
    form.redirectUri,
  );
}

/** The operators a right code may sign in to, when the address is a user of several (issue 33 item 18). */
function operatorChoice(operators: readonly { id: string; name: string }[]): string {
  const choices = operators
    .map(
      (o, i) =>
        `<label class="choice"><input type="radio" name="operator" value="${escapeHtml(o.id)}"${i === 0 ? ' checked' : ''}> ${escapeHtml(o.name)}</label>`,
    )
    .join('\n');
  return `<fieldset><legend>Operator to sign in to</legend>\n${choices}\n</fieldset>`;
}

/** The answer once an address reached its cap of wrong codes (every code refused until `retryAfter`). */
export function lockedMessage(retryAfter: number): string {
  return `Too many wrong codes were entered for this address. Sign-in for it is locked; try again in ${Math.max(1, Math.ceil(retryAfter / 60))} minutes.`;
}

/** Step 3: consent, listing the scopes. */
export function consentPage(form: FormContext, details: { email: string; scopes: readonly string[]; redirectHost: string }): RouteResult {
  const items = details.scopes.map((s) => `<li><code>${escapeHtml(s)}</code>: ${escapeHtml(SCOPE_DESCRIPTIONS[s as OAuthScope] ?? s)}</li>`).join('\n');
  return page(
    'Allow access?',
    `<h1>Allow access?</h1>
<p><strong>${escapeHtml(form.clientLabel)}</strong> asks for read access to your account (<strong>${escapeHtml(details.email)}</strong>):</p>
<ul>
${items}
</ul>
<p class="note">You will be sent back to <strong>${escapeHtml(details.redirectHost)}</strong>. You can revoke access at any time.</p>
<form method="post" action="/oauth/authorize/consent">${hidden(form)}
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
    200,
    form.setCookie,
    form.redirectUri,
  );
}

/** An error that cannot go back to the client (no valid redirect URI yet, or an expired request). */
export function errorPage(title: string, message: string, status = 400): RouteResult {
  return page(
    title,
    `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>\n<p class="note">Close this window and start again from the application.</p>`,
    status,
  );
}
