import { fromBaseUnits, paymentUriCoin, type ChainDefinition, type PaymentUriInput } from '@gw/chain-api';

/**
 * A Solana Pay transfer request (https://docs.solanapay.com/spec#transfer-request):
 * `solana:<recipient>?amount=<decimal>&spl-token=<mint>&reference=<reference>&label=<label>&message=<message>`.
 * The amount is in the coin's units (SOL, USDC), never lamports; it is left out for 0 (the wallet
 * asks the payer). `spl-token` names the mint for a token. The wallet adds `reference` to the
 * transfer instruction as a read-only account, which is how the watcher finds the payment.
 */
export function solanaPayUri(definition: ChainDefinition, input: PaymentUriInput): string {
  const { coin, contract } = paymentUriCoin(definition, input);
  const params: string[] = [];
  if (input.amountUnits > 0n) params.push(`amount=${fromBaseUnits(input.amountUnits, coin.decimals)}`);
  if (contract !== undefined) params.push(`spl-token=${contract}`);
  if (input.reference !== undefined) params.push(`reference=${encodeURIComponent(input.reference)}`);
  if (input.label !== undefined) params.push(`label=${encodeURIComponent(input.label)}`);
  if (input.message !== undefined) params.push(`message=${encodeURIComponent(input.message)}`);
  return `solana:${input.address}${params.length > 0 ? `?${params.join('&')}` : ''}`;
}
