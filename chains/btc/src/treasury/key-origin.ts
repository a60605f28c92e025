import { chainErrors, type KeyOrigin, type NetworkKind } from '@gw/chain-api';

/** `[d34db33f/84'/0'/0']xpub…`: a BIP 380 key expression with its origin. */
const KEY_ORIGIN = /^\[([0-9a-fA-F]{8})((?:\/\d{1,10}['hH]?)*)\](.*)$/s;
const HARDENED = 0x80000000;

/** An account key as the operator typed it, split into its key-origin part and the bare key. */
export interface KeyWithOrigin {
  /** The extended key without the origin. */
  readonly key: string;
  /** Present when the input began with `[fingerprint/path]`. */
  readonly origin?: KeyOrigin;
  /** The origin's path as child indexes (hardened ones with the 0x80000000 bit), for the key's own checks. */
  readonly pathIndexes?: readonly number[];
}

/**
 * Splits a BIP 380 key-origin prefix off an account key (`[d34db33f/84'/0'/0']xpub…`, also `h` or
 * `H` for hardened) and normalises it: the fingerprint in lower case, the path as `m/84'/0'/0'`.
 * Input without a leading `[` is returned as the bare key. A malformed origin is
 * `invalid_xpub_format`.
 */
export function splitKeyOrigin(input: string): KeyWithOrigin {
  if (!input.startsWith('[')) return { key: input };
  const match = KEY_ORIGIN.exec(input);
  if (!match) {
    throw chainErrors.invalid_xpub_format({
      message: "The key origin must be [fingerprint/path] before the key: 8 hex digits, then the path, e.g. [d34db33f/84'/0'/0']xpub….",
    });
  }
  const steps = match[2]!.split('/').slice(1);
  const pathIndexes = steps.map((step) => {
    const hardened = /['hH]$/.test(step);
    const index = Number(hardened ? step.slice(0, -1) : step);
    if (index >= HARDENED) throw chainErrors.invalid_xpub_format({ message: `The key origin's path step ${step} is out of range.` });
    return hardened ? index + HARDENED : index;
  });
  const path = ['m', ...pathIndexes.map((i) => (i >= HARDENED ? `${i - HARDENED}'` : String(i)))].join('/');
  return { key: match[3]!, origin: { fingerprint: match[1]!.toLowerCase(), path }, pathIndexes };
}

/**
 * Checks that a key origin's path is this chain's BIP84 account path for the network kind
 * (`m/84'/coinType'/account'`, every step hardened) and names the same account as the key itself
 * (its depth-3 child index). Anything else is `invalid_xpub_format` with the path expected.
 */
export function assertAccountOrigin(pathIndexes: readonly number[], coinType: number, network: NetworkKind, keyAccount: number, chainName: string): void {
  const expected = `m/84'/${coinType}'/${keyAccount}'`;
  const [purpose, coin, account] = pathIndexes;
  const ok =
    pathIndexes.length === 3 && purpose === 84 + HARDENED && coin === coinType + HARDENED && account !== undefined && account === keyAccount + HARDENED;
  if (!ok) {
    const kind = network === 'mainnet' ? 'mainnet' : 'testnet';
    throw chainErrors.invalid_xpub_format({
      message: `The key origin's path must be the ${chainName} ${kind} BIP84 account path of this key, ${expected} (coin type ${coinType}, account ${keyAccount}).`,
    });
  }
}
