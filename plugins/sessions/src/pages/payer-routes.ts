import { AppError, hashToken, machinePaymentAnswer, withDeps, type Actor, type RouteDefinition, type RouteResult } from '@gw/kernel';
import { payerFormRoute, payerPageHeaders, payerPageRoute, qrSvg, type Locale } from '@gw/plugin-checkout/contract';
import { isRateUnavailable } from '@gw/plugin-rates/contract';
import { normaliseEmail } from '@gw/plugin-tenancy/contract';
import type { Context } from 'koa';
import type { PayerSession, PaymentLinkView } from '../contract.js';
import { linkPage, linkPageState, type LinkFormValues, type LinkPageRefusal } from './link-page.js';
import { payerFormToken } from './payer-csrf.js';
import { PAYER_ASSETS, payerNotFoundPage } from './payer-frame.js';
import { pathOf, withLang } from './payer-format.js';
import { rememberPayerLocale } from './payer-locale.js';
import { payerText } from './payer-texts.js';
import { receiptPage, receiptPayments } from './receipt-page.js';
import { sessionPage, sessionPageState, type SessionPageRefusal } from './session-page.js';

/** Form posts one session's page takes per window (picks and e-mail): enough for a payer changing their mind, too few to churn addresses. */
export const SESSION_POSTS_PER_TOKEN = { limit: 30, windowSeconds: 3600 } as const;
/** Sessions one client address opens from one link per window: a shop's customers behind one NAT pass, a script does not. */
export const LINK_OPENS_PER_CLIENT = { limit: 60, windowSeconds: 3600 } as const;

/** Page, link and receipt tokens as the sessions plugin issues them (kernel `randomHex`, 32 hex); anything else is not looked up. */
const TOKEN = /^[0-9a-f]{32}$/;
/** A decimal amount as a payer types it (`12.50`, or `12,50` with a decimal comma). */
const TYPED_AMOUNT = /^\d{1,20}(?:[.,]\d{1,18})?$/;

