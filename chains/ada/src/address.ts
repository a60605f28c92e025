import CSL from '@emurgo/cardano-serialization-lib-nodejs';

const SHELLEY_PREFIX = /^addr(?:_test)?1/i;

/**
 * A receiving address in the exact text form `deriveAdaAddress` produces: Shelley addresses are
 * decoded and re-encoded by CSL (`Address.to_bech32()`, the call derivation ends with), so matching
 * against derived pool addresses is plain string equality. Byron addresses (`Ae2…`, `DdzFF…`) are
 * returned as given: the gateway never derives one, so they can only ever be unwatched.
 *
 * Throws when a Shelley-looking address does not decode: a provider that sends one is broken.
 */
export function normaliseAdaAddress(address: string): string {
  if (!SHELLEY_PREFIX.test(address)) return address;
  let parsed: CSL.Address;
  try {
    parsed = CSL.Address.from_bech32(address);
  } catch {
    throw new Error(`not a valid bech32 Shelley address: ${address.slice(0, 120)}`);
  }
  try {
    return parsed.to_bech32();
  } finally {
    parsed.free();
  }
}
