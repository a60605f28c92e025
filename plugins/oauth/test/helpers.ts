import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { CLI_ACTOR } from '@gw/kernel';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startTestKernel, waitFor, type TestDatabase, type TestKernel } from '@gw/kernel/testing';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { closeServer, listenOnLoopback } from '@gw/testing';
import { oauthPlugin } from '../src/index.js';

export const OAUTH_PLUGINS = [tenancyPlugin, oauthPlugin];
export const CERT_PEM = readFileSync(new URL('./fixtures/localhost-cert.pem', import.meta.url), 'utf8');
export const KEY_PEM = readFileSync(new URL('./fixtures/localhost-key.pem', import.meta.url), 'utf8');
export const ALL_SCOPES = 'projects:read invoices:read transactions:read webhooks:read';

/** A real SMTP server on a free local port that keeps every message it receives. */
export class MailSink {
  readonly messages: { to: string[]; raw: string }[] = [];
  private readonly taken = new Map<string, number>();
  private constructor(
    private readonly server: SMTPServer,
    readonly url: string,
  ) {}

  /** A sink on `port` (a free one when 0: a test of a mail server that comes back starts it on the port the gateway was given). */
  static async start(port = 0): Promise<MailSink> {
    let sink: MailSink | undefined;
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          sink!.messages.push({ to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw: Buffer.concat(chunks).toString('utf8') });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    sink = new MailSink(server, `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`);
    return sink;
  }

  /** The code of the next message to `email` not yet taken by this method. */
  async nextCode(email: string): Promise<string> {
    const address = email.toLowerCase();
    const seen = this.taken.get(address) ?? 0;
    const message = await waitFor(async () => this.messages.filter((m) => m.to.includes(address))[seen], 20_000, `a mail to ${address}`);
    this.taken.set(address, seen + 1);
    const code = /sign-in code is (\d{6})/.exec(message.raw)?.[1];
    if (!code) throw new Error(`no code in mail: ${message.raw}`);
    return code;
  }

  count(email: string): number {
    return this.messages.filter((m) => m.to.includes(email.toLowerCase())).length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A gateway with tenancy and OAuth, sending mail to `sink`. */
export function startOAuthKernel(sink: MailSink, config: Record<string, unknown> = {}, options: { database?: TestDatabase } = {}): Promise<TestKernel> {
  return startTestKernel({
    plugins: OAUTH_PLUGINS,
    role: 'gateway',
    ...(options.database ? { database: options.database } : {}),
    // Every test of a file shares one address (127.0.0.1): the per-address limits are raised here and
    // set explicitly by the tests of those limits.
    config: {
      'plugins.oauth.smtp.url': sink.url,
      'plugins.oauth.smtp.from': 'Gateway <gw@example.test>',
      'plugins.oauth.registrationsPerHourPerIp': 1000,
      'plugins.oauth.emailCode.sendsPerHourPerIp': 1000,
      'plugins.oauth.clientDocuments.fetchesPerMinutePerHost': 1000,
      ...config,
    },
  });
}

/** Invites a user (under a fresh operator) and returns the e-mail and id. */
export async function inviteUser(gw: TestKernel, label: string): Promise<{ email: string; id: string }> {
  const cradle = gw.kernel.cradle;
  const operator = await cradle.tenancyOperators.create(`op-${label}-${Math.random().toString(36).slice(2, 8)}`, CLI_ACTOR);
  const email = `${label}-${Math.random().toString(36).slice(2, 8)}@example.test`;
  const user = await cradle.tenancyUsers.invite({ email, operator: operator.id }, CLI_ACTOR);
  return { email, id: user.id };
}

export interface WebResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly location: string | null;
}

/** A minimal browser for the pages: keeps cookies, never follows redirects. */
export class WebClient {
  readonly cookies = new Map<string, string>();

  /** `forwardedFor`: the client address a trusted proxy would append (gateways with http.trustProxy). */
  constructor(private readonly forwardedFor?: string) {}

  async get(url: string | URL): Promise<WebResponse> {
    return this.send(url, { method: 'GET' });
  }

  async post(url: string | URL, form: Record<string, string>): Promise<WebResponse> {
    return this.send(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  }

  private async send(url: string | URL, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<WebResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, ...(cookie ? { cookie } : {}), ...(this.forwardedFor ? { 'x-forwarded-for': this.forwardedFor } : {}) },
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }
}

/** The hidden inputs of the page's form. */
export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) out[m[1]!] = m[2]!.replace(/&amp;/g, '&').replace(/&quot;/g, '"');
  return out;
}

