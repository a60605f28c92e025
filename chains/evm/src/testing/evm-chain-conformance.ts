import type { TestFn } from 'ava';
import { Wallet } from 'ethers';
import type { ChainModule, NetworkKind, PaymentUriInput } from '@gw/chain-api';
import { chainConformance, codeOf, configuredAdapter, type DerivationVectors } from '@gw/chain-api/testing';
import { isEvmAddress } from '../adapter.js';
import { ABANDON_EVM_ADDRESSES, ABANDON_EVM_XPUB, abandonRoot } from './abandon-vectors.js';

/** A payment URI row: coin, network kind and amount, paid to {@link ABANDON_EVM_ADDRESSES}[0], and the exact URI. */
export type EvmPaymentUriRow = readonly [coin: string, network: NetworkKind, amountUnits: bigint, uri: string];

/** What an EVM chain's test states; everything else is the same on every EVM chain. */
export interface EvmChainConformance {
  readonly module: ChainModule;
  /** Each coin's decimals as its source publishes them, in the definition's order. */
  readonly decimals: Readonly<Record<string, number>>;
  /** EIP-681 URIs, on both network kinds (they pin the chain ids) and for the native coin and each token kind. */
  readonly paymentUris: readonly EvmPaymentUriRow[];
}

/**
 * The conformance suite of a chain the shared EVM adapter serves: the chain conformance suite with
 * the EVM vectors of the "abandon … about" mnemonic (EVM keys and addresses carry no network, so
 * both network kinds use them) and EIP-191 proofs signed by ethers, then the EVM facts: the coins'
 * decimals, checksummed contract addresses with a source, URIs on both network kinds, and a
 * `validation_error` for a token URI on a testnet where the token has no contract.
 */
export function evmChainConformance(test: TestFn, chain: EvmChainConformance): void {
  const { definition } = chain.module;
  const id = definition.id;
  const address = ABANDON_EVM_ADDRESSES[0];
  const vectors = (network: NetworkKind): DerivationVectors => ({
    key: ABANDON_EVM_XPUB,
    addresses: ABANDON_EVM_ADDRESSES.map((derived, index) => ({ index, address: derived, path: `m/44'/60'/0'/0/${index}` })),
    source: `BIP44 Ethereum path of the BIP39 test mnemonic (ethers), ${network}`,
  });
  const signer = new Wallet(abandonRoot().derivePath("m/44'/60'/0'/0/0").privateKey);
  const invalid = [
    address.replace('E', 'e'), // broken EIP-55 checksum
    address.slice(0, -1), // one hex digit short
    'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', // a TRON address
    'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu', // a Bitcoin address
    `0x${'0'.repeat(40)}`, // the zero address
  ];

  chainConformance(test, {
    module: chain.module,
    vectors: { mainnet: vectors('mainnet'), testnet: vectors('testnet') },
    keysEncodeNetwork: false,
    // EIP-191 personal_sign, as MetaMask and Coinbase Wallet sign.
    sign: (message) => signer.signMessage(message),
    paymentUris: chain.paymentUris.map(([coin, network, amountUnits, uri]) => ({ input: { coin, network, address, amountUnits }, uri })),
    invalidAddresses: { mainnet: invalid, testnet: invalid },
  });

  test(`${id} EVM conformance: decimals, checksummed contracts with a source, URIs on both network kinds`, (t) => {
    t.deepEqual(
      definition.coins.map((coin) => [coin.id, coin.decimals]),
      Object.entries(chain.decimals),
    );
    for (const coin of definition.coins) {
      t.truthy(coin.source, coin.id);
      for (const contract of [...Object.values(coin.contracts ?? {}), ...(coin.sandboxContract ? [coin.sandboxContract] : [])]) {
        t.true(isEvmAddress(contract), `${coin.id}: ${contract}`);
      }
    }
    t.deepEqual(new Set(chain.paymentUris.map(([, network]) => network)), new Set(['mainnet', 'testnet']));
  });

  const testnet = definition.networks.testnets[0].id;
  const withoutTestnetContract = definition.coins.filter((coin) => coin.contracts && !coin.contracts[testnet]);
  if (withoutTestnetContract.length === 0) return;
  test(`${id} EVM conformance: a token URI on the testnet where the token has no contract is validation_error`, (t) => {
    const adapter = configuredAdapter(chain.module);
    for (const coin of withoutTestnetContract) {
      const input: PaymentUriInput = { coin: coin.id, network: 'testnet', address, amountUnits: 1n };
      t.is(
        codeOf(() => adapter.paymentUri(input)),
        'validation_error',
        coin.id,
      );
    }
  });
}
