import { randomBase62 } from '@gw/kernel';
import type { MailSink } from '@gw/plugin-oauth/testing';

/** A page or redirect of the gateway as the test reads it. */
export interface Answer {
  readonly status: number;
  readonly location: string | null;
  readonly headers: Headers;
  readonly text: string;
  /** The CSRF token of the page's forms, when it has one. */
  readonly csrf: string | undefined;
}

/**
 * A browser without a browser for the authorization flow's HTTP tests: keeps the dashboard
 * cookie, sends forms url-encoded with the gateway's own Origin, follows no redirect.
 */
export class DashboardBrowser {
  cookie: string | undefined;

  constructor(readonly baseUrl: string) {}

  get(path: string): Promise<Answer> {
    return this.send(path, { method: 'GET' });
  }

  /** POSTs `fields` (a repeated field as repeated pairs); a fresh single-use nonce unless `fields` has one. */
  post(path: string, fields: Record<string, string> | [string, string][]): Promise<Answer> {
    const body = new URLSearchParams(fields);
    if (!body.has('_once')) body.set('_once', randomBase62(22));
    return this.send(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: new URL(this.baseUrl).origin },
      body: body.toString(),
    });
  }

  /**
   * Follows the sign-in a `location` (the sign-in page with a return path) leads to, with the code
   * from `sink`: the answer of the code step (a redirect to the return path).
   */
  async signInAt(location: string, sink: MailSink, email: string): Promise<Answer> {
    const form = await this.get(location);
    if (form.status !== 200 || !form.csrf) throw new Error(`sign-in page: ${form.status} ${form.text.slice(0, 200)}`);
    const sent = await this.post('/dashboard/sign-in/email', { _csrf: form.csrf, email });
    if (sent.location !== '/dashboard/sign-in/code') throw new Error(`e-mail step: ${sent.status}`);
    const code = await this.get('/dashboard/sign-in/code');
    const done = await this.post('/dashboard/sign-in/code', { _csrf: code.csrf!, code: await sink.nextCode(email) });
    if (done.status !== 303) throw new Error(`code step: ${done.status} ${done.text.slice(0, 200)}`);
    return done;
  }

  private async send(path: string, init: RequestInit): Promise<Answer> {
    const headers = new Headers(init.headers);
    if (this.cookie) headers.set('cookie', `gw_dashboard=${this.cookie}`);
    const res = await fetch(new URL(path, this.baseUrl), { ...init, headers, redirect: 'manual' });
    const set = res.headers.get('set-cookie');
    const value = set ? /gw_dashboard=([^;]*)/.exec(set)?.[1] : undefined;
    if (value !== undefined) this.cookie = value || undefined;
    const text = await res.text();
    return { status: res.status, location: res.headers.get('location'), headers: res.headers, text, csrf: /name="_csrf" value="([^"]+)"/.exec(text)?.[1] };
  }
}
