import { chainErrors, type NetworkKind } from '@gw/chain-api';
import { Address } from '@ton/core';
import { WalletContractV4, WalletContractV5R1 } from '@ton/ton';

/** TON global network ids used in the V5R1 wallet id (-239 mainnet, -3 testnet). */
export const TON_GLOBAL_ID: Readonly<Record<NetworkKind, number>> = { mainnet: -239, testnet: -3 };
/** The V5R1 client wallet id stores the subwallet number in 15 bits. */
export const TON_MAX_SUBWALLET = 0x7fff;

/** Parses a 32-byte ed25519 public key given as 64 hex chars or (url-safe) base64; undefined otherwise. */
export function parseTonPublicKey(input: string): Buffer | undefined {
  if (/^(0x)?[0-9a-fA-F]{64}$/.test(input)) return Buffer.from(input.replace(/^0x/, ''), 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(input)) {
    const bytes = Buffer.from(input.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes;
  }
  return undefined;
}

/** The V5R1 wallet contract for `publicKey` with subwallet number `index` on `network`. */
export function tonWalletAddress(publicKey: Buffer, network: NetworkKind, index: number): Address {
  if (!Number.isInteger(index) || index < 0 || index > TON_MAX_SUBWALLET) {
    throw chainErrors.validation_error({
      message: `TON V5R1 subwallet numbers are 15-bit: index must be in [0, ${TON_MAX_SUBWALLET}]; got ${index}.`,
    });
  }
  return WalletContractV5R1.create({
    walletId: {
      networkGlobalId: TON_GLOBAL_ID[network],
      context: { walletVersion: 'v5r1', workchain: 0, subwalletNumber: index },
    },
    publicKey,
  }).address;
}

/**
 * The wallets a person's TON app (Tonkeeper, MyTonWallet, Tonhub) deploys for `publicKey` on
 * `network`: V4R2 (default subwallet 698983191) and V5R1 (subwallet 0), both on workchain 0.
 */
export function tonPersonalWallets(publicKey: Buffer, network: NetworkKind): readonly Address[] {
  return [WalletContractV4.create({ workchain: 0, publicKey }).address, tonWalletAddress(publicKey, network, 0)];
}

/** User-friendly, url-safe, non-bounceable form; testOnly flag set on testnet. */
export function formatTonAddress(address: Address, network: NetworkKind): string {
  return address.toString({ urlSafe: true, bounceable: false, testOnly: network === 'testnet' });
}

/**
 * Address of receive index `index` and its display path. The path is not a key derivation: the
 * operator's single ed25519 key (conventionally m/44'/607'/0') is used as-is, and the last component
 * is the V5R1 subwallet number, written hardened as ed25519 (SLIP-10) paths always are.
 */
export function deriveTonAddress(publicKeyHex: string, network: NetworkKind, index: number): { address: string; path: string } {
  const address = tonWalletAddress(Buffer.from(publicKeyHex, 'hex'), network, index);
  return { address: formatTonAddress(address, network), path: `m/44'/607'/0'/${index}'` };
}
