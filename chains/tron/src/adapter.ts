import {
  paymentUriCoin,
  chainErrors,
  fromBaseUnits,
  type ChainAdapter,
  type ChainAdapterDeps,
  type ChainDefinition,
  type PaymentUriInput,
} from '@gw/chain-api';
import { concat, keccak256, recoverAddress, toUtf8Bytes } from 'ethers';
import { deriveTronAddress, isTronAddress, TRON_COIN_TYPE, tronAddressFromHex } from './derive.js';
import { bip44AdapterBase } from '@gw/chain-evm';
import { TronWatcher } from './watcher.js';
import { TronTreasury } from './treasury/tron-treasury.js';

/** TIP-191 prefix used by TronLink / TronWeb `signMessageV2`. */
export const TRON_MESSAGE_PREFIX = '\x19TRON Signed Message:\n';

/** keccak256("\x19TRON Signed Message:\n" + byteLength(message) + message), as TronWeb hashes it. */
export function tronMessageHash(message: string): string {
  const bytes = toUtf8Bytes(message);
  return keccak256(concat([toUtf8Bytes(TRON_MESSAGE_PREFIX), toUtf8Bytes(String(bytes.length)), bytes]));
}

/**
 * TRON adapter: BIP44 m/44'/195'/account'/0/i T-addresses, `tron:` payment URIs and TIP-191
 * (`signMessageV2`) ownership proofs and address signatures.
 */
export function createTronAdapter(_deps: ChainAdapterDeps, definition: ChainDefinition): ChainAdapter {
  return {
    definition,
    ...bip44AdapterBase(definition, {
      coinType: TRON_COIN_TYPE,
      derive: deriveTronAddress,
      isAddress: isTronAddress,
      canonicalAddress: (address) => address,
      signingStandard: 'TIP-191 signMessageV2',
      signerOf: (message, signature) => tronAddressFromHex(recoverAddress(tronMessageHash(message), signature)),
    }),

    /**
     * `tron:<address>?amount=<decimal TRX>`; for TRC-20 `tron:<address>?token=<contract>&amount=<decimal
     * token units>`. TRON has no ratified URI standard; this is the form TronLink and most TRON
     * wallets' QR scanners accept (address first, decimal amount).
     */
    paymentUri(input: PaymentUriInput): string {
      const { coin, contract } = paymentUriCoin(definition, input);
      if (!isTronAddress(input.address)) throw chainErrors.validation_error({ message: 'Not a valid TRON address.' });
      const params: string[] = [];
      if (contract !== undefined) params.push(`token=${contract}`);
      if (input.amountUnits > 0n) params.push(`amount=${fromBaseUnits(input.amountUnits, coin.decimals)}`);
      return `tron:${input.address}${params.length ? `?${params.join('&')}` : ''}`;
    },

    createWatcher: (options) => new TronWatcher(definition, options),
    createAccountTreasury: (options) => new TronTreasury(definition, options),
  };
}
