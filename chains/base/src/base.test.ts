import test from 'ava';
import { HDNodeWallet, Mnemonic, Wallet } from 'ethers';
import { isEvmAddress } from '@gw/chain-evm';
import { chainConformance } from '@gw/chain-api/testing';
import { baseChain } from './index.js';

// BIP44 Ethereum vectors of the BIP39 test mnemonic "abandon ... about" at m/44'/60'/0'/0/i (the
// addresses MetaMask and ethers derive for it; recomputed here with ethers). EVM keys and addresses
// carry no network, so Base Sepolia uses the same key and addresses.
const MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const XPUB = 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt';
const ADDRESSES = ['0x9858EfFD232B4033E47d90003D41EC34EcaEda94', '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0'];
const USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const USDC_SEPOLIA = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(MNEMONIC).computeSeed());
const vectors = (network: string) => ({
  key: XPUB,
  addresses: ADDRESSES.map((address, index) => ({ index, address, path: `m/44'/60'/0'/0/${index}` })),
  source: `BIP44 Ethereum path of the BIP39 test mnemonic (ethers), ${network}`,
});

chainConformance(test, {
  module: baseChain,
  vectors: { mainnet: vectors('Base mainnet'), testnet: vectors('Base Sepolia') },
  keysEncodeNetwork: false,
  // EIP-191 personal_sign, as MetaMask and Coinbase Wallet sign, by ethers.
  sign: (message) => new Wallet(root.derivePath("m/44'/60'/0'/0/0").privateKey).signMessage(message),
  paymentUris: [
    {
      input: { coin: 'eth_base', network: 'mainnet', address: ADDRESSES[0]!, amountUnits: 10n ** 18n },
      uri: `ethereum:${ADDRESSES[0]}@8453?value=1000000000000000000`,
    },
    {
      input: { coin: 'usdc_base', network: 'mainnet', address: ADDRESSES[0]!, amountUnits: 25_500_000n },
      uri: `ethereum:${USDC}@8453/transfer?address=${ADDRESSES[0]}&uint256=25500000`,
    },
    {
      input: { coin: 'usdc_base', network: 'testnet', address: ADDRESSES[1]!, amountUnits: 1n },
      uri: `ethereum:${USDC_SEPOLIA}@84532/transfer?address=${ADDRESSES[1]}&uint256=1`,
    },
  ],
  invalidAddresses: {
    // Wrong EIP-55 checksum, one hex digit short, a TRON address, the zero address.
    mainnet: [
      '0x9858efFD232B4033E47d90003D41EC34EcaEda94',
      '0x9858EfFD232B4033E47d90003D41EC34EcaEda9',
      'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      `0x${'0'.repeat(40)}`,
    ],
    testnet: ['0x9858efFD232B4033E47d90003D41EC34EcaEda94', 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu'],
  },
});

test('definition: chain ids 8453 / 84532, native Circle USDC with 6 decimals on both networks, off by default', (t) => {
  const d = baseChain.definition;
  t.false(baseChain.enabledByDefault);
  t.is(d.networks.mainnet.evmChainId, 8453);
  t.is(d.networks.testnets[0].id, 'base-sepolia');
  t.is(d.networks.testnets[0].evmChainId, 84532);
  t.deepEqual(
    d.coins.map((c) => [c.id, c.decimals, c.price.symbol]),
    [
      ['eth_base', 18, 'ETH'],
      ['usdc_base', 6, 'USDC'],
    ],
  );
  const usdc = d.coins.find((c) => c.id === 'usdc_base')!;
  t.deepEqual(usdc.contracts, { base: USDC, 'base-sepolia': USDC_SEPOLIA });
  for (const contract of Object.values(usdc.contracts ?? {})) t.true(isEvmAddress(contract), contract);
  t.is(usdc.sandboxContract, undefined, 'Circle publishes a Sepolia contract: no synthetic one');
});

test('the account xpub is the one ethers derives from the mnemonic', (t) => {
  t.is(root.derivePath("m/44'/60'/0'").neuter().extendedKey, XPUB);
  t.deepEqual(
    [0, 1].map((i) => root.derivePath(`m/44'/60'/0'/0/${i}`).address),
    ADDRESSES,
  );
});
