import { fileURLToPath } from 'node:url';
import { AppError, hashToken, staticAssets, withDeps, type RouteDefinition, type RouteResult } from '@gw/kernel';
import { payerFormRoute, payerPageHeaders, payerPageRoute, type Locale } from '@gw/plugin-checkout/contract';
import type { Context } from 'koa';
import { CLAIM_PATH, type ClaimView } from '../contract.js';
import { claimFormToken } from './claim-csrf.js';
import { claimCoinFacts, claimNotFoundPage, claimPage, type ClaimFormValues } from './claim-page.js';

/** The claim page's stylesheet, served by the gateway with a content hash (no CDN). */
export const CLAIM_ASSETS = staticAssets('/refunds/claim-assets', [
  { name: 'claim.css', type: 'text/css; charset=utf-8', file: fileURLToPath(new URL('./claim.css', import.meta.url)) },
]);

/** Claims one token takes per window: enough for a payer's typing mistakes, too few to probe with. */
export const CLAIM_POSTS_PER_TOKEN = { limit: 20, windowSeconds: 3600 } as const;

/** A claim token as the core issues them (URL-safe); anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;
/** The longest field value read; longer is refused as `validation_error` on the page. */
const FIELD_MAX = 2000;

/** A posted field as text: absent, repeated or non-text fields are empty. */
function field(body: unknown, name: string): string {
  const value = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === 'string' ? value : '';
}

/**
 * The payer's refund claim page (issue 37): public, no account; the token in the path is the only
 * credential. GET shows the refund and, while it takes a claim, the form (address twice, and the
 * signed message when the amount needs a proof); POST claims it and goes back to the page (303),
 * or shows the page again with the refusal's words and what was entered. No script: every state is
 * a full page.
 */
export const claimRoutes = withDeps(['payoutsClaims', 'chains', 'rateLimiter'], (deps): RouteDefinition[] => {
  const headers = (locale: Locale) => payerPageHeaders(locale);
  const notFound = (locale: Locale): RouteResult => ({ status: 404, headers: headers(locale), body: claimNotFoundPage(locale, CLAIM_ASSETS) });

  /** The refund of a token; undefined for a malformed or unknown one. */
  async function locate(token: string): Promise<ClaimView | undefined> {
    if (!TOKEN.test(token)) return undefined;
    try {
      return await deps.payoutsClaims.byToken(token);
    } catch (error) {
      if (error instanceof AppError && error.status === 404) return undefined;
      throw error;
    }
  }

  function page(
    ctx: Context,
    token: string,
    view: ClaimView,
    locale: Locale,
    status: number,
    refused?: { code: string; values: ClaimFormValues },
    extra: Record<string, string> = {},
  ): RouteResult {
    const base = `${CLAIM_PATH}/${token}`;
    const formToken = claimFormToken.issue(ctx, base);
    const body = claimPage({ view, locale, facts: claimCoinFacts(deps.chains, view.item), assets: CLAIM_ASSETS, base, formToken, refused });
    return { status, headers: { ...headers(locale), ...extra }, body };
  }

  return [
    ...CLAIM_ASSETS.routes,
    payerPageRoute(`${CLAIM_PATH}/:token`, "The payer's refund claim page (HTML).", async ({ ctx, token, locale }) => {
      const view = await locate(token);
      return view ? page(ctx, token, view, locale, 200) : notFound(locale);
    }),
    payerFormRoute(`${CLAIM_PATH}/:token`, 'Claims a refund from its claim page (form post), then back to the page.', async ({ ctx, token, locale, body }) => {
      const view = await locate(token);
      if (!view) return notFound(locale);
      const values: ClaimFormValues = {
        address: field(body, 'address').trim(),
        addressConfirmation: field(body, 'address_confirmation').trim(),
        signature: field(body, 'signature').trim(),
      };
      const refuse = (code: string, status: number, extra?: Record<string, string>) => page(ctx, token, view, locale, status, { code, values }, extra);
      if (!claimFormToken.valid(ctx, field(body, 'csrf'))) return refuse('form_expired', 403);
      const limit = await deps.rateLimiter.hit({ key: `payouts.claim:${hashToken(token)}`, ...CLAIM_POSTS_PER_TOKEN });
      if (!limit.allowed) return refuse('rate_limit_exceeded', 429, { 'Retry-After': String(limit.retryAfter) });
      if ([values.address, values.addressConfirmation, values.signature].some((v) => v.length > FIELD_MAX)) return refuse('validation_error', 400);
      try {
        await deps.payoutsClaims.claim(token, {
          address: values.address,
          addressConfirmation: values.addressConfirmation,
          ...(values.signature ? { signature: values.signature } : {}),
        });
      } catch (failure) {
        if (!(failure instanceof AppError)) throw failure;
        // The refusal is shown on the page as it is now (a claim made meanwhile shows as claimed).
        const now = (await locate(token)) ?? view;
        return page(ctx, token, now, locale, failure.status, { code: failure.code, values });
      }
      return { status: 303, headers: { Location: `${CLAIM_PATH}/${token}?lang=${locale}`, 'Cache-Control': 'no-store' } };
    }),
  ];
});
