import { AppError, defineRoute, machinePaymentAnswer, type RouteDefinition, type RouteResult, withDeps } from '@gw/kernel';
import { CHECKOUT_TOKEN_PATTERN, type CheckoutInvoice, type InvoiceView } from '@gw/plugin-invoices/contract';
import type { Context } from 'koa';
import Type, { type Static } from 'typebox';
import { brandStylesheet } from './page/brand-stylesheet.js';
import { checkoutPage, coinFacts, notFoundPage, paymentRequestFragment, statusFragment } from './page/checkout-page.js';
import type { Locale } from './page/i18n.js';
import { chooseLocale } from './page/locale-choice.js';
import { PAYER_TOKEN_PARAMS, payerLocale } from './page/payer-page-route.js';
import { CHECKOUT_ASSETS } from './page/payer-assets.js';
import { payerPageHeaders } from './page/payer-page.js';
import { payerStatus, RETURN_STATUSES } from './page/payer-status.js';
import { CHECKOUT_PANELS, type CheckoutPanel } from './panels.js';
import type { Branding } from './services/branding-service.js';
import { simulationToken } from './services/simulation-csrf.js';
import { streamClientKey } from './services/stream-client.js';

const TOKEN = new RegExp(CHECKOUT_TOKEN_PATTERN);
/** What following an invoice's status holds: the payer's locale, the invoice, its project's branding, and the stream slot to release. */
interface Following {
  readonly locale: Locale;
  readonly found: CheckoutInvoice;
  readonly branding: Branding;
  readonly release: () => void;
}
const PageQuery = Type.Object(
  { lang: Type.Optional(Type.String({ maxLength: 35 })), sim_error: Type.Optional(Type.String({ maxLength: 64 })) },
  { additionalProperties: true },
);
const PollQuery = Type.Object(
  { lang: Type.Optional(Type.String({ maxLength: 35 })), known: Type.Optional(Type.String({ maxLength: 200 })) },
  { additionalProperties: true },
);
const PanelActionParams = Type.Object({
  token: Type.String({ maxLength: 200 }),
  panel: Type.String({ maxLength: 40 }),
  action: Type.String({ maxLength: 40 }),
});
const SimulateForm = Type.Optional(Type.Object({ csrf: Type.Optional(Type.String({ maxLength: 64 })) }, { additionalProperties: true }));

const BrandParams = Type.Object({ file: Type.String({ maxLength: 20 }) });
const BRAND_FILE = /^([0-9a-f]{6})\.css$/;

/** One status update as the page's script applies it (server-sent event `status`, long-poll answer). */
export interface StatusUpdate {
  readonly status: string;
  readonly key: string;
  readonly final: boolean;
  /** The status region's new content, rendered and escaped by the server. */
  readonly html: string;
  /** The payment request region's new content (QR code and wallet link for what is still due). */
  readonly request: string;
  /** Where the page sends the payer now (paid with a return_url), else null. */
  readonly redirect: string | null;
  /** The panel actions that apply now (the sandbox's simulations), by their `data-simulation` name. */
  readonly simulations: readonly string[];
}

/** Who a status stream counts against: the client's address, IPv6 by its /64 (`streamClientKey`). */
function clientOf(ctx: Context): string {
  return streamClientKey(ctx.ip || ctx.socket.remoteAddress || 'unknown');
}

