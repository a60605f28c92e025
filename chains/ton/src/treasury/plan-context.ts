import { type AccountSource, fromBaseUnits, type NetworkKind } from '@gw/chain-api';
import type { Address } from '@ton/core';
import type { WalletState } from './wallet-states.js';

/** What both sweep builders work from: the one key, the network, the destination and the validity window. */
export interface TonPlanContext {
  readonly network: NetworkKind;
  /** The ed25519 public key behind every subwallet of the plan. */
  readonly publicKey: Buffer;
  readonly destination: Address;
  /** The destination as the request spelled it (shown in steps and the plan). */
  readonly destinationText: string;
  /** Bounce flag for messages to the destination: the friendly form's own flag (raw forms bounce). */
  readonly destinationBounce: boolean;
  readonly validUntil: number;
  readonly nativeCoin: string;
}

/** A source with its subwallet number and what it holds now. */
export interface PreparedSource {
  readonly source: AccountSource;
  readonly subwallet: number;
  readonly state: WalletState;
}

/** The display path of subwallet `n` (not a key derivation: one key, subwallet number last). */
export const subwalletPath = (n: number): string => `m/44'/607'/0'/${n}'`;

/** Decimal TON for descriptions, trailing zeros trimmed. */
export function tonText(nanotons: bigint): string {
  return `${fromBaseUnits(nanotons, 9)} TON`;
}
