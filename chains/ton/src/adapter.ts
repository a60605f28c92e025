import { randomBytes } from 'node:crypto';
import { keyPairFromSeed } from '@ton/crypto';
import { createHash } from 'node:crypto';
import {
  assertKeyOfChain,
  paymentUriCoin,
  chainErrors,
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
import { Address } from '@ton/core';
import { signVerify } from '@ton/crypto';
import { deriveTonAddress, parseTonPublicKey, tonPersonalWallets, tonWalletAddress } from './derive.js';
import { TonTreasury } from './treasury/ton-treasury.js';
import { TonWatcher } from './watcher.js';

/** The signature format accepted by `verifyOwnership`: a TON Connect `signData` (text) response. */
export interface TonSignDataProof {
  /** base64 ed25519 signature. */
  readonly signature: string;
  /** The signing wallet, raw (`0:<hex>`) or user-friendly. */
  readonly address: string;
  /** Unix seconds, as returned by the wallet. */
  readonly timestamp: number;
  /** The dApp domain the wallet bound into the signature. */
  readonly domain: string;
  readonly payload: { readonly type: 'text'; readonly text: string };
}

/**
 * sha256 of the TON Connect `signData` text envelope:
 * 0xffff ++ "ton-connect/sign-data/" ++ workchain (int32 BE) ++ address hash (32) ++
 * domain length (uint32 BE) ++ domain ++ timestamp (uint64 BE) ++ "txt" ++ text length (uint32 BE) ++ text.
 */
export function tonSignDataHash(address: Address, domain: string, timestamp: number, text: string): Buffer {
  const wc = Buffer.alloc(4);
  wc.writeInt32BE(address.workChain);
  const domainBytes = Buffer.from(domain, 'utf8');
  const domainLen = Buffer.alloc(4);
  domainLen.writeUInt32BE(domainBytes.length);
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64BE(BigInt(timestamp));
  const textBytes = Buffer.from(text, 'utf8');
  const textLen = Buffer.alloc(4);
  textLen.writeUInt32BE(textBytes.length);
  const message = Buffer.concat([
    Buffer.from([0xff, 0xff]),
    Buffer.from('ton-connect/sign-data/', 'utf8'),
    wc,
    address.hash,
    domainLen,
    domainBytes,
    ts,
    Buffer.from('txt', 'utf8'),
    textLen,
    textBytes,
  ]);
  return createHash('sha256').update(message).digest();
}

const HEX_32 = /^[0-9a-fA-F]{64}$/;
const HEX_64 = /^[0-9a-fA-F]{128}$/;

function parseProof(signature: string): TonSignDataProof {
  let value: unknown;
  try {
    value = JSON.parse(signature);
  } catch (cause) {
    throw chainErrors.validation_error({ message: 'The TON signature must be the JSON of a TON Connect signData response.', cause });
  }
  const v = value as Partial<Record<keyof TonSignDataProof, unknown>> | null;
  const payload = v?.payload as { type?: unknown; text?: unknown } | undefined;
  if (
    !v ||
    typeof v !== 'object' ||
    typeof v.signature !== 'string' ||
    typeof v.address !== 'string' ||
    typeof v.domain !== 'string' ||
    typeof v.timestamp !== 'number' ||
    !Number.isSafeInteger(v.timestamp) ||
    v.timestamp < 0 ||
    !payload ||
    typeof payload !== 'object'
  ) {
    throw chainErrors.validation_error({
      message: 'Expected {"signature","address","timestamp","domain","payload":{"type":"text","text"}}.',
    });
  }
  if (payload.type !== 'text' || typeof payload.text !== 'string') {
    throw chainErrors.validation_error({ message: 'Only TON Connect signData payloads of type "text" are accepted.' });
  }
  return {
    signature: v.signature,
    address: v.address,
    timestamp: v.timestamp,
    domain: v.domain,
    payload: { type: 'text', text: payload.text },
  };
}

/**
 * TON adapter: one operator ed25519 key, one WalletContractV5R1 per receive index (subwallet number =
 * index), ton://transfer URIs with memo, TON Connect signData ownership proofs, and address
 * signatures (ed25519 over the message by the key of the address's V4R2 or V5R1 wallet).
 */
export function createTonAdapter(_deps: ChainAdapterDeps, definition: ChainDefinition): ChainAdapter {
  const checkKey = (key: AccountKey): void => assertKeyOfChain(definition, key);

  const isValidAddress = (address: string, network: NetworkKind): boolean => {
    if (typeof address !== 'string' || address.length === 0 || address.length > 80) return false;
    try {
      if (Address.isFriendly(address)) {
        const parsed = Address.parseFriendly(address);
        return parsed.address.workChain === 0 && parsed.isTestOnly === (network === 'testnet');
      }
      return Address.isRaw(address) && Address.parseRaw(address).workChain === 0;
    } catch {
      return false;
    }
  };

  return {
    definition,

    parseAccountKey(input: string, network: NetworkKind): AccountKey {
      const trimmed = input.trim();
      const key = parseTonPublicKey(trimmed);
      if (!key) {
        throw chainErrors.invalid_xpub_format({ message: 'Expected a 32-byte ed25519 public key as 64 hex characters or base64.' });
      }
      return { chain: definition.id, network, input: trimmed, canonical: key.toString('hex') };
    },

    deriveAddress(key: AccountKey, index: number): DerivedAddress {
      checkKey(key);
      return { index, ...deriveTonAddress(key.canonical, key.network, index) };
    },

    /** An ed25519 key pair from a random seed (the wallet's key); its public key as 64 hex chars. */
    generateAccountKey(_network: NetworkKind): string {
      return keyPairFromSeed(randomBytes(32)).publicKey.toString('hex');
    },

    isValidAddress,

    /**
     * ton://transfer/<address>?amount=<nanotons>&text=<memo>; for jettons
     * ton://transfer/<address>?jetton=<master>&amount=<jetton units>&text=<memo> (Tonkeeper deeplinks).
     */
    paymentUri(input: PaymentUriInput): string {
      const { contract: master } = paymentUriCoin(definition, input);
      if (!isValidAddress(input.address, input.network)) throw chainErrors.validation_error({ message: 'Not a valid TON address for this network.' });
      const params: string[] = [];
      if (master !== undefined) params.push(`jetton=${master}`);
      params.push(`amount=${input.amountUnits.toString()}`);
      if (input.memo) params.push(`text=${encodeURIComponent(input.memo)}`);
      return `ton://transfer/${input.address}?${params.join('&')}`;
    },

    async verifyOwnership(proof: OwnershipProof): Promise<boolean> {
      checkKey(proof.key);
      const parsed = parseProof(proof.signature);
      let signer: Address;
      try {
        signer = Address.parse(parsed.address);
      } catch (cause) {
        throw chainErrors.validation_error({ message: 'The signData address is not a TON address.', cause });
      }
      const signature = Buffer.from(parsed.signature, 'base64');
      if (signature.length !== 64 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(parsed.signature)) {
        throw chainErrors.validation_error({ message: 'The signData signature must be 64 bytes of base64.' });
      }
      if (parsed.payload.text !== proof.message) return false;
      const publicKey = Buffer.from(proof.key.canonical, 'hex');
      if (!signer.equals(tonWalletAddress(publicKey, proof.key.network, 0))) return false;
      const hash = tonSignDataHash(signer, parsed.domain, parsed.timestamp, parsed.payload.text);
      return signVerify(hash, signature, publicKey);
    },

    async verifyAddressSignature(proof: AddressSignatureProof): Promise<boolean> {
      if (!isValidAddress(proof.address, proof.network)) throw chainErrors.validation_error({ message: 'Not a valid TON address for this network.' });
      const [keyHex, signatureHex, ...rest] = proof.signature.trim().split('.');
      if (rest.length > 0 || !HEX_32.test(keyHex ?? '') || !HEX_64.test(signatureHex ?? '')) {
        throw chainErrors.validation_error({ message: 'The TON signature must be <public key hex (32 bytes)>.<ed25519 signature hex (64 bytes)>.' });
      }
      const publicKey = Buffer.from(keyHex!, 'hex');
      const claimed = Address.parse(proof.address);
      if (!tonPersonalWallets(publicKey, proof.network).some((wallet) => wallet.equals(claimed))) return false;
      return signVerify(Buffer.from(proof.message, 'utf8'), Buffer.from(signatureHex!, 'hex'), publicKey);
    },

    createWatcher: (options) => new TonWatcher(definition, options),

    createAccountTreasury: (options) => new TonTreasury(definition, options),
  };
}
