import {
  CoinIdSchema,
  coreErrors,
  defineMcpTool,
  isAppError,
  mcpArguments,
  ProviderError,
  ULID_PATTERN,
  withDeps,
  type Actor,
  type Deps,
  type McpToolDefinition,
  type ProjectPrincipal,
} from '@gw/kernel';
import type { SessionView } from '@gw/plugin-sessions/contract';
import type { Logger } from 'pino';
import Type from 'typebox';
import { x402Errors } from '../errors.js';
import type { PaymentRequired } from '../protocol/messages.js';
import type { PayerOffer } from '../services/payer-offers.js';

/** The services the x402 MCP tools read. */
export const X402_MCP_TOOLS_DEPS = ['x402Config', 'x402Networks', 'x402PayerOffers', 'sessionsCheckout', 'logger'] as const;
type ToolDeps = Deps<(typeof X402_MCP_TOOLS_DEPS)[number]> & { readonly logger: Logger };

const RequirementsArguments = mcpArguments({
  invoice_id: Type.Optional(Type.String({ pattern: ULID_PATTERN, description: 'The invoice to pay (ULID). Exactly one of invoice_id and session_id.' })),
  session_id: Type.Optional(
    Type.String({ pattern: ULID_PATTERN, description: 'The checkout session to pay (ULID). Exactly one of invoice_id and session_id.' }),
  ),
  coin: Type.Optional(
    CoinIdSchema({
      description:
        "A checkout session only, before any coin is picked: the coin to pay in (an allowed coin x402 can pay), picked as the payer's page picks it. Default: the first allowed coin x402 can pay. A session that has an invoice keeps its coin.",
    }),
  ),
});

/** What `get_x402_requirements` answers. */
export interface X402RequirementsAnswer {
  /** The payer URL to send the payment to (`PAYMENT-SIGNATURE` on a GET): the invoice's checkout URL or the session's page. */
  readonly pay_url: string;
  /** x402's PaymentRequired for the invoice (one `exact` requirement: its coin on its network, payTo its address, the amount due). */
  readonly payment_required: PaymentRequired;
}

/**
 * `get_x402_requirements` (issue 41, "MCP"): an invoice's or checkout session's x402 payment
 * requirements, so an agent holding USDC can pay what another agent or a person invoiced, at the
 * payer URL the answer names. Same offer as the payer URL gives an x402 client.
 */
export const x402McpTools = withDeps([...X402_MCP_TOOLS_DEPS], (deps): McpToolDefinition[] => [
  defineMcpTool({
    name: 'get_x402_requirements',
    title: 'Get x402 payment requirements',
    description:
      "An invoice's or checkout session's x402 payment requirements, for an agent that pays with a signed USDC authorization (x402, scheme exact, EIP-3009). " +
      'Give invoice_id or session_id (exactly one); for a session without an invoice yet, optionally coin (picks it as the payer page does; default the first allowed payable coin). ' +
      'Returns { pay_url, payment_required }: sign an authorization for payment_required.accepts[0] (payTo the invoice’s own deposit address, amount the amount due in base units) ' +
      'and send it base64-encoded as the PAYMENT-SIGNATURE header of a GET to pay_url; the gateway settles it on chain and the invoice turns paid when the transfer is seen.',
    input: RequirementsArguments,
    scope: 'invoices:read',
    access: { projectKind: 'production' },
    // A session without an invoice gets one (a pick), as on the payer's page; a coin is never switched.
    writes: true,
    errors: [
      'validation_error',
      'x402_off',
      'x402_coin_unsupported',
      'x402_nothing_to_pay',
      'invoice_not_found',
      'checkout_session_not_found',
      'checkout_session_closed',
      'checkout_session_payment_in_progress',
      'chain_provider_unavailable',
    ],
    handler: async ({ args, project, actor }): Promise<X402RequirementsAnswer> => {
      if ((args.invoice_id === undefined) === (args.session_id === undefined)) {
        throw coreErrors.validation_error({ message: 'Give exactly one of invoice_id and session_id.', details: { field: 'invoice_id' } });
      }
      if (args.invoice_id !== undefined && args.coin !== undefined) {
        throw coreErrors.validation_error({ message: 'coin picks the coin of a checkout session; an invoice has its coin.', details: { field: 'coin' } });
      }
      if (deps.x402Config.settlement === 'off') throw x402Errors.x402_off();
      try {
        if (args.invoice_id !== undefined) return await answer(deps, project, await deps.x402PayerOffers.invoice(project.id, args.invoice_id));
        return await sessionAnswer(deps, project, args.session_id!, args.coin, actor);
      } catch (error) {
        // The token's EIP-3009 probe asks the chain: its providers failing is the catalogued retryable error.
        if (!isAppError(error) && error instanceof ProviderError) {
          deps.logger.warn({ err: error }, 'x402: requirements could not be read from the chain');
          throw coreErrors.chain_provider_unavailable();
        }
        throw error;
      }
    },
  }),
]);

