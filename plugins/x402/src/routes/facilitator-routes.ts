import { defineRoute, networkFor, restActor, type ChainRegistry, type ProjectKind, type RouteDefinition } from '@gw/kernel';
import { INVOICE_CREATE_BODY_ERRORS } from '@gw/plugin-invoices/contract';
import type { Static } from 'typebox';
import type { X402Config } from '../config.js';
import { x402Errors } from '../errors.js';
import { X402_VERSION, type PaymentRequirements, type SettleResponse, type SupportedResponse, type VerifyResponse } from '../protocol/messages.js';
import { X402_REASONS, type X402Reason } from '../protocol/reasons.js';
import type { GasWallets } from '../services/gas-wallets.js';
import type { PaymentTarget } from '../services/payment-target.js';
import type { X402Asset, X402Networks } from '../services/x402-networks.js';
import type { X402Offers } from '../services/x402-offers.js';
import type { X402Payments } from '../services/x402-payments.js';
import {
  AssetListSchema,
  FacilitatorRequestSchema,
  PayToBodySchema,
  PayToResponseSchema,
  SettleResponseSchema,
  SupportedResponseSchema,
  VerifyResponseSchema,
} from './facilitator-schemas.js';

/** Where partners point the x402 middleware's `HTTPFacilitatorClient({ url })`. */
export const FACILITATOR_PATH = '/api/v1/x402/facilitator';

/** The services the facilitator routes read. */
export const FACILITATOR_ROUTES_DEPS = ['x402Config', 'x402Networks', 'x402Payments', 'x402Offers', 'x402GasWallets', 'chains'] as const;

interface FacilitatorDeps {
  readonly x402Config: X402Config;
  readonly x402Networks: X402Networks;
  readonly x402Payments: X402Payments;
  readonly x402Offers: X402Offers;
  readonly x402GasWallets: GasWallets;
  readonly chains: ChainRegistry;
}

const COMMON = { auth: 'x402_facilitator', tags: ['x402'] } as const;
const AUTH_ERRORS = ['x402_credential_invalid', 'project_suspended', 'x402_off'] as const;

/** Said on every route: how the credential is made. */
const CREDENTIAL_NOTE =
  'Credential: `Authorization: Bearer x402_<project id>_<base64url HMAC-SHA256(API secret, "x402-facilitator:<project id>")>` (`@gw/client`’s `x402FacilitatorToken`), valid for any live secret of the project’s API key.';

const PROTOCOL_NOTE =
  'A refused payment is HTTP 200 with the protocol’s reason, as x402 facilitators answer; only the credential and the envelope itself are REST errors.';

/**
 * The gateway as an x402 facilitator for a partner's own API (issue 41): `supported`, `assets`,
 * `pay-to`, `verify` and `settle` under {@link FACILITATOR_PATH}, with the project's facilitator
 * token (`x402_facilitator`). Each paid call's `payTo` is a fresh invoice of the project
 * (`pay-to`), so the revenue lands in the operator's addresses with the invoice's webhooks; verify
 * and settle accept only requirements the gateway offered, and settle into that invoice's address.
 */
