import { chainErrors } from '@gw/chain-api';
import { HDNodeVoidWallet, HDNodeWallet } from 'ethers';

/** SLIP-44 coin type of Ethereum, used by every EVM chain this gateway serves (BIP44 m/44'/60'). */
export const EVM_COIN_TYPE = 60;

const receiveChains = new Map<string, { chain: HDNodeVoidWallet; account: number }>();

/** The external (receive) chain node m/44'/60'/account'/0 of a canonical account xpub; cached. */
export function receiveChainOf(canonical: string): { chain: HDNodeVoidWallet; account: number } {
  let entry = receiveChains.get(canonical);
  if (!entry) {
    let node: HDNodeVoidWallet | HDNodeWallet;
    try {
      node = HDNodeWallet.fromExtendedKey(canonical);
    } catch (cause) {
      throw chainErrors.invalid_xpub_format({ message: 'The extended key does not hold a valid public key.', cause });
    }
    if (!(node instanceof HDNodeVoidWallet)) throw chainErrors.invalid_xpub_format({ message: 'Expected a public extended key.' });
    entry = { chain: node.deriveChild(0), account: node.index - 0x80000000 };
    if (receiveChains.size > 256) receiveChains.clear();
    receiveChains.set(canonical, entry);
  }
  return entry;
}

/** EIP-55 checksummed address and path of receive index `index`. Pure. */
export function deriveEvmAddress(canonical: string, index: number): { address: string; path: string } {
  const { chain, account } = receiveChainOf(canonical);
  const child = chain.deriveChild(index);
  return { address: child.address, path: `m/44'/${EVM_COIN_TYPE}'/${account}'/0/${index}` };
}
