import { defineRoute, type RouteDefinition, type RouteResult } from '@gw/kernel';
import type { Context } from 'koa';
import Type from 'typebox';
import type { Locale } from './i18n.js';
import { chooseLocale } from './locale-choice.js';

/** The `:token` of a payer page's path (bounded, so junk never reaches a lookup). */
export const PAYER_TOKEN_PARAMS = Type.Object({ token: Type.String({ maxLength: 200 }) });

/** A payer page's query: `lang` (a BCP 47 tag is at most 35 characters) as its language switch sets it; anything else is ignored. */
export const PAYER_PAGE_QUERY = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 35 })) }, { additionalProperties: true });

/** A payer page's form body: any fields (each route reads its own, as text). */
export const PAYER_FORM = Type.Optional(Type.Object({}, { additionalProperties: true }));

/** The payer's language: `?lang=` when the pages speak it, else the best of the browser's Accept-Language. */
export function payerLocale(ctx: Pick<Context, 'get'>, query: { readonly lang?: string | undefined }): Locale {
  return chooseLocale(query.lang, ctx.get('Accept-Language'));
}

/** What a payer page's route answers with: the token of its path, the payer's language and, for a form post, the posted body. */
export type PayerRouteHandler = (input: { ctx: Context; token: string; locale: Locale; body: unknown; requestId: string }) => Promise<RouteResult>;

/**
 * A payer page's route at `path` (with a `:token`): hidden from the API reference, without
 * authentication, the token bounded, `?lang=` read and, for a POST, any form fields taken;
 * `handle` answers for the token in the payer's language.
 */
function payerRoute(method: 'GET' | 'POST', path: string, summary: string, handle: PayerRouteHandler): RouteDefinition {
  return defineRoute({
    method,
    path,
    hidden: true,
    summary,
    auth: 'none',
    params: PAYER_TOKEN_PARAMS,
    query: PAYER_PAGE_QUERY,
    ...(method === 'POST' ? { body: PAYER_FORM } : {}),
    handler: ({ ctx, params, query, body, requestId }) => handle({ ctx, token: params.token, locale: payerLocale(ctx, query), body, requestId }),
  });
}

/** A payer page (GET) at `path`, as {@link payerRoute} reads it. */
export const payerPageRoute = (path: string, summary: string, show: PayerRouteHandler): RouteDefinition => payerRoute('GET', path, summary, show);

/** A form post of a payer page at `path`, as {@link payerRoute} reads it. */
export const payerFormRoute = (path: string, summary: string, handle: PayerRouteHandler): RouteDefinition => payerRoute('POST', path, summary, handle);
