import { randomBase62 } from '@gw/kernel';
import { MailSink } from '@gw/plugin-oauth/testing';

/** A response of the dashboard read as text, with the CSRF token of its forms when it has one. */
export interface PageAnswer {
  readonly status: number;
  readonly location: string | null;
  readonly headers: Headers;
  readonly text: string;
  readonly csrf: string | undefined;
}

/**
 * A browser without a browser: keeps the `gw_dashboard` cookie, sends forms url-encoded with the
 * gateway's own `Origin` (as a browser does) unless told otherwise, never follows redirects.
 */
export class DashboardClient {
  cookie: string | undefined;

  constructor(readonly baseUrl: string) {}

  async get(path: string): Promise<PageAnswer> {
    return this.send(path, { method: 'GET' });
  }

  /**
   * POSTs `fields`; `origin: null` sends no Origin header, a string sends that one. Like a form
   * rendered just before, it carries a fresh single-use nonce (`_once`) unless `fields` names one.
   */
  async post(path: string, fields: Record<string, string>, options: { origin?: string | null } = {}): Promise<PageAnswer> {
    const origin = options.origin === undefined ? new URL(this.baseUrl).origin : options.origin;
    return this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(origin === null ? {} : { origin }) },
      body: new URLSearchParams({ _once: randomBase62(22), ...fields }).toString(),
    });
  }

  /** Signs `email` in through the sign-in forms with the code from `sink`. */
  async signIn(sink: MailSink, email: string): Promise<void> {
    const form = await this.get('/dashboard/sign-in');
    if (form.status !== 200 || !form.csrf) throw new Error(`sign-in page: ${form.status}`);
    const sent = await this.post('/dashboard/sign-in/email', { _csrf: form.csrf, email });
    if (sent.status !== 303 || sent.location !== '/dashboard/sign-in/code') throw new Error(`email step: ${sent.status} ${sent.text}`);
    const codePage = await this.get('/dashboard/sign-in/code');
    const done = await this.post('/dashboard/sign-in/code', { _csrf: codePage.csrf!, code: await sink.nextCode(email) });
    if (done.status !== 303 || done.location !== '/dashboard') throw new Error(`code step: ${done.status} ${done.text}`);
  }

  /** The CSRF token of the signed-in session (from the account page's forms). */
  async csrf(): Promise<string> {
    const account = await this.get('/dashboard/account');
    if (!account.csrf) throw new Error(`no CSRF token on the account page: ${account.status}`);
    return account.csrf;
  }

  private async send(path: string, init: RequestInit): Promise<PageAnswer> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('cookie', `gw_dashboard=${this.cookie}`);
    const res = await fetch(`${this.baseUrl}${path}`, { ...init, headers, redirect: 'manual' });
    const set = res.headers.get('set-cookie');
    const value = set ? /gw_dashboard=([^;]*)/.exec(set)?.[1] : undefined;
    if (value !== undefined) this.cookie = value || undefined;
    const text = await res.text();
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, text, csrf: /name="_csrf" value="([^"]+)"/.exec(text)?.[1] };
  }
}
