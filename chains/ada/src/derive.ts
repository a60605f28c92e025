import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { chainErrors, type NetworkKind } from '@gw/chain-api';
import { bech32 } from 'bech32';

/** CIP-5 keys are longer than BIP-173's 90-character limit. */
const BECH32_LIMIT = 1000;

/** Shelley network ids in address headers. */
export const CARDANO_NETWORK_ID: Readonly<Record<NetworkKind, number>> = { mainnet: 1, testnet: 0 };

/**
 * Parses a CIP-1852 account public key: bech32 `acct_xvk1...` (CIP-5) or `xpub1...`, or 128 hex
 * characters (32-byte ed25519 public key followed by the 32-byte chain code). Returns the 128-hex
 * canonical form. Account keys carry no network, so any key is valid for either network kind.
 */
export function parseAdaAccountKey(input: string): string {
  const lower = input.toLowerCase();
  if (lower.startsWith('acct_xsk1') || lower.startsWith('xprv1') || lower.startsWith('root_xsk1')) {
    throw chainErrors.invalid_xpub_format({ message: 'This is a private key; supply the account public key (acct_xvk...) only.' });
  }
  if (lower.startsWith('root_xvk1')) {
    throw chainErrors.invalid_xpub_format({ message: "This is a root key; export the account key at m/1852'/1815'/0' (acct_xvk...)." });
  }
  let bytes: Uint8Array;
  try {
    if (/^[0-9a-fA-F]{128}$/.test(input)) {
      bytes = CSL.Bip32PublicKey.from_bytes(Buffer.from(input, 'hex')).as_bytes();
    } else if (lower.startsWith('acct_xvk1') || lower.startsWith('xpub1')) {
      const decoded = bech32.decodeUnsafe(input, BECH32_LIMIT);
      const data = decoded && bech32.fromWordsUnsafe(decoded.words);
      if (!decoded || !data || (decoded.prefix !== 'acct_xvk' && decoded.prefix !== 'xpub')) throw new Error('bad bech32');
      bytes = CSL.Bip32PublicKey.from_bytes(Uint8Array.from(data)).as_bytes();
    } else {
      throw new Error('unrecognised form');
    }
  } catch (cause) {
    throw chainErrors.invalid_xpub_format({
      message: 'Expected a Cardano account public key: acct_xvk1... (bech32) or 128 hex characters (key + chain code).',
      cause,
    });
  }
  if (bytes.length !== 64) throw chainErrors.invalid_xpub_format({ message: 'A Cardano account key is 64 bytes.' });
  const canonical = Buffer.from(bytes).toString('hex');
  try {
    derivation(canonical); // rejects a public key that is not a curve point
  } catch (cause) {
    throw chainErrors.invalid_xpub_format({ message: 'The account key does not hold a valid ed25519 public key.', cause });
  }
  return canonical;
}

interface Derivation {
  /** Role 0 (external, receive) and role 1 (internal, change) payment key chains. */
  readonly payment: readonly [CSL.Bip32PublicKey, CSL.Bip32PublicKey];
  readonly stake: CSL.Credential;
}

const cache = new Map<string, Derivation>();

function derivation(canonical: string): Derivation {
  let entry = cache.get(canonical);
  if (!entry) {
    const account = CSL.Bip32PublicKey.from_bytes(Buffer.from(canonical, 'hex'));
    entry = {
      payment: [account.derive(0), account.derive(1)],
      stake: CSL.Credential.from_keyhash(account.derive(2).derive(0).to_raw_key().hash()),
    };
    if (cache.size > 256) cache.clear();
    cache.set(canonical, entry);
  }
  return entry;
}

/** Raw ed25519 public key of payment key `branch`/`index` (branch 0 external, 1 internal). */
export function paymentPublicKey(canonical: string, index: number, branch: 0 | 1 = 0): CSL.PublicKey {
  return derivation(canonical).payment[branch].derive(index).to_raw_key();
}

/** The CIP-1852 path of payment key `branch`/`index` of account 0'. */
export function paymentKeyPath(branch: 0 | 1, index: number): string {
  return `m/1852'/1815'/0'/${branch}/${index}`;
}

/**
 * Base address (payment key `branch`/`index`, stake key 2/0) and its CIP-1852 path. Pure. Receive
 * addresses are branch 0; the treasury pays change to branch 1.
 */
export function deriveAdaAddress(canonical: string, network: NetworkKind, index: number, branch: 0 | 1 = 0): { address: string; path: string } {
  const { stake } = derivation(canonical);
  const payment = CSL.Credential.from_keyhash(paymentPublicKey(canonical, index, branch).hash());
  const address = CSL.BaseAddress.new(CARDANO_NETWORK_ID[network], payment, stake).to_address().to_bech32();
  return { address, path: paymentKeyPath(branch, index) };
}
