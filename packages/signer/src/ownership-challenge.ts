import * as ecc from '@bitcoinerlab/secp256k1';
import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { Signer } from 'bip322-js';
import * as bitcoin from 'bitcoinjs-lib';
import { encode } from 'cborg';
import { bip84Keyring, p2wpkhAddress } from './bip84-keyring.js';
import { cardanoKeyring, CARDANO_COIN_TYPE, CARDANO_PURPOSE } from './cardano-keyring.js';
import type { Bip84Chain, CardanoChain, SignerChain } from './chains.js';
import { formatPath } from './derivation-path.js';
import type { Secret } from './secret.js';
import { refuse } from './signer-error.js';

/**
 * The gateway's wallet-ownership challenge (plugins/wallets `createChallenge`), one line:
 * `Gateway wallet ownership challenge: project <id>, chain <chain>, key <16 hex>, nonce <32 hex>,
 * expires <ISO 8601>`. The signer signs this text and nothing else: a key that signs whatever it
 * is given signs, one day, a message that proves something else (a transfer, a login).
 */
const CHALLENGE =
  /^Gateway wallet ownership challenge: project ([0-9A-Za-z-]{1,64}), chain ([a-z0-9]{1,16}), key ([0-9a-f]{16}), nonce ([0-9a-f]{32}), expires (\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)$/;

/** What a challenge names, once checked to be the gateway's. */
export interface ChallengeText {
  readonly project: string;
  readonly chain: string;
  readonly key: string;
  readonly expires: string;
}

/** Checks that `message` is the gateway's ownership challenge for `chainId`; anything else is `not_a_challenge`. */
export function checkChallengeText(message: string, chainId: string): ChallengeText {
  const match = CHALLENGE.exec(message);
  if (!match) {
    return refuse(
      'not_a_challenge',
      'The message is not the gateway\'s wallet-ownership challenge ("Gateway wallet ownership challenge: project …, chain …, key …, nonce …, expires …", one line); this signer signs nothing else.',
    );
  }
  const [, project, chain, key, , expires] = match as unknown as [string, string, string, string, string, string];
  if (chain !== chainId) refuse('not_a_challenge', `The challenge is for chain ${chain}; --chain is ${chainId}.`);
  return { project, chain, key, expires };
}

/** A signed ownership challenge: the signature to paste into `wallet verify`, and what signed it. */
export interface SignedChallenge {
  /** BIP-322 simple or BIP-137 signature (base64), or the CIP-30 DataSignature JSON `{signature, key}`. */
  readonly signature: string;
  /** Receive address index 0, whose key signed. */
  readonly address: string;
  readonly path: string;
}

/**
 * Signs the wallet-registration challenge with the key of receive index 0 of `account` (default: 0,
 * or the account of an account private key), the way the
 * chain adapter's `verifyOwnership` checks it: Bitcoin BIP-322 "simple" (P2WPKH), Litecoin BIP-137
 * over Litecoin's message prefix flagged P2WPKH (Electrum-LTC's form), Cardano a CIP-30 `signData`
 * DataSignature (CIP-8 COSE_Sign1 with the base address in the protected header).
 */
export function signChallenge(chain: SignerChain, networkId: string, secret: Secret, account: number | undefined, message: string): SignedChallenge {
  return chain.family === 'bip84'
    ? signBip84Challenge(chain, networkId, secret, account, message)
    : signCardanoChallenge(chain, networkId, secret, account, message);
}

function signBip84Challenge(chain: Bip84Chain, networkId: string, secret: Secret, account: number | undefined, message: string): SignedChallenge {
  const keyring = bip84Keyring(secret, chain, networkId);
  const kind = chain.networks[networkId]!.kind;
  const path = { purpose: 84, coinType: chain.coinType[kind], account: account ?? keyring.ownAccount ?? 0, branch: 0, index: 0 };
  if (keyring.ownAccount !== null && account !== undefined && account !== keyring.ownAccount) {
    refuse('wrong_key', `The account private key is account ${keyring.ownAccount}'; --account asks for ${account}'.`);
  }
  const accountNode = keyring.account(path.coinType, path.account);
  const key = accountNode.derive(0).derive(0);
  const address = p2wpkhAddress(key.publicKey, keyring.params);
  if (!key.privateKey) throw new Error('derived key has no private key');
  let signature: string;
  if (chain.messageSigning.scheme === 'bip322') {
    signature = Signer.sign(key.toWIF(), address, message);
  } else {
    signature = bip137Sign(message, key.privateKey, chain.messageSigning.prefix);
  }
  return { signature, address, path: formatPath(path) };
}

/**
 * BIP-137 compact signature for a P2WPKH address: header 39 + recovery id (compressed key, flagged
 * native segwit), then r and s, over double SHA-256 of prefix, varint length and message.
 */
function bip137Sign(message: string, privateKey: Uint8Array, prefix: string): string {
  const text = Buffer.from(message, 'utf8');
  const hash = bitcoin.crypto.hash256(Buffer.concat([Buffer.from(prefix, 'utf8'), varint(text.length), text]));
  const { signature, recoveryId } = ecc.signRecoverable(hash, privateKey);
  return Buffer.concat([Buffer.from([39 + recoveryId]), Buffer.from(signature)]).toString('base64');
}

function varint(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) {
    const b = Buffer.alloc(3);
    b[0] = 0xfd;
    b.writeUInt16LE(n, 1);
    return b;
  }
  const b = Buffer.alloc(5);
  b[0] = 0xfe;
  b.writeUInt32LE(n, 1);
  return b;
}

/** COSE labels (RFC 9052/9053, CIP-8). */
const ALG = 1;
const EDDSA = -8;

function signCardanoChallenge(chain: CardanoChain, networkId: string, secret: Secret, account: number | undefined, message: string): SignedChallenge {
  const network = chain.networks[networkId];
  if (!network) return refuse('wrong_network', `Cardano has no network "${networkId}".`);
  const keyring = cardanoKeyring(secret);
  const path = { purpose: CARDANO_PURPOSE, coinType: CARDANO_COIN_TYPE, account: account ?? 0, branch: 0, index: 0 };
  const key = keyring.keyAt(path).to_raw_key();
  const address = keyring.baseAddress(path, network.networkId);
  const addressBytes = CSL.Address.from_bech32(address).to_bytes();
  const payload = Buffer.from(message, 'utf8');
  const protectedBytes = encode(
    new Map<unknown, unknown>([
      [ALG, EDDSA],
      ['address', addressBytes],
    ]),
  );
  const toSign = encode(['Signature1', protectedBytes, new Uint8Array(0), payload]);
  const signatureBytes = key.sign(toSign).to_bytes();
  const sign1 = encode([protectedBytes, new Map([['hashed', false]]), payload, signatureBytes]);
  const coseKey = encode(
    new Map<number, unknown>([
      [1, 1], // kty: OKP
      [3, EDDSA], // alg
      [-1, 6], // crv: Ed25519
      [-2, key.to_public().as_bytes()], // x
    ]),
  );
  const signature = JSON.stringify({ signature: Buffer.from(sign1).toString('hex'), key: Buffer.from(coseKey).toString('hex') });
  return { signature, address, path: formatPath(path) };
}
