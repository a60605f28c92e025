import { getBytes } from 'ethers';
import bs58check from 'bs58check';
import { receiveChainOf } from '@gw/chain-evm';

/** SLIP-44 coin type of TRON. */
export const TRON_COIN_TYPE = 195;
/** First byte of every TRON address (mainnet and testnets alike). */
export const TRON_ADDRESS_PREFIX = 0x41;

/** Converts a 0x EVM-style address (keccak of the public key) to a base58check T-address. */
export function tronAddressFromHex(hexAddress: string): string {
  const body = getBytes(hexAddress);
  const payload = new Uint8Array(21);
  payload[0] = TRON_ADDRESS_PREFIX;
  payload.set(body, 1);
  return bs58check.encode(payload);
}

/** True for a base58check T-address with the 0x41 prefix and a 20-byte body. */
export function isTronAddress(address: string): boolean {
  if (typeof address !== 'string' || address.length !== 34 || !address.startsWith('T')) return false;
  const payload = bs58check.decodeUnsafe(address);
  return payload !== undefined && payload.length === 21 && payload[0] === TRON_ADDRESS_PREFIX;
}

/** T-address and path of receive index `index` (m/44'/195'/account'/0/index). Pure. */
export function deriveTronAddress(canonical: string, index: number): { address: string; path: string } {
  const { chain, account } = receiveChainOf(canonical);
  return {
    address: tronAddressFromHex(chain.deriveChild(index).address),
    path: `m/44'/${TRON_COIN_TYPE}'/${account}'/0/${index}`,
  };
}
