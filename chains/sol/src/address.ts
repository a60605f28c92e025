import { getAddressEncoder, getBase58Decoder, isAddress } from '@solana/kit';

/**
 * Solana addresses: the base58 text of 32 bytes (an ed25519 public key, or a program-derived
 * address off the curve). Addresses carry no network: the same text is valid on every cluster.
 */

/** Whether `text` is a Solana address (base58, exactly 32 bytes). Never throws. */
export function isSolAddress(text: string): boolean {
  return typeof text === 'string' && text.length >= 32 && text.length <= 44 && isAddress(text);
}

/** The 32 bytes of an address; the caller has checked it with {@link isSolAddress}. */
export function addressBytes(address: string): Uint8Array {
  return new Uint8Array(getAddressEncoder().encode(address as Parameters<ReturnType<typeof getAddressEncoder>['encode']>[0]));
}

/** The base58 text of 32 bytes (a public key). */
export function addressOfBytes(bytes: Uint8Array): string {
  return getBase58Decoder().decode(bytes);
}
