import type { AccountStep } from '@gw/chain-api';
import { planRequest } from './external-step.js';
import { subwalletPath, type PreparedSource, type TonPlanContext } from './plan-context.js';
import type { WalletAction } from './v5r1-request.js';

/**
 * A deposit wallet's one-action request as a step's signing part: the subwallet's key signs an
 * external valid until the plan's deadline, carrying the wallet's StateInit while it is not
 * deployed. `jetton` states a jetton transfer's master and jetton wallet for the signer.
 */
export async function depositRequest(
  ctx: TonPlanContext,
  s: PreparedSource,
  action: WalletAction,
  jetton?: { readonly master: string; readonly wallet: string },
): Promise<Pick<AccountStep, 'signer' | 'kind' | 'unsigned' | 'nonce'>> {
  const external = await planRequest(ctx, s, 0, [action], jetton);
  return {
    signer: { kind: 'deposit', address: s.source.address, key: s.source.key, index: s.source.index, path: subwalletPath(s.subwallet) },
    kind: 'transaction',
    ...external,
  };
}