/**
 * A session's requirements, by the payer URL's rule (`PayerOffers.coinChoice`): those of its
 * current invoice when x402 can pay its coin; before any pick, of `coin` (or the first allowed coin
 * x402 can pay), picked first. A session's coin is never switched here.
 */
async function sessionAnswer(
  deps: ToolDeps,
  project: ProjectPrincipal,
  sessionId: string,
  coin: string | undefined,
  actor: Actor,
): Promise<X402RequirementsAnswer> {
  const session = await deps.sessionsCheckout.get(project.id, sessionId);
  const choice = await deps.x402PayerOffers.coinChoice(session, coin);
  switch (choice.kind) {
    case 'current':
      if (coin !== undefined && coin !== choice.coin) {
        throw coreErrors.validation_error({
          message: `The checkout session already has an invoice in ${choice.coin}: coin picks only before the first pick, and its coin is not switched.`,
          details: { field: 'coin', current_coin: choice.coin },
        });
      }
      return answer(deps, project, await deps.x402PayerOffers.sessionInvoice(session, choice.invoiceId));
    case 'current_unpayable':
      throw x402Errors.x402_coin_unsupported({
        message: `The payer picked ${choice.coin} for this checkout session, which x402 cannot pay here; the session's coin is not switched.`,
        details: { coin: choice.coin },
      });
    case 'asked_unpayable':
      throw x402Errors.x402_coin_unsupported({
        message: (session.allowed_coins as readonly string[]).includes(choice.coin)
          ? `The checkout session allows ${choice.coin}, but x402 cannot pay it here.`
          : `The checkout session does not allow ${choice.coin}.`,
        details: { coin: choice.coin, allowed_coins: session.allowed_coins },
      });
    case 'none':
      if (session.status !== 'open') throw x402Errors.x402_nothing_to_pay({ message: `The checkout session is ${session.status}.` });
      throw x402Errors.x402_coin_unsupported({
        message: 'None of the coins this checkout session allows can be paid with x402 here.',
        details: { allowed_coins: session.allowed_coins },
      });
    case 'pick':
      return answer(deps, project, await deps.x402PayerOffers.pick(tokenOf(session), choice.coin, actor));
  }
}

/** The offer's requirements, or why it has none: a coin x402 cannot pay, or nothing to pay now. */
async function answer(deps: ToolDeps, project: ProjectPrincipal, offer: PayerOffer): Promise<X402RequirementsAnswer> {
  const { invoice, required, resource } = offer;
  if (required && required.accepts.length > 0) return { pay_url: resource.url, payment_required: required };
  if (!(await payable(deps, project, invoice.coin))) throw unsupported(invoice.coin);
  throw x402Errors.x402_nothing_to_pay({ message: `The invoice is ${invoice.status}: it accepts no payment now.`, details: { status: invoice.status } });
}

/** Whether x402 can pay `coin` on the network of the project's kind. */
async function payable(deps: ToolDeps, project: ProjectPrincipal, coin: string): Promise<boolean> {
  return (await deps.x402Networks.assetFor(coin, project.kind)) !== undefined;
}

function unsupported(coin: string) {
  return x402Errors.x402_coin_unsupported({ details: { coin } });
}

/** The page token of a session (`{base_url}/pay/{token}`), what the payer's pick is keyed by. */
function tokenOf(session: SessionView): string {
  return new URL(session.url).pathname.split('/').at(-1)!;
}
