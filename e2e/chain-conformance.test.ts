/**
 * The shared chain conformance suite (`chainConformance` of @gw/kernel/testing) for the spec's
 * chains TRON and TON, taken from the composition, with each chain's published vectors
 * and signatures made by its own wallet library (the wallets plugin's test signers: TronWeb,
 * TON's crypto). chains/btc, chains/ada and chains/ltc run the same suite in
 * their own folders, and every EVM chain (eth, polygon, bsc, base) runs it in its own folder through
 * `evmChainConformance` of @gw/chain-evm/testing. Vectors and their sources are the ones each chain's own tests cite.
 */
import test from 'ava';
import { chains } from '@gw/app-gateway';
import type { ChainModule } from '@gw/kernel';
import { chainConformance, type DerivationVectors } from '@gw/kernel/testing';
import { tonAddressSign, tonWallet, tronWallet } from '@gw/testing';

const moduleOf = (id: string): ChainModule => chains.find((chain) => chain.definition.id === id)!;
const vectors = (key: string, path: (index: number) => string, addresses: readonly string[], source: string): DerivationVectors => ({
  key,
  addresses: addresses.map((address, index) => ({ index, address, path: path(index) })),
  source,
});

// An EVM address (MetaMask's vector of the BIP39 test mnemonic), invalid on the other chains.
const EVM_ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

// --- TRON: BIP44 m/44'/195'/0'/0/0 (TronLink's and TronWeb's address of the test mnemonic).
const TRON = 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH';
const tron = vectors(tronWallet.xpub, (i) => `m/44'/195'/0'/0/${i}`, [TRON], 'TronWeb fromMnemonic default path');
chainConformance(test, {
  module: moduleOf('tron'),
  vectors: { mainnet: tron, testnet: tron },
  keysEncodeNetwork: false,
  sign: (message) => tronWallet.sign(message),
  paymentUris: [
    { input: { coin: 'trx', network: 'mainnet', address: TRON, amountUnits: 12_345_678n }, uri: `tron:${TRON}?amount=12.345678` },
    {
      input: { coin: 'usdt_trc20', network: 'mainnet', address: TRON, amountUnits: 100_000_000n },
      uri: `tron:${TRON}?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=100`,
    },
  ],
  invalidAddresses: { mainnet: ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdX', EVM_ADDRESS], testnet: ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYd'] },
});

// --- TON: V5R1 wallets of published public keys (Tonkeeper's TonSwift tests, @ton/ton's spec);
// the proof is signed by a test key of our own (TON Connect signData), the vectors' private keys are not published.
const TON_MAIN_PUB = '5754865e86d0ade1199301bbb0319a25ed6b129c4b0a57f28f62449b3df9c522';
const TON_MAIN = 'UQBiUbwjoB56b7CYtoiPnY5vPh2Fwjva6jEPBhqnttjQKpce';
const TON_TEST_PUB = '71ced1c4c69e53eb7ede24658375f56c142d22cdb21d0728138cb53b817e454e';
// The spec's EQCqe9WqFhS8AfVGDP2xQiTLjbeolhLGsvIbbgQ6C3XT5gGs, in the non-bounceable test-only form the
// gateway shows for receive addresses (the same account; chains/ton's tests compare the two parsed).
const TON_TEST = '0QCqe9WqFhS8AfVGDP2xQiTLjbeolhLGsvIbbgQ6C3XT5ufj';
chainConformance(test, {
  module: moduleOf('ton'),
  vectors: {
    mainnet: vectors(TON_MAIN_PUB, (i) => `m/44'/607'/0'/${i}'`, [TON_MAIN], 'TonSwift WalletsTests "Test Wallet V5R1"'),
    testnet: vectors(TON_TEST_PUB, (i) => `m/44'/607'/0'/${i}'`, [TON_TEST], '@ton/ton WalletContractV5R1.spec.ts'),
  },
  keysEncodeNetwork: false,
  sign: (message) => tonWallet.sign(message),
  signForAddress: (message) => tonAddressSign(message),
  proofKeys: { mainnet: tonWallet.xpub },
  proofNetworks: ['mainnet'],
  paymentUris: [
    {
      input: { coin: 'ton', network: 'mainnet', address: TON_MAIN, amountUnits: 1_500_000_000n, memo: 'inv 42/ä' },
      uri: `ton://transfer/${TON_MAIN}?amount=1500000000&text=inv%2042%2F%C3%A4`,
    },
    {
      input: { coin: 'usdt_ton', network: 'mainnet', address: TON_MAIN, amountUnits: 2_500_000n, memo: 'x' },
      uri: `ton://transfer/${TON_MAIN}?jetton=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs&amount=2500000&text=x`,
    },
  ],
  invalidAddresses: { mainnet: ['UQBiUbwjoB56b7CYtoiPnY5vPh2Fwjva6jEPBhqnttjQKpcX', EVM_ADDRESS], testnet: ['not-an-address'] },
});
