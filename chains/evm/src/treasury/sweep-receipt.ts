import { getAddress, id } from 'ethers';
import { MULTICALL3_ABI } from './multicall3.js';
import { TOKEN_SWEEPER_ABI } from './token-sweeper.js';

const SWEEP_SELECTOR = TOKEN_SWEEPER_ABI.getFunction('sweep')!.selector;
const AGGREGATE3_SELECTOR = MULTICALL3_ABI.getFunction('aggregate3')!.selector;
const TRANSFER_TOPIC = id('Transfer(address,address,uint256)');

interface MinedLog {
  readonly address?: string;
  readonly topics?: readonly string[];
}

/**
 * Why a mined sweeper submission moved nothing from an address it swept, or undefined. A call of
 * `sweep(token)` on an address whose EIP-7702 delegation was not in force (its authorization was
 * skipped: its nonce had moved) is a call to a plain account, and succeeds doing nothing; so does
 * the sweep of an address that no longer holds the token. The transaction does not revert, so the
 * receipt's logs tell: every swept address must have sent a `Transfer` of the token. `input` and
 * `to` are the mined transaction's; transactions other than sweeper submissions (a call of
 * `sweep(token)` straight to an address, or Multicall3's `aggregate3` of such calls) answer undefined.
 */
export function sweptNothing(tx: { readonly to?: string | null; readonly input?: string }, logs: readonly MinedLog[]): string | undefined {
  const input = tx.input ?? '';
  let calls: { target: string; data: string }[];
  if (input.startsWith(SWEEP_SELECTOR) && tx.to) calls = [{ target: tx.to, data: input }];
  else if (input.startsWith(AGGREGATE3_SELECTOR)) {
    try {
      const [decoded] = MULTICALL3_ABI.decodeFunctionData('aggregate3', input) as unknown as [{ target: string; callData: string }[]];
      calls = decoded.map((c) => ({ target: c.target, data: c.callData }));
    } catch {
      return undefined;
    }
    if (calls.length === 0 || !calls.every((c) => c.data.startsWith(SWEEP_SELECTOR))) return undefined;
  } else return undefined;
  for (const call of calls) {
    let token: string;
    try {
      token = getAddress(TOKEN_SWEEPER_ABI.decodeFunctionData('sweep', call.data)[0] as string);
    } catch {
      return undefined;
    }
    const from = getAddress(call.target);
    const sent = logs.some(
      (log) =>
        log.address !== undefined &&
        getAddress(log.address) === token &&
        log.topics?.[0] === TRANSFER_TOPIC &&
        log.topics[1] !== undefined &&
        getAddress(`0x${log.topics[1].slice(-40)}`) === from,
    );
    if (!sent) return `the sweep moved nothing from ${from}: its EIP-7702 delegation to the sweeper was not in force, or it held no ${token}`;
  }
  return undefined;
}
