import {
  paymentUriCoin,
  chainErrors,
  networkFor,
  type ChainAdapter,
  type ChainAdapterDeps,
  type ChainDefinition,
  type NetworkKind,
  type PaymentUriInput,
  type WatcherOptions,
} from '@gw/chain-api';
import { getAddress, verifyMessage, ZeroAddress } from 'ethers';
import { deriveEvmAddress, EVM_COIN_TYPE } from './derive.js';
import { bip44AdapterBase } from './bip44-account.js';
import { EvmWatcher } from './watcher.js';
import { createEvmAccountTreasury } from './treasury/evm-account-treasury.js';

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** True for a 0x-prefixed 20-byte hex address whose mixed case, if any, is a valid EIP-55 checksum. */
export function isEvmAddress(address: string): boolean {
  if (typeof address !== 'string' || !ADDRESS.test(address)) return false;
  try {
    return getAddress(address) !== ZeroAddress;
  } catch {
    return false;
  }
}

/** The EIP-155 chain id a project of `network` kind pays on (mainnet or the first testnet). */
export function evmChainIdOf(definition: ChainDefinition, network: NetworkKind): number {
  const net = networkFor(definition, network === 'mainnet' ? 'production' : 'testnet');
  if (net.evmChainId === undefined) throw new Error(`EVM chain ${definition.id} network ${net.id} has no evmChainId`);
  return net.evmChainId;
}

/**
 * The EVM adapter, shared by eth, polygon and bsc: BIP44 m/44'/60'/account'/0/i addresses (EIP-55),
 * EIP-681 payment URIs with the definition's chain ids, and EIP-191 `personal_sign` ownership proofs
 * and address signatures (a claimed address matches in any case).
 */
export function createEvmAdapter(_deps: ChainAdapterDeps, definition: ChainDefinition): ChainAdapter {
  return {
    definition,
    ...bip44AdapterBase(definition, {
      coinType: EVM_COIN_TYPE,
      derive: deriveEvmAddress,
      isAddress: isEvmAddress,
      canonicalAddress: (address) => getAddress(address),
      signingStandard: 'EIP-191 personal_sign',
      signerOf: (message, signature) => verifyMessage(message, signature),
    }),

    paymentUri(input: PaymentUriInput): string {
      const { contract } = paymentUriCoin(definition, input);
      if (!isEvmAddress(input.address)) throw chainErrors.validation_error({ message: 'Not a valid EVM address.' });
      const chainId = evmChainIdOf(definition, input.network);
      const to = getAddress(input.address);
      if (contract === undefined) {
        const query = input.amountUnits > 0n ? `?value=${input.amountUnits.toString()}` : '';
        return `ethereum:${to}@${chainId}${query}`;
      }
      return `ethereum:${getAddress(contract)}@${chainId}/transfer?address=${to}&uint256=${input.amountUnits.toString()}`;
    },

    createWatcher: (options: WatcherOptions) => new EvmWatcher(definition, options),
    ...(definition.capabilities.accountTreasury ? { createAccountTreasury: (options: WatcherOptions) => createEvmAccountTreasury(definition, options) } : {}),
  };
}
