import { defineRoute, type ProjectPrincipal, type RouteDefinition, type RouteInput, withDeps } from '@gw/kernel';
import Type from 'typebox';
import { GREENFIELD_ROUTE, greenfieldActor, greenfieldPath } from '../credentials/greenfield-route.js';
import { operatorProject, principalOf, requireStore, type BtcpayPolicy } from '../credentials/permissions.js';
import { btcpayErrors } from '../errors.js';
import type { BtcpayInvoices } from './btcpay-invoices.js';
import { parseListQuery } from './list-query.js';
import { validationFailed } from './validation-issues.js';

type Input = RouteInput<unknown, unknown, unknown>;

/** A body of BTCPay's shape, read by the handler itself so that every refusal answers as BTCPay's 422 list. */
const JSON_BODY = Type.Unknown();

/** The audit actor of the call. */
const actorOf = (input: Input) => greenfieldActor(input.auth, input.requestId);

/** Where an invoice route finds its store: the path's `storeId`, or (BTCPay's store-less paths) the invoice's own store. */
type StoreOf = (input: Input, policy: BtcpayPolicy, write: boolean) => Promise<ProjectPrincipal>;

/**
 * The invoices of the Greenfield API under the plugin's prefix: create, list, get, update the
 * metadata, archive and unarchive, payment methods, mark status. Each operation is served at
 * BTCPay's store path (`/api/v1/stores/{storeId}/invoices/{invoiceId}`, which BTCPay's client
 * calls) and, for one invoice, at the store-less path of BTCPay's newer document
 * (`/api/v1/invoices/{invoiceId}`: the store is the invoice's). The key needs BTCPay's permission
 * on the store, as BTCPay's document names it per operation.
 */
