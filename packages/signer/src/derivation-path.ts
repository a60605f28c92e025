import { refuse } from './signer-error.js';

export const HARDENED = 0x80000000;

/** A full account path of the form `m/purpose'/coin'/account'/branch/index`. */
export interface AddressPath {
  readonly purpose: number;
  readonly coinType: number;
  readonly account: number;
  readonly branch: number;
  readonly index: number;
}

const FULL = /^m\/(\d+)'\/(\d+)'\/(\d+)'\/(\d+)\/(\d+)$/;
const ACCOUNT = /^m\/(\d+)'\/(\d+)'\/(\d+)'$/;

function component(text: string, what: string, where: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value >= HARDENED) refuse('plan_unreadable', `${where}: ${what} ${text} is out of range.`);
  return value;
}

/**
 * Parses `m/84'/1'/0'/0/5` (hardened purpose, coin and account; soft branch and index; `'` marks
 * hardened) and checks the purpose and branch. The coin type is the account's (checked with the
 * plan's account key). `where` names the path's place in the plan for messages.
 */
export function parseAddressPath(path: string, expected: { purpose: number; branches: readonly number[] }, where: string): AddressPath {
  const match = typeof path === 'string' ? FULL.exec(path) : null;
  if (!match) refuse('plan_unreadable', `${where}: "${String(path)}" is not a path of the form m/purpose'/coin'/account'/branch/index.`);
  const [purpose, coinType, account, branch, index] = match
    .slice(1)
    .map((part, i) => component(part, ['purpose', 'coin type', 'account', 'branch', 'index'][i]!, where)) as [number, number, number, number, number];
  if (purpose !== expected.purpose) refuse('plan_unreadable', `${where}: the path ${path} is not under purpose ${expected.purpose}'.`);
  if (!expected.branches.includes(branch))
    refuse('plan_unreadable', `${where}: the path ${path} is on branch ${branch}; expected ${expected.branches.join(' or ')}.`);
  return { purpose, coinType, account, branch, index };
}

/** Parses an account path `m/84'/1'/0'`; null when it is not one. */
export function parseAccountPath(path: string): { purpose: number; coinType: number; account: number } | null {
  const match = typeof path === 'string' ? ACCOUNT.exec(path) : null;
  if (!match) return null;
  const [purpose, coinType, account] = match.slice(1).map(Number) as [number, number, number];
  if (![purpose, coinType, account].every((n) => Number.isSafeInteger(n) && n < HARDENED)) return null;
  return { purpose, coinType, account };
}

/** Whether an address path is under an account path (the same purpose, coin type and account). */
export function isUnderAccount(path: AddressPath, accountPath: string): boolean {
  const account = parseAccountPath(accountPath);
  return !!account && account.purpose === path.purpose && account.coinType === path.coinType && account.account === path.account;
}

export function formatPath(path: AddressPath): string {
  return `m/${path.purpose}'/${path.coinType}'/${path.account}'/${path.branch}/${path.index}`;
}
