import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { treasuryChainErrors, type NetworkKind } from '@gw/chain-api';
import { CARDANO_NETWORK_ID } from '../derive.js';

/**
 * Parses a plan's destination: a Shelley address (base, script, pointer or enterprise; header types
 * 0-7) in bech32 whose network id is the network's (1 mainnet, 0 the testnets). Anything else,
 * Byron addresses and reward addresses included, throws `treasury_wrong_network`.
 */
export function destinationAddress(address: string, network: NetworkKind): CSL.Address {
  const refuse = (why: string): never => {
    throw treasuryChainErrors.treasury_wrong_network({
      message: `${address.slice(0, 120)} is not a Cardano ${network} payment address: ${why}.`,
      details: { address: address.slice(0, 200), network },
    });
  };
  if (typeof address !== 'string' || address.length > 200 || !/^addr(_test)?1/.test(address)) refuse('expected addr1… (mainnet) or addr_test1… (testnets)');
  let parsed: CSL.Address;
  try {
    parsed = CSL.Address.from_bech32(address);
  } catch {
    return refuse('it does not decode');
  }
  if (parsed.to_bytes()[0]! >> 4 > 7) refuse('not a payment address');
  if (parsed.network_id() !== CARDANO_NETWORK_ID[network]) refuse(`its network id is ${parsed.network_id()}, this network's is ${CARDANO_NETWORK_ID[network]}`);
  return parsed;
}