export const invoiceRoutes = withDeps(['btcpayConfig', 'btcpayInvoices'], (deps): RouteDefinition[] => {
  const prefix = deps.btcpayConfig.pathPrefix;
  const invoices = (): BtcpayInvoices => deps.btcpayInvoices;
  const param = (input: Input, name: string): string => (input.params as Record<string, string>)[name] ?? '';

  const byStorePath: StoreOf = (input, policy, write) => requireStore(principalOf(input.ctx), param(input, 'storeId'), policy, { write });
  const byInvoice: StoreOf = async (input, policy, write) => {
    const caller = principalOf(input.ctx);
    const project = await operatorProject(caller, await invoices().projectOf(param(input, 'invoiceId')), btcpayErrors.btcpay_invoice_not_found);
    return requireStore(caller, project.id, policy, { write });
  };

  const oneInvoice = (base: string, storeOf: StoreOf, label: string): RouteDefinition[] => [
    defineRoute({
      method: 'GET',
      path: base,
      summary: `BTCPay Greenfield: get an invoice (a checkout session)${label}.`,
      ...GREENFIELD_ROUTE,
      errors: ['btcpay_missing_permission', 'btcpay_invoice_not_found'],
      handler: async (input) => {
        const project = await storeOf(input, 'btcpay.store.canviewinvoices', false);
        return { body: await invoices().get(project.id, param(input, 'invoiceId')) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: base,
      summary: `BTCPay Greenfield: replace an invoice's metadata${label}.`,
      ...GREENFIELD_ROUTE,
      body: JSON_BODY,
      errors: ['btcpay_missing_permission', 'btcpay_invoice_not_found', 'btcpay_validation_failed'],
      handler: async (input) => {
        const project = await storeOf(input, 'btcpay.store.canmodifyinvoices', true);
        return { body: await invoices().updateMetadata(project.id, param(input, 'invoiceId'), input.body, actorOf(input)) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: base,
      summary: `BTCPay Greenfield: archive an invoice (it leaves the store's list)${label}.`,
      ...GREENFIELD_ROUTE,
      errors: ['btcpay_missing_permission', 'btcpay_invoice_not_found'],
      handler: async (input) => {
        const project = await storeOf(input, 'btcpay.store.canmodifyinvoices', true);
        await invoices().archive(project.id, param(input, 'invoiceId'), actorOf(input));
        // BTCPay answers an archive with 200 and no body.
        return { status: 200, body: '' };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/unarchive`,
      summary: `BTCPay Greenfield: unarchive an invoice${label}.`,
      ...GREENFIELD_ROUTE,
      errors: ['btcpay_missing_permission', 'btcpay_invoice_not_found'],
      handler: async (input) => {
        const project = await storeOf(input, 'btcpay.store.canmodifyinvoices', true);
        return { body: await invoices().unarchive(project.id, param(input, 'invoiceId'), actorOf(input)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/payment-methods`,
      summary: `BTCPay Greenfield: an invoice's payment methods, one per coin the payer may pick${label}.`,
      ...GREENFIELD_ROUTE,
      errors: ['btcpay_missing_permission', 'btcpay_invoice_not_found', 'btcpay_validation_failed'],
      handler: async (input) => {
        const project = await storeOf(input, 'btcpay.store.canviewinvoices', false);
        const query = input.ctx.query;
        const flag = (name: string, fallback: boolean): boolean => {
          const value = [query[name]].flat().at(-1)?.toLowerCase();
          if (value === undefined || value === '') return fallback;
          if (value !== 'true' && value !== 'false')
            throw validationFailed([{ path: name, message: `The value '${value.slice(0, 40)}' is not valid for ${name}.` }]);
          return value === 'true';
        };
        const onlyAccounted = flag('onlyAccountedPayments', true);
        // Nothing sensitive is ever answered here, but BTCPay asks for the store's settings permission all the same.
        if (flag('includeSensitive', false)) await storeOf(input, 'btcpay.store.canmodifystoresettings', false);
        return { body: await invoices().paymentMethods(project.id, param(input, 'invoiceId'), onlyAccounted) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/payment-methods/:paymentMethodId/activate`,
      summary: `BTCPay Greenfield: activate a payment method (refused: the payer activates a coin by picking it on the checkout page)${label}.`,
      ...GREENFIELD_ROUTE,
      errors: ['btcpay_missing_permission', 'btcpay_invoice_not_found', 'btcpay_validation_failed'],
      handler: async (input) => {
        const project = await storeOf(input, 'btcpay.store.canviewinvoices', false);
        await invoices().get(project.id, param(input, 'invoiceId'));
        // As BTCPay refuses a payment method it cannot activate: 422 on `paymentMethod`.
        throw validationFailed([
          { path: 'paymentMethod', message: 'Payment methods are activated by the payer: the checkout page creates the payment of the coin the payer picks.' },
        ]);
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${base}/status`,
      summary: `BTCPay Greenfield: mark an invoice Invalid or Settled${label}.`,
      description:
        'As BTCPay allows in the invoice’s state (its availableStatusesForManualMarking). Invalid ends an open checkout session (its unpaid invoice cancelled) unless a payment to it is under way; the mark holds either way.',
      ...GREENFIELD_ROUTE,
      body: JSON_BODY,
      errors: ['btcpay_missing_permission', 'btcpay_invoice_not_found', 'btcpay_validation_failed'],
      handler: async (input) => {
        const project = await storeOf(input, 'btcpay.store.canmodifyinvoices', true);
        return { body: await invoices().mark(project, param(input, 'invoiceId'), input.body, actorOf(input)) };
      },
    }),
  ];

  const storeInvoices = greenfieldPath(prefix, '/api/v1/stores/:storeId/invoices');
  return [
    defineRoute({
      method: 'POST',
      path: storeInvoices,
      summary: 'BTCPay Greenfield: create an invoice, which is a checkout session (the payer picks the coin on its page).',
      description:
        'amount and currency (fiat, or a coin) are the session’s price; metadata (orderId, buyerEmail, itemDesc, …) and the checkout options are kept and answered back; checkout.paymentMethods are the coins the payer may pick, checkout.expirationMinutes the session’s lifetime (clamped to 5 minutes … 7 days), checkout.redirectURL its return URL. Refusals answer as BTCPay’s 422 list, and nothing is written.',
      ...GREENFIELD_ROUTE,
      body: JSON_BODY,
      errors: ['btcpay_missing_permission', 'btcpay_validation_failed'],
      handler: async (input) => {
        const project = await byStorePath(input, 'btcpay.store.cancreateinvoice', true);
        return { body: await invoices().create(project, input.body, actorOf(input)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: storeInvoices,
      summary: 'BTCPay Greenfield: list the store’s invoices, newest first (orderId, status, textSearch, startDate, endDate, skip, take, includeArchived).',
      ...GREENFIELD_ROUTE,
      errors: ['btcpay_missing_permission', 'btcpay_validation_failed'],
      handler: async (input) => {
        const project = await byStorePath(input, 'btcpay.store.canviewinvoices', false);
        const parsed = parseListQuery(input.ctx.query);
        if ('issues' in parsed) throw validationFailed(parsed.issues);
        return { body: await invoices().list(project.id, parsed.query) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: greenfieldPath(prefix, '/i/:invoiceId'),
      summary: 'BTCPay’s public checkout of an invoice: a redirect to its checkout link (where shop plugins send a returning payer).',
      auth: 'none',
      hidden: true,
      tags: ['btcpay'],
      errors: ['btcpay_invoice_not_found'],
      handler: async (input) => {
        const link = await invoices().checkoutLink(param(input, 'invoiceId'));
        if (link === undefined) throw btcpayErrors.btcpay_invoice_not_found();
        return { status: 302, headers: { Location: link, 'Cache-Control': 'no-store' }, body: '' };
      },
    }),
    ...oneInvoice(`${storeInvoices}/:invoiceId`, byStorePath, ''),
    ...oneInvoice(greenfieldPath(prefix, '/api/v1/invoices/:invoiceId'), byInvoice, ' (its store found from the invoice)'),
  ];
});
