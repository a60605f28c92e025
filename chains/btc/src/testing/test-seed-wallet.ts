import { pbkdf2Sync } from 'node:crypto';
import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory, type BIP32Interface } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import type { Bip84Params } from '../bip84-params.js';

const bip32 = BIP32Factory(ecc);

/** The BIP 39 / BIP 84 test mnemonic. */
export const TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/**
 * A BIP84 wallet of a mnemonic, for tests only: what an operator's wallet or the offline signer
 * holds. It gives the account key (bare and in key-origin form), addresses, and signs PSBTs the
 * way a wallet does (each input by its `bip32Derivation`: the master fingerprint and full path, or
 * the account key's own fingerprint and `m/branch/index`). The gateway never holds one.
 */
export class TestSeedWallet {
  readonly root: BIP32Interface;
  readonly account: BIP32Interface;
  readonly network: bitcoin.Network;
  readonly accountPath: string;

  constructor(params: Bip84Params, networkId: string, options: { mnemonic?: string; account?: number; mainnet?: boolean } = {}) {
    const network = params.networks[networkId];
    if (!network) throw new Error(`${params.name}: no network ${networkId}`);
    this.network = network;
    const seed = pbkdf2Sync((options.mnemonic ?? TEST_MNEMONIC).normalize('NFKD'), 'mnemonic', 2048, 64, 'sha512');
    this.root = bip32.fromSeed(seed, network);
    this.accountPath = `m/84'/${params.coinType[options.mainnet ? 'mainnet' : 'testnet']}'/${options.account ?? 0}'`;
    this.account = this.root.derivePath(this.accountPath);
  }

  /** The account public key in the network's canonical version (tpub/xpub; ttub/Ltub on Litecoin). */
  get accountKey(): string {
    return this.account.neutered().toBase58();
  }

  /** `[fingerprint/84'/coin'/account']key`. */
  get accountKeyWithOrigin(): string {
    return `[${Buffer.from(this.root.fingerprint).toString('hex')}${this.accountPath.slice(1)}]${this.accountKey}`;
  }

  address(branch: 0 | 1, index: number): string {
    return bitcoin.payments.p2wpkh({ pubkey: this.account.derive(branch).derive(index).publicKey, network: this.network }).address!;
  }

  /** Signs every input it has a key for (by the input's BIP 32 derivation); returns the PSBT with partial signatures, base64. */
  sign(psbtBase64: string): string {
    const psbt = bitcoin.Psbt.fromBase64(psbtBase64, { network: this.network });
    const rootFingerprint = Buffer.from(this.root.fingerprint).toString('hex');
    const accountFingerprint = Buffer.from(this.account.fingerprint).toString('hex');
    psbt.data.inputs.forEach((input, i) => {
      for (const derivation of input.bip32Derivation ?? []) {
        const fingerprint = Buffer.from(derivation.masterFingerprint).toString('hex');
        const key =
          fingerprint === rootFingerprint
            ? this.root.derivePath(derivation.path)
            : fingerprint === accountFingerprint
              ? this.account.derivePath(derivation.path.slice(2))
              : null;
        if (key && Buffer.from(key.publicKey).equals(Buffer.from(derivation.pubkey))) psbt.signInput(i, key);
      }
    });
    return psbt.toBase64();
  }
}