/** A posted field as text: absent, repeated or non-text fields are empty. */
function field(body: unknown, name: string): string {
  const value = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/** How a refused action is shown: the code the page explains, the HTTP status, headers, and the field it concerns. */
interface Refusal {
  readonly code: string;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly field?: 'amount' | 'email';
}

/**
 * A service's refusal as the page shows it, with the status the service gave it. A rate that is
 * unavailable (the rates plugin's 500 with reason `rate_unavailable`) is a 503 here: the payer can
 * retry. Anything else that is no AppError, or a 500, is a bug and is rethrown.
 */
function refusalOf(error: unknown, action: 'pick' | 'email' | 'open'): Refusal {
  if (!(error instanceof AppError)) throw error;
  const headers: Record<string, string> = error.retryAfter === undefined ? {} : { 'Retry-After': String(error.retryAfter) };
  if (isRateUnavailable(error)) return { code: 'rate_unavailable', status: 503, headers };
  if (error.status >= 500 && error.status !== 503) throw error;
  const named = typeof error.details?.['field'] === 'string' ? (error.details['field'] as string) : '';
  if (error.code === 'validation_error' && /email/.test(named)) return { code: 'email_invalid', status: 400, headers, field: 'email' };
  if (error.code === 'validation_error' && action === 'open' && /amount/.test(named)) return { code: 'amount_invalid', status: 400, headers, field: 'amount' };
  if (error.code === 'amount_out_of_range') {
    // A link's limits are the payer's to meet; a price a coin cannot be invoiced at is not.
    return action === 'open'
      ? { code: 'amount_out_of_range', status: error.status, headers, field: 'amount' }
      : { code: 'amount_out_of_range_coin', status: error.status, headers };
  }
  return { code: error.code, status: error.status, headers };
}

/**
 * The payer's pages of the sessions plugin (issue 38), public, without an account: the token in the
 * path is the only credential. `/pay/:token`: a session's page (the coins to pick from, the e-mail
 * for the receipt; a pick goes on to the invoice's checkout page); `/l/:token`: a payment link's
 * page (its price or an amount to enter; its form opens a session of its own for the payer) and its
 * QR code; `/receipts/:token`: the printable receipt of a paid session. No script: every action is
 * a form post answered with a redirect (303) or with the page again, showing the refusal in the
 * payer's language with the refusal's status.
 */
export const payerRoutes = withDeps(
  ['sessionsCheckout', 'sessionsLinks', 'invoicesService', 'checkoutBranding', 'chains', 'rateLimiter', 'db', 'extensions'],
  (deps): RouteDefinition[] => {
    const headers = (locale: Locale, extra: Record<string, string> = {}) => ({ ...payerPageHeaders(locale), ...extra });
    const notFound = (locale: Locale, what: 'not_found' | 'receipt_not_found' = 'not_found'): RouteResult => ({
      status: 404,
      headers: headers(locale),
      body: payerNotFoundPage(locale, what),
    });
    const actorOf = (requestId: string): Actor => ({ actor: 'payer', channel: 'rest', requestId });
    const limited = (status: number, retryAfter: number) => ({ code: 'rate_limit_exceeded', status, headers: { 'Retry-After': String(retryAfter) } });

    async function session(token: string): Promise<PayerSession | undefined> {
      return TOKEN.test(token) ? deps.sessionsCheckout.byToken(token) : undefined;
    }
    async function link(token: string): Promise<PaymentLinkView | undefined> {
      return TOKEN.test(token) ? (await deps.sessionsLinks.byToken(token))?.link : undefined;
    }

    async function showSession(
      ctx: Context,
      token: string,
      payer: PayerSession,
      locale: Locale,
      status: number,
      refused?: Refusal & SessionPageRefusal,
    ): Promise<RouteResult> {
      const path = `/pay/${token}`;
      const state = sessionPageState(payer);
      // Only a page with forms sets the double-submit cookie.
      const formToken = state === 'open' || state === 'picked' ? payerFormToken.issue(ctx, path) : '';
      const branding = await deps.checkoutBranding.forProject(payer.session.project_id);
      const body = sessionPage({ payer, branding, locale, chains: deps.chains, path, formToken, refused });
      return { status, headers: headers(locale, refused?.headers), body };
    }

    async function showLink(
      ctx: Context,
      token: string,
      link: PaymentLinkView,
      locale: Locale,
      status: number,
      refused?: Refusal & LinkPageRefusal,
    ): Promise<RouteResult> {
      const path = `/l/${token}`;
      const formToken = linkPageState(link) === 'open' ? payerFormToken.issue(ctx, path) : '';
      const branding = await deps.checkoutBranding.forProject(link.project_id);
      const body = linkPage({ link, branding, locale, chains: deps.chains, path, formToken, refused });
      return { status, headers: headers(locale, refused?.headers), body };
    }

    /**
     * A form post of a session's page: the CSRF and rate checks, then `act`; a refusal shows the page
     * as it is now with the refusal's words. `act` answers where the payer goes next.
     */
    function sessionAction(
      path: string,
      summary: string,
      act: (input: { payer: PayerSession; token: string; body: unknown; locale: Locale; actor: Actor }) => Promise<string | (Refusal & SessionPageRefusal)>,
    ): RouteDefinition {
      return payerFormRoute(path, summary, async ({ ctx, token, locale, body, requestId }) => {
        const payer = await session(token);
        if (!payer) return notFound(locale);
        const refuse = async (refusal: Refusal & SessionPageRefusal) => {
          // The page as it is now (a pick made meanwhile in another tab shows as picked).
          const now = (await session(token)) ?? payer;
          return showSession(ctx, token, now, locale, refusal.status, refusal);
        };
        if (!payerFormToken.valid(ctx, field(body, 'csrf'))) return refuse({ code: 'form_expired', status: 403, headers: {} });
        const hit = await deps.rateLimiter.hit({ key: `sessions.pay:${hashToken(token)}`, ...SESSION_POSTS_PER_TOKEN });
        if (!hit.allowed) return refuse(limited(429, hit.retryAfter));
        const next = await act({ payer, token: token, body, locale, actor: actorOf(requestId) });
        if (typeof next !== 'string') return refuse(next);
        return { status: 303, headers: { Location: withLang(next, locale), 'Cache-Control': 'no-store' } };
      });
    }

    return [
      ...PAYER_ASSETS.routes,
      payerPageRoute(
        '/pay/:token',
        "A checkout session's page: the payer picks the coin (HTML); to a machine client, its payment answer (x402).",
        async ({ ctx, token, locale }) => {
          const payer = await session(token);
          if (!payer) return notFound(locale);
          // An agent paying over HTTP (x402) asks the same URL without HTML; a browser never reaches a responder.
          const machine = await machinePaymentAnswer(deps.extensions, ctx, {
            kind: 'session',
            projectId: payer.session.project_id,
            sessionId: payer.session.id,
            token,
          });
          return machine ?? showSession(ctx, token, payer, locale, 200);
        },
      ),
      sessionAction(
        '/pay/:token/coin',
        'Picks (or switches to) a coin from the session’s page (form post), then on to its checkout page.',
        async ({ payer, token, body, locale, actor }) => {
          const coin = field(body, 'coin');
          // A coin the session does not offer never reaches the service (nor an id longer than any coin's).
          if (!(payer.session.allowed_coins as readonly string[]).includes(coin)) return { code: 'coin_not_allowed', status: 422, headers: {} };
          await rememberPayerLocale(deps.db, payer.session.id, locale);
          try {
            const picked = await deps.sessionsCheckout.pick(
              token,
              payer.session.allowed_coins.find((c) => c === coin)!,
              actor,
            );
            return picked.checkoutUrl ?? `/pay/${token}`;
          } catch (error) {
            return refusalOf(error, 'pick');
          }
        },
      ),
      sessionAction(
        '/pay/:token/email',
        'Gives the e-mail address for the receipt from the session’s page (form post), then back to the page.',
        async ({ token, body, locale, actor, payer }) => {
          const typed = field(body, 'email');
          const email = normaliseEmail(typed);
          if (!email) return { code: 'email_invalid', status: 400, headers: {}, email: typed.slice(0, 254) };
          await rememberPayerLocale(deps.db, payer.session.id, locale);
          try {
            await deps.sessionsCheckout.setEmail(token, email, actor);
            return `/pay/${token}`;
          } catch (error) {
            const refusal = refusalOf(error, 'email');
            return refusal.field === 'email' ? { ...refusal, email: typed.slice(0, 254) } : refusal;
          }
        },
      ),
      payerPageRoute('/l/:token', "A payment link's page: its price or an amount to enter (HTML).", async ({ ctx, token, locale }) => {
        const found = await link(token);
        return found ? showLink(ctx, token, found, locale, 200) : notFound(locale);
      }),
      payerFormRoute(
        '/l/:token',
        'Opens a session of a payment link from its page (form post), then on to the session’s page.',
        async ({ ctx, token, locale, body, requestId }) => {
          const found = await link(token);
          if (!found) return notFound(locale);
          const values: LinkFormValues = { amount: field(body, 'amount').trim().slice(0, 40), email: field(body, 'email').trim().slice(0, 254) };
          const refuse = async (refusal: Refusal & { field?: 'amount' | 'email' | undefined }) => {
            const now = (await link(token)) ?? found;
            return showLink(ctx, token, now, locale, refusal.status, { ...refusal, values });
          };
          if (!payerFormToken.valid(ctx, field(body, 'csrf'))) return refuse({ code: 'form_expired', status: 403, headers: {} });
          const hit = await deps.rateLimiter.hit({ key: `sessions.link:${hashToken(token)}:${ctx.ip}`, ...LINK_OPENS_PER_CLIENT });
          if (!hit.allowed) return refuse(limited(429, hit.retryAfter));
          let amount: string | undefined;
          if (found.price_amount === null) {
            if (!TYPED_AMOUNT.test(values.amount)) return refuse({ code: 'amount_invalid', status: 400, headers: {}, field: 'amount' });
            amount = values.amount.replace(',', '.');
          }
          let email: string | undefined;
          if (found.ask_email && values.email !== '') {
            email = normaliseEmail(values.email);
            if (!email) return refuse({ code: 'email_invalid', status: 400, headers: {}, field: 'email' });
          }
          let opened: PayerSession;
          try {
            opened = await deps.sessionsLinks.open(
              token,
              { ...(amount === undefined ? {} : { amount }), ...(email === undefined ? {} : { email }) },
              actorOf(requestId),
            );
          } catch (error) {
            return refuse(refusalOf(error, 'open'));
          }
          await rememberPayerLocale(deps.db, opened.session.id, locale);
          return { status: 303, headers: { Location: withLang(pathOf(opened.session.url), locale), 'Cache-Control': 'no-store' } };
        },
      ),
      payerPageRoute('/l/:token/qr.svg', "A payment link's URL as a QR code (SVG).", async ({ token, locale }) => {
        const found = await link(token);
        if (!found) return notFound(locale);
        return {
          status: 200,
          headers: {
            'Content-Type': 'image/svg+xml; charset=utf-8',
            'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
            'X-Content-Type-Options': 'nosniff',
            'Cache-Control': 'no-cache',
            'Content-Disposition': 'inline; filename="payment-link.svg"',
          },
          body: `<?xml version="1.0" encoding="UTF-8"?>\n${qrSvg(found.url, payerText(locale, 'qr_label')).text}\n`,
        };
      }),
      payerPageRoute('/receipts/:token', "A paid session's receipt (HTML, printable).", async ({ token, locale }) => {
        const payer = TOKEN.test(token) ? await deps.sessionsCheckout.byReceiptToken(token) : undefined;
        if (!payer) return notFound(locale, 'receipt_not_found');
        const invoices = await deps.invoicesService.getMany(payer.session.invoices.map((entry) => entry.invoice_id));
        const payments = receiptPayments(deps.chains, payer, invoices);
        const branding = await deps.checkoutBranding.forProject(payer.session.project_id);
        const body = receiptPage({ payer, payments, branding, locale, chains: deps.chains, path: `/receipts/${token}` });
        return { status: 200, headers: headers(locale), body };
      }),
    ];
  },
);
