import { ORDINARY_CAPABILITIES, type ChainDefinition } from '@gw/chain-api';
import { EVM_COIN_TYPE } from './derive.js';

/** What an EVM chain's definition states: everything the shared EVM adapter does not decide for it. */
export type EvmChainSpec = Omit<ChainDefinition, 'verificationStandard' | 'capabilities' | 'accountPath'>;

/**
 * The definition of a chain the shared EVM adapter serves: BIP44 keys under m/44'/60'/0' on every
 * network (the adapter derives with coin type 60 on testnets too, as EVM wallets do), the
 * ordinary capabilities and the account treasury (issue 36).
 */
export function evmChainDefinition(spec: EvmChainSpec): ChainDefinition {
  const accountPath = `m/44'/${EVM_COIN_TYPE}'/0'`;
  return {
    ...spec,
    verificationStandard: 'bip44',
    capabilities: { ...ORDINARY_CAPABILITIES, accountTreasury: true },
    accountPath: { mainnet: accountPath, testnet: accountPath },
  };
}
