import type { Context } from 'koa';
import { extensionPoint, type Extensions } from '../extensions/extension-point.js';
import type { RouteResult } from './route.js';

/** What a payer URL stands for: an invoice (`/checkout/:token`) or a checkout session (`/pay/:token`). */
export type Payable =
  | { readonly kind: 'invoice'; readonly projectId: string; readonly invoiceId: string }
  | { readonly kind: 'session'; readonly projectId: string; readonly sessionId: string; readonly token: string };

/**
 * An answer of a payer URL to a machine client that pays over HTTP (issue 41: x402), contributed by
 * the plugin that speaks the protocol. The routes serving payer pages (the checkout's invoice page,
 * the sessions' session page) ask each responder in turn before they render HTML; the first that
 * `claims` the request answers it. They never import the protocol's plugin.
 */
export interface MachinePaymentResponder {
  /** The protocol's name (`x402`), for logs. */
  readonly id: string;
  /**
   * Whether the request is this protocol's: it carries the protocol's payment header, or it does
   * not ask for HTML (a browser's `Accept` names `text/html`) and the payable can be paid this way.
   * Cheap: no database read for a browser's request.
   */
  claims(ctx: Context): boolean;
  /** The answer (402 with requirements, or the settled payment) for the payable behind the URL. */
  answer(ctx: Context, payable: Payable): Promise<RouteResult | undefined>;
}

/** The payer URLs' machine-payment responders (`contribute(MACHINE_PAYMENT_RESPONDERS, …)`). */
export const MACHINE_PAYMENT_RESPONDERS = extensionPoint<MachinePaymentResponder>('http.machine-payment-responders');

/**
 * How a payer URL's route asks the responders, after it found its payable and before it renders
 * HTML: the first responder that claims the request answers; undefined (no claim, or the claiming
 * responder cannot serve this payable) means the page as before.
 */
export async function machinePaymentAnswer(extensions: Extensions, ctx: Context, payable: Payable): Promise<RouteResult | undefined> {
  const responder = extensions.of(MACHINE_PAYMENT_RESPONDERS).find(({ item }) => item.claims(ctx))?.item;
  return responder?.answer(ctx, payable);
}
