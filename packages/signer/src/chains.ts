import * as bitcoin from 'bitcoinjs-lib';
import { refuse } from './signer-error.js';

/**
 * The chains and networks the signer knows, with the parameters it needs to derive and check
 * addresses. They are the same values as the chain packages' (chains/btc `bitcoinParams`,
 * chains/ltc `litecoinParams`, chains/ada `CARDANO_NETWORK_ID`; `chains.test.ts` compares them), kept
 * here so the signer depends on no chain package.
 */
export type NetworkKind = 'mainnet' | 'testnet';

interface ChainBase {
  readonly id: string;
  readonly name: string;
  readonly symbol: string;
  /** Name of the base unit (`sat`). */
  readonly unit: string;
  readonly decimals: number;
}

/** A BIP 84 (native segwit P2WPKH) chain: Bitcoin, Litecoin. */
export interface Bip84Chain extends ChainBase {
  readonly family: 'bip84';
  readonly networks: Readonly<Record<string, { readonly kind: NetworkKind; readonly params: bitcoin.Network }>>;
  /** BIP 44 coin type per network kind. */
  readonly coinType: Readonly<Record<NetworkKind, number>>;
  /**
   * Extended private key versions accepted as account keys, by network kind, with their names: the
   * chain's own only. A key in another chain's versions is refused (an xprv offered for a Litecoin
   * plan may be the Bitcoin account's: the scripts are the same on both chains, so a signature
   * made with it could spend Bitcoin).
   */
  readonly privateVersions: Readonly<Record<NetworkKind, Readonly<Record<number, string>>>>;
  /** How the ownership challenge is signed (what the chain adapter's `verifyOwnership` checks). */
  readonly messageSigning: { readonly scheme: 'bip322' } | { readonly scheme: 'bip137'; readonly prefix: string };
}

/** Cardano (CIP-1852 keys, Shelley base addresses). */
export interface CardanoChain extends ChainBase {
  readonly family: 'cardano';
  readonly networks: Readonly<Record<string, { readonly kind: NetworkKind; readonly networkId: 0 | 1 }>>;
}

export type SignerChain = Bip84Chain | CardanoChain;

const XPRV = 0x0488ade4;
const ZPRV = 0x04b2430c;
const TPRV = 0x04358394;
const VPRV = 0x045f18bc;
const LTPV = 0x019d9cfe;
const TTPV = 0x0436ef7d;

/** Every extended private key version the signer knows, with its name and its chain (for refusals). */
export const KNOWN_PRIVATE_VERSIONS: Readonly<Record<number, { readonly name: string; readonly chain: string }>> = {
  [XPRV]: { name: 'xprv', chain: 'Bitcoin' },
  [ZPRV]: { name: 'zprv', chain: 'Bitcoin' },
  [TPRV]: { name: 'tprv', chain: 'Bitcoin' },
  [VPRV]: { name: 'vprv', chain: 'Bitcoin' },
  [LTPV]: { name: 'Ltpv', chain: 'Litecoin' },
  [TTPV]: { name: 'ttpv', chain: 'Litecoin' },
};

const LITECOIN_PREFIX = '\x19Litecoin Signed Message:\n';
const litecoinTest = (bech32: string): bitcoin.Network => ({
  messagePrefix: LITECOIN_PREFIX,
  bech32,
  bip32: { public: 0x0436f6e1, private: TTPV },
  pubKeyHash: 0x6f,
  scriptHash: 0x3a,
  wif: 0xef,
});

export const BTC: Bip84Chain = {
  family: 'bip84',
  id: 'btc',
  name: 'Bitcoin',
  symbol: 'BTC',
  unit: 'sat',
  decimals: 8,
  networks: {
    bitcoin: { kind: 'mainnet', params: bitcoin.networks.bitcoin },
    testnet: { kind: 'testnet', params: bitcoin.networks.testnet },
    signet: { kind: 'testnet', params: bitcoin.networks.testnet },
    regtest: { kind: 'testnet', params: bitcoin.networks.regtest },
  },
  coinType: { mainnet: 0, testnet: 1 },
  privateVersions: { mainnet: { [XPRV]: 'xprv', [ZPRV]: 'zprv' }, testnet: { [TPRV]: 'tprv', [VPRV]: 'vprv' } },
  messageSigning: { scheme: 'bip322' },
};

export const LTC: Bip84Chain = {
  family: 'bip84',
  id: 'ltc',
  name: 'Litecoin',
  symbol: 'LTC',
  unit: 'litoshi',
  decimals: 8,
  networks: {
    litecoin: {
      kind: 'mainnet',
      params: {
        messagePrefix: LITECOIN_PREFIX,
        bech32: 'ltc',
        bip32: { public: 0x019da462, private: LTPV },
        pubKeyHash: 0x30,
        scriptHash: 0x32,
        wif: 0xb0,
      },
    },
    testnet: { kind: 'testnet', params: litecoinTest('tltc') },
    regtest: { kind: 'testnet', params: litecoinTest('rltc') },
  },
  coinType: { mainnet: 2, testnet: 1 },
  privateVersions: { mainnet: { [LTPV]: 'Ltpv' }, testnet: { [TTPV]: 'ttpv' } },
  messageSigning: { scheme: 'bip137', prefix: LITECOIN_PREFIX },
};

export const ADA: CardanoChain = {
  family: 'cardano',
  id: 'ada',
  name: 'Cardano',
  symbol: 'ADA',
  unit: 'lovelace',
  decimals: 6,
  networks: {
    cardano: { kind: 'mainnet', networkId: 1 },
    preprod: { kind: 'testnet', networkId: 0 },
    preview: { kind: 'testnet', networkId: 0 },
  },
};

const CHAINS: Readonly<Record<string, SignerChain>> = { btc: BTC, ltc: LTC, ada: ADA };

/** The chain `id` names, or a `usage`/`plan_unreadable` refusal naming the ones known. */
export function chainOf(id: string, code: 'usage' | 'plan_unreadable' = 'plan_unreadable'): SignerChain {
  const chain = CHAINS[id];
  if (!chain) refuse(code, `Unknown chain "${id}"; the signer signs ${Object.keys(CHAINS).join(', ')}.`);
  return chain;
}

/** The network `id` of `chain`, or a `wrong_network` refusal naming the ones known. */
export function networkOf<C extends SignerChain>(chain: C, id: string): C['networks'][string] {
  const network = chain.networks[id];
  if (!network) refuse('wrong_network', `${chain.name} has no network "${id}"; known: ${Object.keys(chain.networks).join(', ')}.`);
  return network as C['networks'][string];
}