export function facilitatorRoutes(deps: FacilitatorDeps): RouteDefinition[] {
  const on = () => {
    if (deps.x402Config.settlement === 'off') throw x402Errors.x402_off();
  };

  /**
   * The offered requirement a `verify` or `settle` request names and the invoice it pays into; the
   * protocol's reason when it pays none (another version, no requirement's shape, none offered).
   */
  const offered = async (
    projectId: string,
    request: Static<typeof FacilitatorRequestSchema>,
  ): Promise<{ readonly requirements: PaymentRequirements; readonly target: PaymentTarget } | { readonly refused: X402Reason }> => {
    if (request.x402Version !== X402_VERSION) return { refused: X402_REASONS.version };
    const requirements = requirementsOf(request.paymentRequirements);
    const target = requirements && (await deps.x402Offers.target(projectId, requirements));
    return requirements && target ? { requirements, target } : { refused: X402_REASONS.requirements };
  };

  /** The payable assets on the networks a project of `kind` invoices on (mainnet, or the chain's first testnet). */
  const assetsOf = async (kind: ProjectKind): Promise<X402Asset[]> =>
    (await deps.x402Networks.all()).filter(
      (asset) => deps.chains.has(asset.chain) && networkFor(deps.chains.get(asset.chain).definition, kind).id === asset.network,
    );

  return [
    defineRoute({
      ...COMMON,
      method: 'GET',
      path: `${FACILITATOR_PATH}/supported`,
      summary: 'x402 facilitator: the kinds of payment it verifies and settles for this project.',
      description: `One \`exact\` kind per network of the project’s payable assets; \`signers\` lists the settlement gas wallets. ${CREDENTIAL_NOTE}`,
      responses: { 200: SupportedResponseSchema },
      errors: [...AUTH_ERRORS],
      handler: async ({ auth }) => {
        on();
        const assets = await assetsOf(auth.project!.kind);
        const networks = [...new Set(assets.map((asset) => asset.caip))];
        const signers = new Set<string>();
        if (deps.x402Config.settlement === 'gas_wallet') {
          for (const asset of assets) {
            const address = deps.x402GasWallets.address(asset.chain, asset.network);
            if (address) signers.add(address);
          }
        }
        const body: SupportedResponse = {
          kinds: networks.map((network) => ({ x402Version: X402_VERSION, scheme: 'exact', network })),
          extensions: [],
          signers: { 'eip155:*': [...signers] },
        };
        return { body };
      },
    }),
    defineRoute({
      ...COMMON,
      method: 'GET',
      path: `${FACILITATOR_PATH}/assets`,
      summary: 'x402 facilitator: the tokens a paid route of this project may be priced in.',
      description: `What a route’s \`network\` and \`price\` (\`{ amount, asset, extra }\`) name; \`@gw/client\`’s \`gatewayAsset\` reads it. ${CREDENTIAL_NOTE}`,
      responses: { 200: AssetListSchema },
      errors: [...AUTH_ERRORS],
      handler: async ({ auth }) => {
        on();
        const data = (await assetsOf(auth.project!.kind)).map((asset) => ({
          coin: asset.coin,
          network: asset.caip,
          chain: asset.chain,
          gateway_network: asset.network,
          asset: asset.asset,
          decimals: asset.decimals,
          extra: { name: asset.domain.name, version: asset.domain.version },
        }));
        return { body: { data } };
      },
    }),
    defineRoute({
      ...COMMON,
      method: 'POST',
      path: `${FACILITATOR_PATH}/pay-to`,
      summary: 'x402 facilitator: a fresh payTo for one paid call, an invoice of the project.',
      description:
        'The middleware’s dynamic `payTo` (`@gw/client`’s `gatewayPayTo`) asks it for every unpaid request: an invoice of `amount` in `coin` ' +
        '(external id `x402_<offer id>`, the resource in its metadata) and the requirement to offer. At most `plugins.x402.payToPerMinute` per project. ' +
        CREDENTIAL_NOTE,
      body: PayToBodySchema,
      responses: { 201: PayToResponseSchema },
      access: { write: true },
      errors: [
        ...AUTH_ERRORS,
        'x402_coin_unsupported',
        'rate_limit_exceeded',
        ...INVOICE_CREATE_BODY_ERRORS,
        'wallet_not_bound',
        'xpub_not_verified',
        'pool_exhausted',
      ],
      handler: async ({ auth, body, requestId }) => {
        on();
        const { invoice, requirements } = await deps.x402Offers.create(
          auth.project!,
          {
            coin: body.coin,
            amount: body.amount,
            resource: {
              url: body.resource.url,
              ...(body.resource.description === undefined ? {} : { description: body.resource.description }),
              ...(body.resource.mimeType === undefined ? {} : { mimeType: body.resource.mimeType }),
            },
            source: 'facilitator',
          },
          restActor(auth, requestId),
        );
        return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { invoice_id: invoice.id, requirements } };
      },
    }),
    defineRoute({
      ...COMMON,
      method: 'POST',
      path: `${FACILITATOR_PATH}/verify`,
      summary: 'x402 facilitator: verifies a payment of an offered requirement.',
      description: `${PROTOCOL_NOTE} ${CREDENTIAL_NOTE}`,
      body: FacilitatorRequestSchema,
      responses: { 200: VerifyResponseSchema },
      errors: [...AUTH_ERRORS],
      handler: async ({ auth, body }) => {
        on();
        const paid = await offered(auth.project!.id, body);
        if ('refused' in paid) {
          const refusal: VerifyResponse = { isValid: false, invalidReason: paid.refused, ...payerOf(body.paymentPayload) };
          return { body: refusal };
        }
        return { body: await deps.x402Payments.verify(body.paymentPayload, paid.requirements, paid.target) };
      },
    }),
    defineRoute({
      ...COMMON,
      method: 'POST',
      path: `${FACILITATOR_PATH}/settle`,
      summary: 'x402 facilitator: settles a payment of an offered requirement into its invoice’s address.',
      description: `${PROTOCOL_NOTE} The invoice turns paid when the watchers see the transfer, with its usual webhooks. ${CREDENTIAL_NOTE}`,
      body: FacilitatorRequestSchema,
      responses: { 200: SettleResponseSchema },
      errors: [...AUTH_ERRORS],
      handler: async ({ auth, body }) => {
        on();
        const paid = await offered(auth.project!.id, body);
        if ('refused' in paid) {
          const named = (body.paymentRequirements as Readonly<Record<string, unknown>>)['network'];
          const network = (typeof named === 'string' ? named : '') as SettleResponse['network'];
          const refusal: SettleResponse = { success: false, errorReason: paid.refused, transaction: '', network, ...payerOf(body.paymentPayload) };
          return { body: refusal };
        }
        return { body: await deps.x402Payments.settle(body.paymentPayload, paid.requirements, paid.target) };
      },
    }),
  ];
}

/** The envelope's requirement when it has the shape of one (its values are verification's to judge); undefined otherwise. */
function requirementsOf(envelope: object): PaymentRequirements | undefined {
  const value = envelope as Readonly<Record<string, unknown>>;
  const text = (key: string) => typeof value[key] === 'string';
  const extra = value['extra'];
  const ok =
    text('scheme') &&
    text('network') &&
    text('asset') &&
    text('amount') &&
    text('payTo') &&
    typeof value['maxTimeoutSeconds'] === 'number' &&
    extra !== null &&
    typeof extra === 'object' &&
    !Array.isArray(extra);
  return ok ? (value as unknown as PaymentRequirements) : undefined;
}

/** `payer` of a refusal: the authorization's `from`, when the payload names one. */
function payerOf(payload: object): { payer?: string } {
  const inner = (payload as Readonly<Record<string, unknown>>)['payload'];
  const authorization = inner !== null && typeof inner === 'object' ? (inner as Record<string, unknown>)['authorization'] : undefined;
  const from = authorization !== null && typeof authorization === 'object' ? (authorization as Record<string, unknown>)['from'] : undefined;
  return typeof from === 'string' && from.length <= 64 ? { payer: from } : {};
}