/**
 * Drives the pages like a person: opens the authorize URL, signs in with the code from the mail
 * sink, and approves or denies on the consent page when one is shown. Returns the final redirect.
 */
export async function authorizeInBrowser(
  web: WebClient,
  base: string,
  authorizeUrl: URL | string,
  email: string,
  sink: MailSink,
  decision: 'approve' | 'deny' = 'approve',
): Promise<URL> {
  let page = await web.get(authorizeUrl);
  if (page.status === 302) return new URL(page.location!);
  if (!page.text.includes('action="/oauth/authorize/email"')) {
    if (page.text.includes('action="/oauth/authorize/consent"')) return consent(web, base, page, decision);
    throw new Error(`expected the sign-in page, got ${page.status}: ${page.text.slice(0, 500)}`);
  }
  page = await web.post(`${base}/oauth/authorize/email`, { ...hiddenFields(page.text), email });
  if (page.status !== 200) throw new Error(`code request answered ${page.status}: ${page.text.slice(0, 500)}`);
  const code = await sink.nextCode(email);
  page = await web.post(`${base}/oauth/authorize/verify`, { ...hiddenFields(page.text), code });
  if (page.status === 302) return new URL(page.location!);
  if (!page.text.includes('action="/oauth/authorize/consent"')) throw new Error(`expected the consent page, got ${page.status}: ${page.text.slice(0, 500)}`);
  return consent(web, base, page, decision);
}

async function consent(web: WebClient, base: string, page: WebResponse, decision: 'approve' | 'deny'): Promise<URL> {
  const done = await web.post(`${base}/oauth/authorize/consent`, { ...hiddenFields(page.text), decision });
  if (done.status !== 302) throw new Error(`consent answered ${done.status}: ${done.text.slice(0, 500)}`);
  return new URL(done.location!);
}

/** What the document server answers; `hang` never answers at all. */
export interface DocumentReply {
  status?: number;
  headers?: Record<string, string>;
  body: string;
  hang?: boolean;
}

/** A local HTTPS server (self-signed localhost certificate) serving client metadata documents. */
export class DocumentServer {
  readonly requests: string[] = [];
  private constructor(
    private readonly server: HttpsServer,
    readonly origin: string,
    private readonly routes: Map<string, (origin: string) => DocumentReply>,
  ) {}

  static async start(): Promise<DocumentServer> {
    const routes = new Map<string, (origin: string) => DocumentReply>();
    let self: DocumentServer | undefined;
    const server = createHttpsServer({ key: KEY_PEM, cert: CERT_PEM }, (req, res) => {
      self!.requests.push(req.url ?? '/');
      const route = routes.get(req.url ?? '/');
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      const reply = route(self!.origin);
      if (reply.hang) return; // never answers
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body);
    });
    self = new DocumentServer(server, `https://localhost:${await listenOnLoopback(server)}`, routes);
    return self;
  }

  /** Serves `path`; `reply` gets this server's origin. */
  serve(path: string, reply: (origin: string) => DocumentReply): string {
    this.routes.set(path, reply);
    return `${this.origin}${path}`;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

/** A loopback redirect target that records the query of every request (for the browser test). */
export class Callback {
  readonly hits: URL[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Callback> {
    let self: Callback | undefined;
    const server = createServer((req, res) => {
      self!.hits.push(new URL(req.url ?? '/', self!.url));
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>Done</title><p>You may close this window.</p>');
    });
    self = new Callback(server, `http://127.0.0.1:${await listenOnLoopback(server)}/callback`);
    return self;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }
}

/** Registers an OAuth client with `metadata` at the gateway at `gatewayUrl` (dynamic registration) and returns its client id. */
export async function registerClient(gatewayUrl: string, metadata: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${gatewayUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata) });
  return ((await res.json()) as { client_id: string }).client_id;
}

/**
 * The authorization endpoint of the gateway at `gatewayUrl` with the query of an authorization
 * request: `params` (client, redirect URI, state, challenge, resource, …) with `response_type=code`
 * and `code_challenge_method=S256` unless `params` name others.
 */
export function authorizationUrl(gatewayUrl: string, params: Record<string, string>): URL {
  const url = new URL(`${gatewayUrl}/oauth/authorize`);
  url.search = new URLSearchParams({ response_type: 'code', code_challenge_method: 'S256', ...params }).toString();
  return url;
}
