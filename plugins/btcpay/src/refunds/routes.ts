import { defineRoute, type RouteDefinition, type RouteInput } from '@gw/kernel';
import { Type } from 'typebox';
import type { BtcpayConfig } from '../config.js';
import { GREENFIELD_ROUTE, greenfieldActor, greenfieldPath } from '../credentials/greenfield-route.js';
import { operatorProject, principalOf, requirePermission, requireStore } from '../credentials/permissions.js';
import { btcpayErrors } from '../errors.js';
import { projectOfInvoice } from '../invoices/invoice-rows.js';
import { validationFailed } from '../invoices/validation-issues.js';
import type { PullPayments } from './pull-payments.js';
import { parseCreatePullPaymentRequest, parseRefundInvoiceRequest, RequestProblems } from './refund-request.js';
import type { Knex } from 'knex';

/** Any JSON: the handlers read BTCPay's bodies themselves, to answer BTCPay's 422 list. */
const AnyBody = Type.Unknown();

/** The audit actor of a Greenfield write. */
const actorOf = (input: RouteInput<unknown, unknown, unknown>) => greenfieldActor(input.auth, input.requestId);

/** BTCPay's public reads of a pull payment: no key, and no more in this gateway's own document than the other Greenfield calls. */
const PUBLIC_ROUTE = { ...GREENFIELD_ROUTE, auth: 'none' } as const;

/** A body checked by `parse`, its problems as BTCPay's 422 list. */
function parsed<T>(parse: (body: unknown) => T, body: unknown): T {
  try {
    return parse(body);
  } catch (error) {
    if (error instanceof RequestProblems) throw validationFailed(error.problems);
    throw error;
  }
}

/** A query flag as ASP.NET binds a `bool`: `true`/`false` in any case; absent is false. */
function flag(value: unknown): boolean {
  return typeof value === 'string' && value.toLowerCase() === 'true';
}

/**
 * The refund and pull payment calls of the Greenfield API under `config.pathPrefix`: the invoice
 * refund (store-scoped and store-less, as BTCPay routes both), a store's pull payments (create, as
 * BTCPay's WooCommerce plugin refunds; list; archive), and the public reads of a pull payment and
 * its payouts by the pull payment's id.
 */
