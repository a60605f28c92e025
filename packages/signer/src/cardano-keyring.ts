import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { bech32 } from 'bech32';
import { HARDENED, type AddressPath } from './derivation-path.js';
import { entropyOf, type Secret } from './secret.js';
import { refuse } from './signer-error.js';

/** CIP-1852 purpose and Cardano's coin type. */
export const CARDANO_PURPOSE = 1852;
export const CARDANO_COIN_TYPE = 1815;

/** The keys a secret gives on Cardano: CIP-1852 account keys and payment keys by path. */
export interface CardanoKeyring {
  /** The account key `m/1852'/1815'/account'`; refuses `wrong_key` when the secret cannot give it. */
  account(account: number): CSL.Bip32PrivateKey;
  /** The payment key at a full path (already checked for purpose and coin type). */
  keyAt(path: AddressPath): CSL.Bip32PrivateKey;
  /** The base address (payment key at `path`, stake key `account/2/0`) the gateway derives, in bech32. */
  baseAddress(path: AddressPath, networkId: 0 | 1): string;
}

/**
 * The keyring of `secret` on Cardano. A mnemonic gives the Icarus master key of its BIP 39 entropy
 * (CIP-3, as Cardano wallets derive it) and every account; an `acct_xsk` key gives its own account
 * only (its account number is not in the key: the plan's account key decides).
 */
export function cardanoKeyring(secret: Secret): CardanoKeyring {
  let account: (n: number) => CSL.Bip32PrivateKey;
  if (secret.kind === 'mnemonic') {
    const root = CSL.Bip32PrivateKey.from_bip39_entropy(entropyOf(secret), new TextEncoder().encode(secret.passphrase));
    const accounts = new Map<number, CSL.Bip32PrivateKey>();
    account = (n) => {
      let key = accounts.get(n);
      if (!key) {
        key = root
          .derive(HARDENED + CARDANO_PURPOSE)
          .derive(HARDENED + CARDANO_COIN_TYPE)
          .derive(HARDENED + n);
        accounts.set(n, key);
      }
      return key;
    };
  } else if (secret.kind === 'cardano-account') {
    let key: CSL.Bip32PrivateKey;
    try {
      key = secret.bytes.length === 128 ? CSL.Bip32PrivateKey.from_128_xprv(secret.bytes) : CSL.Bip32PrivateKey.from_bytes(secret.bytes);
    } catch {
      return refuse('secret_unreadable', 'The acct_xsk key does not hold a valid Cardano extended private key.');
    }
    account = () => key;
  } else {
    return refuse('wrong_key', 'An extended BIP 32 key (xprv/tprv/Ltpv/ttpv) signs no Cardano plan; give the mnemonic or the acct_xsk key.');
  }
  const keyAt = (path: AddressPath) => account(path.account).derive(path.branch).derive(path.index);
  return {
    account,
    keyAt,
    baseAddress(path, networkId) {
      const stake = account(path.account).derive(2).derive(0).to_public().to_raw_key().hash();
      const payment = keyAt(path).to_public().to_raw_key().hash();
      return CSL.BaseAddress.new(networkId, CSL.Credential.from_keyhash(payment), CSL.Credential.from_keyhash(stake)).to_address().to_bech32();
    },
  };
}

/**
 * Whether an account key is the plan's account key: 128 hex digits (public key and chain code, the
 * gateway's canonical form) or bech32 `acct_xvk1…`.
 */
export function isSameCardanoAccount(key: CSL.Bip32PrivateKey, planKey: string): boolean {
  const own = Buffer.from(key.to_public().as_bytes()).toString('hex');
  if (/^[0-9a-fA-F]{128}$/.test(planKey)) return planKey.toLowerCase() === own;
  const decoded = bech32.decodeUnsafe(planKey.toLowerCase(), 1000);
  const bytes = decoded && bech32.fromWordsUnsafe(decoded.words);
  return !!bytes && (decoded.prefix === 'acct_xvk' || decoded.prefix === 'xpub') && Buffer.from(bytes).toString('hex') === own;
}
