import type { NetworkKind } from '@gw/chain-api';
import { formatTonAddress } from '../derive.js';
import { encodeStepData } from './ton-step-data.js';
import type { TonPlanContext } from './plan-context.js';
import { stateInitBoc, v5r1SigningPayload, v5r1Wallet, type WalletAction } from './v5r1-request.js';
import type { WalletState } from './wallet-states.js';

/** The signed-external part of a step: its `unsigned` and `nonce`, for one request of subwallet `subwallet`. */
async function externalStepPayload(args: {
  readonly publicKey: Buffer;
  readonly network: NetworkKind;
  readonly subwallet: number;
  readonly seqno: number;
  /** Carry the StateInit: the wallet is not deployed yet and this is its first external. */
  readonly deploy: boolean;
  readonly validUntil: number;
  readonly actions: readonly WalletAction[];
  /** A jetton transfer's master and the subwallet's jetton wallet under it, stated for the signer. */
  readonly jetton?: { readonly master: string; readonly wallet: string };
}): Promise<{ unsigned: { format: 'ton-external'; data: string }; nonce: bigint }> {
  const wallet = v5r1Wallet(args.publicKey, args.network, args.subwallet);
  const payload = await v5r1SigningPayload(wallet, args.seqno, args.validUntil, args.actions);
  // The wallet id is the payload's second field (after the 32-bit op).
  const walletId = payload.beginParse().skip(32).loadInt(32);
  const data = encodeStepData({
    wallet: formatTonAddress(wallet.address, args.network),
    subwallet: args.subwallet,
    wallet_id: walletId,
    public_key: args.publicKey.toString('hex'),
    seqno: args.seqno,
    valid_until: args.validUntil,
    state_init: args.deploy ? stateInitBoc(wallet.init) : null,
    payload: payload.toBoc().toString('base64'),
    ...(args.jetton ? { jetton_master: args.jetton.master, jetton_wallet: args.jetton.wallet } : {}),
  });
  return { unsigned: { format: 'ton-external', data }, nonce: BigInt(args.seqno) };
}

/**
 * The signed-external part of the `k`-th request (0: the first) a subwallet sends in a plan: its
 * seqno counted on from the wallet's, the StateInit carried by the first request of a wallet not
 * deployed yet, valid until the plan's deadline.
 */
export function planRequest(
  ctx: TonPlanContext,
  wallet: { readonly subwallet: number; readonly state: WalletState },
  k: number,
  actions: readonly WalletAction[],
  jetton?: { readonly master: string; readonly wallet: string },
): ReturnType<typeof externalStepPayload> {
  return externalStepPayload({
    publicKey: ctx.publicKey,
    network: ctx.network,
    subwallet: wallet.subwallet,
    seqno: wallet.state.seqno + k,
    deploy: !wallet.state.deployed && k === 0,
    validUntil: ctx.validUntil,
    actions,
    ...(jetton ? { jetton } : {}),
  });
}