/** Public routes of the hosted checkout page (issue 21); the token in the path is the only credential. */
export const checkoutRoutes = withDeps(
  ['checkoutConfig', 'invoicesService', 'chains', 'checkoutStreamLimiter', 'checkoutBranding', 'checkoutStatusHub', 'logger', 'extensions'],
  (deps): RouteDefinition[] => {
    const config = deps.checkoutConfig;
    const panels: readonly CheckoutPanel[] = deps.extensions.of(CHECKOUT_PANELS).map((c) => c.item);
    /** The contributed panels an invoice of this project kind shows. */
    const panelsFor = (kind: CheckoutInvoice['projectKind']) => panels.filter((panel) => panel.shows(kind));
    /** The invoice of a checkout token; none for an invoice of a chain disabled since (nobody watches it: nothing to pay there). */
    const locate = async (token: string): Promise<CheckoutInvoice | undefined> => {
      const found = TOKEN.test(token) ? await deps.invoicesService.byCheckoutToken(token) : undefined;
      return found && (deps.chains.coinIds() as readonly string[]).includes(found.invoice.coin) ? found : undefined;
    };
    const notFound = (locale: Locale): RouteResult => ({ status: 404, headers: payerPageHeaders(locale), body: notFoundPage(locale) });

    function update(invoice: InvoiceView, kind: CheckoutInvoice['projectKind'], branding: Branding, locale: Locale, token: string): StatusUpdate {
      const facts = coinFacts(deps.chains, invoice, kind);
      const status = payerStatus(invoice, facts.decimals);
      return {
        status: status.status,
        key: status.key,
        final: status.final,
        html: statusFragment(locale, status, invoice, branding, facts.symbol, `/checkout/${token}?lang=${locale}`).text,
        request: paymentRequestFragment(deps.chains, locale, invoice, kind, status).text,
        redirect: RETURN_STATUSES.includes(status.status) ? invoice.return_url : null,
        simulations: panelsFor(kind).flatMap((panel) => panel.enabledActions(status.status)),
      };
    }

    const tooMany = (): RouteResult => ({
      status: 429,
      headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': '30', 'Cache-Control': 'no-store' },
      body: 'Too many open status streams from this address.\n',
    });

    /**
     * The start of following an invoice's status (long poll, event stream): the invoice of the token,
     * a stream slot of the client's address and the project's branding; or the answer when one is
     * missing. The caller calls `release` when it is done; a failure here releases the slot itself.
     */
    async function follow(ctx: Context, token: string, lang: string | undefined): Promise<RouteResult | Following> {
      const locale = chooseLocale(lang, ctx.get('Accept-Language'));
      const found = await locate(token);
      if (!found) return notFound(locale);
      const release = await deps.checkoutStreamLimiter.acquire(clientOf(ctx));
      if (!release) return tooMany();
      try {
        return { locale, found, branding: await deps.checkoutBranding.forProject(found.invoice.project_id), release };
      } catch (error) {
        release();
        throw error;
      }
    }

    /** A GET route that follows the token's invoice (`follow`); `serve` answers once following began. */
    function followRoute(
      path: string,
      summary: string,
      serve: (
        input: { ctx: Context; params: Static<typeof PAYER_TOKEN_PARAMS>; query: Static<typeof PollQuery> },
        following: Following,
      ) => Promise<RouteResult>,
    ): RouteDefinition {
      return defineRoute({
        method: 'GET',
        path,
        hidden: true,
        summary,
        auth: 'none',
        params: PAYER_TOKEN_PARAMS,
        query: PollQuery,
        handler: async (input) => {
          const following = await follow(input.ctx, input.params.token, input.query.lang);
          return 'found' in following ? serve(input, following) : following;
        },
      });
    }

    return [
      ...CHECKOUT_ASSETS.routes,
      defineRoute({
        method: 'GET',
        path: '/checkout/:token',
        hidden: true,
        summary: 'The hosted checkout page of an invoice (HTML); to a machine client, its payment answer (x402: 402 with the requirements).',
        auth: 'none',
        params: PAYER_TOKEN_PARAMS,
        query: PageQuery,
        handler: async ({ ctx, params, query }) => {
          const locale = payerLocale(ctx, query);
          const found = await locate(params.token);
          if (!found) return notFound(locale);
          // An agent paying over HTTP (x402) asks the same URL without HTML; a browser never reaches a responder.
          const machine = await machinePaymentAnswer(deps.extensions, ctx, {
            kind: 'invoice',
            projectId: found.invoice.project_id,
            invoiceId: found.invoice.id,
          });
          if (machine) return machine;
          const branding = await deps.checkoutBranding.forProject(found.invoice.project_id);
          const shown = panelsFor(found.projectKind);
          const panelError = query.sim_error && /^[a-z_]+$/.test(query.sim_error) ? query.sim_error : undefined;
          // Only panels with forms need the double-submit cookie (a link-only panel sets none).
          const panelToken = shown.some((panel) => panel.actions.length > 0) ? simulationToken.issue(ctx, `/checkout/${params.token}`) : undefined;
          const body = await checkoutPage({
            token: params.token,
            invoice: found.invoice,
            projectKind: found.projectKind,
            branding,
            locale,
            chains: deps.chains,
            returnDelaySeconds: config.returnDelaySeconds,
            panels: shown,
            panelError,
            panelToken,
          });
          return { status: 200, headers: payerPageHeaders(locale), body };
        },
      }),
      defineRoute({
        method: 'GET',
        path: '/checkout/brand/:file',
        hidden: true,
        summary: 'A project accent colour as a stylesheet (`/checkout/brand/1d4ed8.css`), for every payer page.',
        auth: 'none',
        params: BrandParams,
        handler: async ({ params }) => {
          const colour = BRAND_FILE.exec(params.file)?.[1];
          if (!colour) return notFound('en');
          // The colour is the name, so the answer never changes.
          return {
            status: 200,
            headers: { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=31536000, immutable', 'X-Content-Type-Options': 'nosniff' },
            body: brandStylesheet(`#${colour}`),
          };
        },
      }),
      followRoute(
        '/checkout/:token/status',
        'Long poll: the status once it differs from `known` (or after longPollSeconds).',
        async ({ ctx, params, query }, { locale, found, branding, release }) => {
          try {
            let current = update(found.invoice, found.projectKind, branding, locale, params.token);
            if (query.known === undefined || query.known !== current.key || current.final)
              return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: current };
            current = await new Promise<StatusUpdate>((resolve) => {
              let stop: (() => void) | undefined;
              let done = false;
              const timer = setTimeout(() => finish(current), config.longPollSeconds * 1000);
              const finish = (value: StatusUpdate) => {
                if (done) return;
                done = true;
                clearTimeout(timer);
                stop?.();
                ctx.res.off('close', onClose);
                resolve(value);
              };
              const onClose = () => finish(current);
              ctx.res.on('close', onClose);
              // The poller left while its slot was being taken: 'close' was emitted before the listener.
              if (ctx.req.socket.destroyed) finish(current);
              void deps.checkoutStatusHub
                .watch(found.invoice.id, (invoice) => {
                  const next = update(invoice, found.projectKind, branding, locale, params.token);
                  if (next.key !== query.known) finish(next);
                })
                .then(
                  (unwatch) => {
                    // Answered (or the poller left) while the watch was being set up.
                    if (done) unwatch();
                    else stop = unwatch;
                  },
                  () => finish(current),
                );
            });
            return { status: 200, headers: { 'Cache-Control': 'no-store' }, body: current };
          } finally {
            release();
          }
        },
      ),
      followRoute(
        '/checkout/:token/events',
        'Server-sent events: `status` on connect and after every change of the invoice.',
        async ({ ctx, params }, { locale, found, branding, release }) => {
          // The stream is written to the socket directly (not as a Koa body), so a payer closing the
          // page is an ordinary end, not a failed response.
          ctx.respond = false;
          const stream = ctx.res;
          stream.writeHead(200, {
            'Content-Type': 'text/event-stream; charset=utf-8',
            'Cache-Control': 'no-store',
            'X-Accel-Buffering': 'no',
            Connection: 'keep-alive',
            'X-Content-Type-Options': 'nosniff',
          });
          let lastKey = '';
          const send = (value: StatusUpdate) => {
            if (closed || value.key === lastKey) return;
            lastKey = value.key;
            stream.write(`event: status\ndata: ${JSON.stringify(value)}\n\n`);
            if (value.final) close();
          };
          let unwatch: (() => void) | undefined;
          let closed = false;
          const stopHeartbeat = deps.checkoutStatusHub.onHeartbeat(() => stream.write(': keep-alive\n\n'));
          const lifetime = setTimeout(() => close(), config.streamMaxSeconds * 1000);
          lifetime.unref();
          function close() {
            if (closed) return;
            closed = true;
            clearTimeout(lifetime);
            stopHeartbeat();
            unwatch?.();
            release();
            stream.end();
          }
          ctx.res.on('close', close);
          // The payer left while the slot was being taken: 'close' was emitted before the listener.
          if (ctx.req.socket.destroyed) close();
          ctx.req.socket.setTimeout(0);
          stream.write('retry: 3000\n\n');
          try {
            unwatch = await deps.checkoutStatusHub.watch(found.invoice.id, (invoice) =>
              send(update(invoice, found.projectKind, branding, locale, params.token)),
            );
            // Re-read after listening began, so a change committed in between is not missed.
            const fresh = await deps.invoicesService.getMany([found.invoice.id]);
            send(update(fresh.get(found.invoice.id) ?? found.invoice, found.projectKind, branding, locale, params.token));
          } catch (error) {
            deps.logger.warn({ err: error, invoice_id: found.invoice.id }, 'checkout: a status stream could not follow its invoice');
            close();
          }
          if (closed) unwatch?.();
          return { status: 200 };
        },
      ),
      defineRoute({
        method: 'POST',
        path: '/checkout/:token/:panel/:action',
        hidden: true,
        summary: "An action of a panel another plugin adds to the page (the sandbox's simulations), then back to the page.",
        auth: 'none',
        params: PanelActionParams,
        query: PageQuery,
        body: SimulateForm,
        handler: async ({ ctx, params, query, requestId }) => {
          const locale = payerLocale(ctx, query);
          const found = await locate(params.token);
          const panel = found ? panelsFor(found.projectKind).find((p) => p.id === params.panel) : undefined;
          if (!found || !panel || !panel.actions.includes(params.action)) return notFound(locale);
          if (!simulationToken.valid(ctx, (ctx.request.body as Readonly<Record<string, unknown>> | null | undefined)?.['csrf'])) {
            return {
              status: 403,
              headers: { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' },
              body: 'This form did not come from the checkout page, or it expired: reload the page and try again.\n',
            };
          }
          let error = '';
          try {
            const actor = { actor: 'checkout-page', channel: 'rest' as const, requestId };
            await panel.act(params.action, found.invoice, actor);
          } catch (failure) {
            if (!(failure instanceof AppError)) throw failure;
            error = `&sim_error=${encodeURIComponent(failure.code)}`;
          }
          return { status: 303, headers: { Location: `/checkout/${params.token}?lang=${locale}${error}`, 'Cache-Control': 'no-store' } };
        },
      }),
    ];
  },
);
