import { createPublicKey, randomBytes, verify } from 'node:crypto';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import {
  assertAddressIndex,
  assertKeyOfChain,
  paymentUriCoin,
  chainErrors,
  fromBaseUnits,
  type AccountKey,
  type AddressSignatureProof,
  type ChainAdapter,
  type ChainAdapterDeps,
  type ChainDefinition,
  type DerivedAddress,
  type NetworkKind,
  type OwnershipProof,
  type PaymentUriInput,
} from '@gw/chain-api';
import { parseDataSignature, parseDottedDataSignature, sigStructure, type ParsedDataSignature } from './cip30-data-signature.js';
import { CARDANO_NETWORK_ID, deriveAdaAddress, parseAdaAccountKey } from './derive.js';
import { AdaTreasury } from './treasury/ada-treasury.js';
import { AdaWatcher } from './watcher.js';

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

function bad(message: string, cause?: unknown): never {
  throw chainErrors.validation_error(cause === undefined ? { message } : { message, cause });
}

/**
 * Whether a parsed CIP-30 DataSignature signs `message` for `address`: the payload (if attached)
 * is the message, the COSE key hashes to the address's payment key hash (a script address has
 * none: false), the protected `address` header is the address, and the Ed25519 signature over the
 * COSE Sig_structure holds.
 */
function verifySignedData(parsed: ParsedDataSignature, message: string, address: CSL.Address): boolean {
  const text = Buffer.from(message, 'utf8');
  if (parsed.payload !== null && !text.equals(parsed.payload)) return false;
  const expectedKeyHash = address.payment_cred()?.to_keyhash()?.to_bytes();
  if (!expectedKeyHash) return false;
  let signerKeyHash: Buffer;
  try {
    signerKeyHash = Buffer.from(CSL.PublicKey.from_bytes(parsed.publicKey).hash().to_bytes());
  } catch (cause) {
    return bad('COSE_Key x is not an Ed25519 public key.', cause);
  }
  if (!signerKeyHash.equals(Buffer.from(expectedKeyHash))) return false;
  if (!Buffer.from(address.to_bytes()).equals(parsed.address)) return false;
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, parsed.publicKey]), format: 'der', type: 'spki' });
  return verify(null, sigStructure(parsed.protectedBytes, parsed.payload ?? text), key, parsed.signature);
}

/**
 * Cardano adapter: CIP-1852 base addresses (payment 0/i, stake 2/0) from an account key, CIP-13
 * `web+cardano:` URIs, CIP-8/CIP-30 `signData` ownership proofs and address signatures, and the treasury (unsigned
 * transactions built with cardano-serialization-lib, verified once signed, submitted through the
 * watcher's providers).
 */
export function createAdaAdapter(_deps: ChainAdapterDeps, definition: ChainDefinition): ChainAdapter {
  const checkKey = (key: AccountKey): void => assertKeyOfChain(definition, key);
  const deriveAddress = (key: AccountKey, index: number): DerivedAddress => {
    checkKey(key);
    assertAddressIndex(definition, index);
    return { index, ...deriveAdaAddress(key.canonical, key.network, index) };
  };

  const isValidAddress = (address: string, network: NetworkKind): boolean => {
    if (typeof address !== 'string' || address.length > 200) return false;
    const prefix = network === 'mainnet' ? 'addr1' : 'addr_test1';
    if (!address.startsWith(prefix)) return false;
    try {
      const parsed = CSL.Address.from_bech32(address);
      const header = parsed.to_bytes()[0]!;
      // Shelley payment address types 0-7 (base, script, pointer, enterprise); not reward addresses.
      return header >> 4 <= 7 && parsed.network_id() === CARDANO_NETWORK_ID[network];
    } catch {
      return false;
    }
  };

  return {
    definition,

    parseAccountKey(input: string, network: NetworkKind): AccountKey {
      const trimmed = input.trim();
      return { chain: definition.id, network, input: trimmed, canonical: parseAdaAccountKey(trimmed) };
    },

    deriveAddress,
    isValidAddress,

    /** CIP-1852 account key 1852'/1815'/0' of a random 24-word entropy, as 64-byte public key hex. */
    generateAccountKey(_network: NetworkKind): string {
      const hardened = (n: number) => 0x80000000 + n;
      const account = CSL.Bip32PrivateKey.from_bip39_entropy(randomBytes(32), new Uint8Array(0))
        .derive(hardened(1852))
        .derive(hardened(1815))
        .derive(hardened(0));
      return Buffer.from(account.to_public().as_bytes()).toString('hex');
    },

    /** CIP-13: `web+cardano:<address>?amount=<decimal ada>`. */
    paymentUri(input: PaymentUriInput): string {
      const { coin } = paymentUriCoin(definition, input);
      if (!isValidAddress(input.address, input.network)) bad('Not a valid Cardano address for this network.');
      const query = input.amountUnits > 0n ? `?amount=${fromBaseUnits(input.amountUnits, coin.decimals)}` : '';
      return `web+cardano:${input.address}${query}`;
    },

    async verifyOwnership(proof: OwnershipProof): Promise<boolean> {
      checkKey(proof.key);
      const parsed = parseDataSignature(proof.signature.trim());
      return verifySignedData(parsed, proof.message, CSL.Address.from_bech32(deriveAddress(proof.key, 0).address));
    },

    async verifyAddressSignature(proof: AddressSignatureProof): Promise<boolean> {
      if (!isValidAddress(proof.address, proof.network)) bad('Not a valid Cardano address for this network.');
      const parsed = parseDottedDataSignature(proof.signature.trim());
      return verifySignedData(parsed, proof.message, CSL.Address.from_bech32(proof.address));
    },

    createWatcher: (options) => new AdaWatcher(definition, options),

    /** The treasury (issue 35): call its `feeEstimate()` before `build` (see `AdaTreasury`). */
    createTreasury: (options) => new AdaTreasury(options),
  };
}
