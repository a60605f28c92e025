import type { NetworkKind } from '@gw/chain-api';
import { formatTonAddress } from '../derive.js';
import { encodeStepData } from './ton-step-data.js';
import { stateInitBoc, v5r1SigningPayload, v5r1Wallet, type WalletAction } from './v5r1-request.js';

/** The signed-external part of a step: its `unsigned` and `nonce`, for one request of subwallet `subwallet`. */
export async function externalStepPayload(args: {
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
