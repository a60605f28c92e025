import { coreErrors, defineRoute, type ProjectPrincipal, type RouteDefinition } from '@gw/kernel';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import Type from 'typebox';
import type { BtcpayConfig } from '../config.js';
import { btcpayErrors } from '../errors.js';
import { GREENFIELD_ROUTE, greenfieldPath } from './greenfield-route.js';
import { principalOf, reachableStores, requirePermission, requireStore, type BtcpayCaller } from './permissions.js';
import { storeData } from './store-data.js';
import type { StorePaymentMethod, StorePaymentMethods } from './store-payment-methods.js';

const VIEW = 'btcpay.store.canviewstoresettings';
const MODIFY = 'btcpay.store.canmodifystoresettings';
/** How many projects one page of the operator's list reads while building the store list. */
const PAGE = 200;

const PaymentMethodsQuery = Type.Object({
  onlyEnabled: Type.Optional(Type.Boolean({ description: 'Every payment method here is enabled: accepted and ignored.' })),
  includeConfig: Type.Optional(Type.Boolean({ description: 'Add each method’s config (needs btcpay.store.canmodifystoresettings).' })),
});
const PaymentMethodQuery = Type.Object({ includeConfig: PaymentMethodsQuery.properties.includeConfig });

/** A payment method as BTCPay's `GenericPaymentMethodData`; its config is the on-chain one (the verified account key). */
function genericPaymentMethodData(method: StorePaymentMethod, includeConfig: boolean): Record<string, unknown> {
  return {
    enabled: true,
    paymentMethodId: method.paymentMethodId,
    ...(includeConfig ? { config: { derivationScheme: method.accountKey, label: null, accountKeyPath: null } } : {}),
  };
}

/**
 * `GET /api/v1/stores` (the key's operator's active projects it reaches with
 * `canviewstoresettings`), `GET /api/v1/stores/{storeId}`, and the store's payment methods:
 * `GET .../payment-methods`, `GET .../payment-methods/{paymentMethodId}` and the legacy
 * `.../payment-methods/OnChain/{cryptoCode}` BTCPay still rewrites to `{cryptoCode}-CHAIN`.
 */
export function storeRoutes(deps: {
  btcpayConfig: BtcpayConfig;
  btcpayStorePaymentMethods: StorePaymentMethods;
  tenancyProjects: Pick<ProjectService, 'listForOperator' | 'get'>;
}): RouteDefinition[] {
  const path = (p: `/${string}`) => greenfieldPath(deps.btcpayConfig.pathPrefix, p);
  const methods = deps.btcpayStorePaymentMethods;

  const store = async (project: ProjectPrincipal) => {
    const view = await deps.tenancyProjects.get(project.id);
    const [first] = await methods.of(project);
    return storeData(view, first?.paymentMethodId ?? null);
  };

  const oneMethod = async (caller: BtcpayCaller, storeId: string, paymentMethodId: string, includeConfig: boolean | undefined) => {
    const project = await requireStore(caller, storeId, VIEW);
    if (includeConfig) await requireStore(caller, storeId, MODIFY);
    const coin = methods.coinOf(paymentMethodId);
    const found = coin === undefined ? undefined : (await methods.of(project)).find((method) => method.coin === coin);
    if (!found) throw btcpayErrors.btcpay_payment_method_not_found({ message: 'The payment method is not found' });
    return { body: genericPaymentMethodData(found, includeConfig === true) };
  };

  return [
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'GET',
      path: path('/api/v1/stores'),
      summary: 'BTCPay Greenfield: the stores (projects) the key reaches',
      handler: async ({ ctx }) => {
        const caller = principalOf(ctx);
        requirePermission(caller, VIEW);
        const reach = reachableStores(caller.permissions, VIEW);
        const stores: Record<string, unknown>[] = [];
        for (let after: string | undefined; ;) {
          const page = await deps.tenancyProjects.listForOperator(caller.operatorId, { limit: PAGE, ...(after ? { after } : {}) });
          for (const project of page) {
            if (project.status !== 'active' || (reach !== 'all' && !reach.has(project.id))) continue;
            const [first] = await methods.of(project);
            stores.push(storeData(project, first?.paymentMethodId ?? null));
          }
          if (page.length < PAGE) break;
          after = page[page.length - 1]!.id;
        }
        return { body: stores };
      },
    }),
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'GET',
      path: path('/api/v1/stores/:storeId'),
      summary: 'BTCPay Greenfield: one store (project)',
      handler: async ({ ctx, params }) => {
        const caller = principalOf(ctx);
        const { storeId } = params as { storeId: string };
        return { body: await store(await requireStore(caller, storeId, VIEW)) };
      },
    }),
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'GET',
      path: path('/api/v1/stores/:storeId/payment-methods'),
      query: PaymentMethodsQuery,
      summary: 'BTCPay Greenfield: a store’s payment methods (its coins with a verified wallet)',
      handler: async ({ ctx, params, query }) => {
        const caller = principalOf(ctx);
        const { storeId } = params as { storeId: string };
        const project = await requireStore(caller, storeId, VIEW);
        if (query.includeConfig) await requireStore(caller, storeId, MODIFY);
        return { body: (await methods.of(project)).map((method) => genericPaymentMethodData(method, query.includeConfig === true)) };
      },
    }),
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'GET',
      path: path('/api/v1/stores/:storeId/payment-methods/:paymentMethodId'),
      query: PaymentMethodQuery,
      summary: 'BTCPay Greenfield: one payment method of a store',
      handler: async ({ ctx, params, query }) => {
        const { storeId, paymentMethodId } = params as { storeId: string; paymentMethodId: string };
        return oneMethod(principalOf(ctx), storeId, paymentMethodId, query.includeConfig);
      },
    }),
    defineRoute({
      ...GREENFIELD_ROUTE,
      method: 'GET',
      path: path('/api/v1/stores/:storeId/payment-methods/:paymentType/:cryptoCode'),
      query: PaymentMethodQuery,
      summary: 'BTCPay Greenfield: one on-chain payment method of a store, by its legacy path',
      handler: async ({ ctx, params, query }) => {
        const { storeId, paymentType, cryptoCode } = params as { storeId: string; paymentType: string; cryptoCode: string };
        if (paymentType.toLowerCase() !== 'onchain') throw coreErrors.not_found();
        return oneMethod(principalOf(ctx), storeId, `${cryptoCode}-CHAIN`, query.includeConfig);
      },
    }),
  ];
}
