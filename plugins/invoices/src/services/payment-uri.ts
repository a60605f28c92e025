import { networkKindOf, type ChainAdapter, type ProjectKind } from '@gw/kernel';

/**
 * The chain's payment URI of an invoice for `amountUnits`: at creation the invoiced amount (the
 * stored `payment_uri`), on the checkout page what is still due after a partial payment. One
 * builder, so both carry the same network, token contract, memo (the payment token, which
 * matching reads on chains with memos) and payment reference (chains with payment references).
 */
export function invoicePaymentUri(
  adapter: ChainAdapter,
  invoice: { readonly coin: string; readonly address: string; readonly payment_token: string | null; readonly payment_reference?: string | null | undefined },
  kind: ProjectKind,
  amountUnits: bigint,
): string {
  return adapter.paymentUri({
    coin: invoice.coin,
    network: networkKindOf(kind),
    sandbox: kind === 'sandbox',
    address: invoice.address,
    amountUnits,
    ...(adapter.definition.capabilities.supportsMemo && invoice.payment_token ? { memo: invoice.payment_token } : {}),
    ...(invoice.payment_reference ? { reference: invoice.payment_reference } : {}),
  });
}
