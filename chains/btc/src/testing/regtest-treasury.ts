import * as ecc from '@bitcoinerlab/secp256k1';
import { BIP32Factory } from 'bip32';
import * as bitcoin from 'bitcoinjs-lib';
import { ProviderPool, type AccountKey, type ChainAdapter, type ChainTreasury, type NetworkDefinition, type SpendInput } from '@gw/chain-api';
import { configuredAdapter } from '@gw/chain-api/testing';
import { bitcoinParams } from '../bip84-params.js';
import { btcChain } from '../index.js';
import { TestSeedWallet } from './test-seed-wallet.js';

/** btc/regtest's treasury over the BIP84 test mnemonic's testnet account, and what tests of its plans use. */
export interface RegtestTreasury {
  /** The wallet of the test mnemonic at m/84'/1'/0' (regtest addresses): the operator's, in tests only. */
  readonly wallet: TestSeedWallet;
  readonly adapter: ChainAdapter;
  readonly network: NetworkDefinition;
  readonly treasury: ChainTreasury;
  /** The account key without a key origin. */
  readonly bareKey: AccountKey;
  /** A P2WPKH address of another seed: a payee that is not the account's. */
  readonly external: string;
  /** Spendable output number `n` (a made-up outpoint) paying `amountUnits` to the account's address branch/index. */
  spendInput(key: AccountKey, branch: 0 | 1, index: number, amountUnits: bigint, n: number): SpendInput;
}

/**
 * The treasury of btc/regtest as the gateway builds it (`chains.testNetworks` says regtest) over
 * the test mnemonic's account. Building and verifying plans do no I/O: its one provider is never asked.
 */
export function regtestTreasury(): RegtestTreasury {
  const wallet = new TestSeedWallet(bitcoinParams, 'regtest');
  const adapter = configuredAdapter(btcChain, { testNetworks: { btc: 'regtest' } });
  const network = btcChain.definition.networks.testnets.find((n) => n.id === 'regtest')!;
  const providers = new ProviderPool({ chain: 'btc', network: 'regtest', endpoints: [{ name: 'unused', url: 'http://127.0.0.1:9' }], timeoutMs: 1000 });
  const stranger = BIP32Factory(ecc).fromSeed(Buffer.alloc(32, 7), wallet.network);
  return {
    wallet,
    adapter,
    network,
    treasury: adapter.createTreasury!({ network, providers }),
    bareKey: adapter.parseAccountKey(wallet.accountKey, 'testnet'),
    external: bitcoin.payments.p2wpkh({ pubkey: stranger.publicKey, network: wallet.network }).address!,
    spendInput: (key, branch, index, amountUnits, n) => {
      const address = wallet.address(branch, index);
      return { txHash: n.toString(16).padStart(64, 'a'), outputIndex: n % 3, address, amountUnits, key, branch, index };
    },
  };
}
