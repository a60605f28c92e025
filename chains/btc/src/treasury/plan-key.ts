import { chainErrors, type AccountKey, type AppError, type KeyOrigin } from '@gw/chain-api';
import { accountNode } from './account-derivation.js';
import { assertAccountOrigin, splitKeyOrigin } from './key-origin.js';
import type { TreasuryNetwork } from './treasury-network.js';

const HARDENED = 0x80000000;

/**
 * Checks the account key a plan names for an input (an object of this chain and network kind
 * whose canonical form is an extended public key of the network) and its key origin, and returns
 * the origin normalised as the adapter stores it (`m/84'/1'/0'`, lower-case fingerprint), or
 * undefined without one. The origin (`input.origin`, else the key's) passes the checks key
 * registration applies (`splitKeyOrigin`, `assertAccountOrigin`): `m/84h/1h/0h` becomes
 * `m/84'/1'/0'`, never the unhardened `m/84/1/0` a PSBT would otherwise carry. Anything else is
 * `validation_error`, `where` naming the input.
 */
export function planKeyOrigin(key: AccountKey, origin: KeyOrigin | undefined, net: TreasuryNetwork, where: string): KeyOrigin | undefined {
  if (typeof key !== 'object' || key === null) throw chainErrors.validation_error({ message: `${where}: no account key.` });
  if (key.chain !== net.chain)
    throw chainErrors.validation_error({ message: `${where}: the account key is a ${String(key.chain)} key, the chain is ${net.chain}.` });
  if (key.network !== net.definition.kind) {
    throw chainErrors.validation_error({ message: `${where}: the account key is a ${String(key.network)} key, the network is ${net.definition.kind}.` });
  }
  if (typeof key.canonical !== 'string' || key.canonical.length > 200)
    throw chainErrors.validation_error({ message: `${where}: the account key is not a key.` });
  const node = accountNode(key.canonical, net.network);
  const given = origin ?? key.origin;
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null || typeof given.fingerprint !== 'string' || typeof given.path !== 'string' || !given.path.startsWith('m/')) {
    throw chainErrors.validation_error({ message: `${where}: the key origin must be { fingerprint, path: "m/84'/…" }.` });
  }
  try {
    const split = splitKeyOrigin(`[${given.fingerprint}${given.path.slice(1)}]`);
    const account = node.index >= HARDENED ? node.index - HARDENED : -1;
    assertAccountOrigin(split.pathIndexes ?? [], net.params.coinType[net.definition.kind], net.definition.kind, account, net.params.name);
    return split.origin;
  } catch (error) {
    throw chainErrors.validation_error({ message: `${where}: ${(error as AppError).message}` });
  }
}
