import { SendMode, beginCell, storeStateInit, type Cell, type MessageRelaxed, type StateInit } from '@ton/core';
import { WalletContractV5R1 } from '@ton/ton';
import type { NetworkKind } from '@gw/chain-api';
import { TON_GLOBAL_ID } from '../derive.js';

/** The V5R1 wallet of `publicKey` with subwallet number `subwallet`: its address, StateInit and wallet id. */
export function v5r1Wallet(publicKey: Buffer, network: NetworkKind, subwallet: number): WalletContractV5R1 {
  return WalletContractV5R1.create({
    walletId: { networkGlobalId: TON_GLOBAL_ID[network], context: { walletVersion: 'v5r1', workchain: 0, subwalletNumber: subwallet } },
    publicKey,
  });
}

/** One outgoing message of a request and its send mode (V5R1 externals must carry IGNORE_ERRORS; the library adds it). */
export interface WalletAction {
  readonly message: MessageRelaxed;
  readonly mode: SendMode;
}

/**
 * The V5R1 signing payload of an external request: `0x7369676e` (`auth_signed_external`), wallet
 * id, valid_until, seqno and the out-action list. The signature is ed25519 over this cell's hash;
 * the signed body is this cell's bits and refs followed by the 512-bit signature (V5R1 reads its
 * signature from the tail). Built by `@ton/ton`'s own V5R1 serializer, whose signer hook hands out
 * the payload without a key.
 */
export async function v5r1SigningPayload(wallet: WalletContractV5R1, seqno: number, validUntil: number, actions: readonly WalletAction[]): Promise<Cell> {
  if (actions.length === 0 || actions.length > 255) throw new RangeError(`a V5R1 request carries 1 to 255 messages; got ${actions.length}`);
  let payload: Cell | undefined;
  await wallet.createRequest({
    seqno,
    timeout: validUntil,
    authType: 'external',
    actions: actions.map((a) => ({ type: 'sendMsg' as const, mode: a.mode, outMsg: a.message })),
    signer: async (cell: Cell) => {
      payload = cell;
      return Buffer.alloc(64);
    },
  });
  if (!payload) throw new Error('V5R1 serializer did not hand out its signing payload');
  return payload;
}

/** The signed body: the payload's bits and refs, then the signature. */
export function v5r1SignedBody(payload: Cell, signature: Buffer): Cell {
  return beginCell().storeSlice(payload.beginParse()).storeBuffer(signature).endCell();
}

/** StateInit as a BOC (what an undeployed wallet's first external carries). */
export function stateInitBoc(init: StateInit): string {
  return beginCell().store(storeStateInit(init)).endCell().toBoc().toString('base64');
}