export function refundRoutes(deps: { btcpayConfig: BtcpayConfig; btcpayPullPayments: PullPayments; db: Knex }): RouteDefinition[] {
  const base = greenfieldPath(deps.btcpayConfig.pathPrefix, '/api/v1');
  const pulls = () => deps.btcpayPullPayments;
  const refund = async (input: RouteInput<unknown, unknown, unknown>, storeId: string, invoiceId: string) => {
    const caller = principalOf(input.ctx);
    const project = await requireStore(caller, storeId, 'btcpay.store.cancreatenonapprovedpullpayments', { write: true });
    const request = parsed(parseRefundInvoiceRequest, input.body);
    return { body: await pulls().refundInvoice(project.id, invoiceId, request, actorOf(input)) };
  };
  const archive = async (input: RouteInput<unknown, unknown, unknown>, storeId: string, pullPaymentId: string) => {
    const project = await requireStore(principalOf(input.ctx), storeId, 'btcpay.store.canarchivepullpayments', { write: true });
    await pulls().archive(project.id, pullPaymentId, actorOf(input));
    // BTCPay answers an archive with 200 and no body.
    return { status: 200, body: '' };
  };
  return [
    defineRoute({
      method: 'POST',
      path: `${base}/stores/:storeId/invoices/:invoiceId/refund`,
      summary: 'Greenfield: refund an invoice (a refund of its paid invoice, answered as a pull payment whose viewLink is the claim page).',
      ...GREENFIELD_ROUTE,
      params: Type.Object({ storeId: Type.String(), invoiceId: Type.String() }),
      body: AnyBody,
      handler: (input) => refund(input, input.params.storeId, input.params.invoiceId),
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/invoices/:invoiceId/refund`,
      summary: 'Greenfield: refund an invoice, its store found from the invoice.',
      ...GREENFIELD_ROUTE,
      params: Type.Object({ invoiceId: Type.String() }),
      body: AnyBody,
      handler: async (input) => {
        const caller = principalOf(input.ctx);
        const project = await operatorProject(caller, await projectOfInvoice(deps.db, input.params.invoiceId), btcpayErrors.btcpay_invoice_not_found);
        return refund(input, project.id, input.params.invoiceId);
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/stores/:storeId/pull-payments`,
      summary: "Greenfield: create a pull payment, paid as the refund of the store's invoice it names (BTCPay's WooCommerce plugin refunds so).",
      ...GREENFIELD_ROUTE,
      params: Type.Object({ storeId: Type.String() }),
      body: AnyBody,
      handler: async (input) => {
        const caller = principalOf(input.ctx);
        const project = await requireStore(caller, input.params.storeId, 'btcpay.store.cancreatenonapprovedpullpayments', { write: true });
        const request = parsed(parseCreatePullPaymentRequest, input.body);
        if (request.autoApproveClaims) await requireStore(caller, input.params.storeId, 'btcpay.store.cancreatepullpayments', { write: true });
        return { body: await pulls().createForInvoiceOf(project.id, request, actorOf(input)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/stores/:storeId/pull-payments`,
      summary: "Greenfield: the store's pull payments (its refunds made through this API), newest first.",
      ...GREENFIELD_ROUTE,
      params: Type.Object({ storeId: Type.String() }),
      handler: async (input) => {
        const project = await requireStore(principalOf(input.ctx), input.params.storeId, 'btcpay.store.canviewpullpayments');
        return { body: await pulls().ofStore(project.id, flag(input.ctx.query['includeArchived'])) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/stores/:storeId/pull-payments/:pullPaymentId`,
      summary: 'Greenfield: archive a pull payment (cancels its refund, which must not be approved yet).',
      ...GREENFIELD_ROUTE,
      params: Type.Object({ storeId: Type.String(), pullPaymentId: Type.String() }),
      handler: (input) => archive(input, input.params.storeId, input.params.pullPaymentId),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${base}/pull-payments/:pullPaymentId`,
      summary: 'Greenfield: archive a pull payment, its store found from the pull payment.',
      ...GREENFIELD_ROUTE,
      params: Type.Object({ pullPaymentId: Type.String() }),
      handler: async (input) => {
        const caller = principalOf(input.ctx);
        requirePermission(caller, 'btcpay.store.canarchivepullpayments');
        const project = await operatorProject(caller, await pulls().storeOf(input.params.pullPaymentId), btcpayErrors.btcpay_pull_payment_not_found);
        return archive(input, project.id, input.params.pullPaymentId);
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/pull-payments/:pullPaymentId`,
      summary: 'Greenfield: a pull payment, to whoever holds its id (public, as in BTCPay).',
      ...PUBLIC_ROUTE,
      params: Type.Object({ pullPaymentId: Type.String() }),
      handler: async ({ params }) => ({ body: await pulls().get(params.pullPaymentId) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/pull-payments/:pullPaymentId/payouts`,
      summary: "Greenfield: a pull payment's payouts: its refund once the payer claimed it (public, as in BTCPay).",
      ...PUBLIC_ROUTE,
      params: Type.Object({ pullPaymentId: Type.String() }),
      handler: async ({ params, ctx }) => ({ body: await pulls().payouts(params.pullPaymentId, flag(ctx.query['includeCancelled'])) }),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/pull-payments/:pullPaymentId/payouts/:payoutId`,
      summary: 'Greenfield: one payout of a pull payment (public, as in BTCPay).',
      ...PUBLIC_ROUTE,
      params: Type.Object({ pullPaymentId: Type.String(), payoutId: Type.String() }),
      handler: async ({ params }) => ({ body: await pulls().payout(params.pullPaymentId, params.payoutId) }),
    }),
  ];
}
