import {
  CoinIdSchema,
  coreErrors,
  defineMcpTool,
  mcpArguments,
  ULID_PATTERN,
  withDeps,
  type Actor,
  type Deps,
  type McpToolDefinition,
  type ProjectPrincipal,
} from '@gw/kernel';
import type { SessionView } from '@gw/plugin-sessions/contract';
import Type from 'typebox';
import { x402Errors } from '../errors.js';
import type { PaymentRequired } from '../protocol/messages.js';
import type { PayerOffer } from '../services/payer-offers.js';

/** The services the x402 MCP tools read. */
export const X402_MCP_TOOLS_DEPS = ['x402Config', 'x402Networks', 'x402PayerOffers', 'sessionsCheckout'] as const;
type ToolDeps = Deps<(typeof X402_MCP_TOOLS_DEPS)[number]>;

const RequirementsArguments = mcpArguments({
  invoice_id: Type.Optional(Type.String({ pattern: ULID_PATTERN, description: 'The invoice to pay (ULID). Exactly one of invoice_id and session_id.' })),
  session_id: Type.Optional(
    Type.String({ pattern: ULID_PATTERN, description: 'The checkout session to pay (ULID). Exactly one of invoice_id and session_id.' }),
  ),
  coin: Type.Optional(
    CoinIdSchema({
      description:
        "A checkout session only: the coin to pay in, picked as the payer's page picks it (an allowed coin x402 can pay; a previous pick's unpaid invoice is cancelled). Default: the session's current coin, or the first allowed coin x402 can pay.",
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
      'Give invoice_id or session_id (exactly one); for a session, optionally coin (picks it as the payer page does). ' +
      'Returns { pay_url, payment_required }: sign an authorization for payment_required.accepts[0] (payTo the invoice’s own deposit address, amount the amount due in base units) ' +
      'and send it base64-encoded as the PAYMENT-SIGNATURE header of a GET to pay_url; the gateway settles it on chain and the invoice turns paid when the transfer is seen.',
    input: RequirementsArguments,
    scope: 'invoices:read',
    access: { projectKind: 'production' },
    // A session without a current invoice of a payable coin gets one (a pick), as on the payer's page.
    writes: true,
    errors: [
      'validation_error',
      'x402_off',
      'x402_coin_unsupported',
      'x402_nothing_to_pay',
      'invoice_not_found',
      'checkout_session_not_found',
      'coin_not_allowed',
      'checkout_session_closed',
      'checkout_session_payment_in_progress',
    ],
    handler: async ({ args, project, actor }): Promise<X402RequirementsAnswer> => {
      if ((args.invoice_id === undefined) === (args.session_id === undefined)) {
        throw coreErrors.validation_error({ message: 'Give exactly one of invoice_id and session_id.', details: { field: 'invoice_id' } });
      }
      if (args.invoice_id !== undefined && args.coin !== undefined) {
        throw coreErrors.validation_error({ message: 'coin picks the coin of a checkout session; an invoice has its coin.', details: { field: 'coin' } });
      }
      if (deps.x402Config.settlement === 'off') throw x402Errors.x402_off();
      if (args.invoice_id !== undefined) return answer(deps, project, await deps.x402PayerOffers.invoice(project.id, args.invoice_id));
      return sessionAnswer(deps, project, args.session_id!, args.coin, actor);
    },
  }),
]);

/**
 * A session's requirements: those of its current invoice when no other coin is asked for, else
 * of the coin asked for (or, before any pick, the first allowed coin x402 can pay), picked first.
 */
async function sessionAnswer(
  deps: ToolDeps,
  project: ProjectPrincipal,
  sessionId: string,
  coin: string | undefined,
  actor: Actor,
): Promise<X402RequirementsAnswer> {
  const session = await deps.sessionsCheckout.get(project.id, sessionId);
  if (session.invoice_id !== null && (coin === undefined || coin === session.coin)) {
    return answer(deps, project, await deps.x402PayerOffers.sessionInvoice(session, session.invoice_id));
  }
  if (session.status !== 'open') throw x402Errors.x402_nothing_to_pay({ message: `The checkout session is ${session.status}.` });
  const chosen = coin ?? (await deps.x402PayerOffers.firstPayableCoin(session));
  if (chosen === undefined) {
    throw x402Errors.x402_coin_unsupported({
      message: 'None of the coins this checkout session allows can be paid with x402 here.',
      details: { allowed_coins: session.allowed_coins },
    });
  }
  // A coin the session does not allow, but x402 can pay, is the sessions' coin_not_allowed (from the pick).
  if (!(await payable(deps, project, chosen))) throw unsupported(chosen);
  return answer(deps, project, await deps.x402PayerOffers.pick(tokenOf(session), chosen, actor));
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
