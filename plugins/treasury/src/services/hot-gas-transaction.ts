import { getAddress, Interface, type Transaction } from 'ethers';
import type { AccountNetwork } from './account-networks.js';

const SWEEP = new Interface(['function sweep(address token)']);
const MULTICALL3 = new Interface([
  'function aggregate3((address target, bool allowFailure, bytes callData)[] calls) payable returns ((bool success, bytes returnData)[] returnData)',
]);
const EIP3009 = new Interface([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);
const SWEEP_SELECTOR = SWEEP.getFunction('sweep')!.selector;
const TRANSFER_WITH_AUTHORIZATION_SELECTOR = EIP3009.getFunction('transferWithAuthorization')!.selector;

/** What the hot gas wallet knows of the step it is asked to sign, from the plan and the chain definition (never from `plan.context`). */
export interface HotGasExpectation {
  readonly method: string;
  readonly coin: string;
  readonly destination: string;
  /** The deposit addresses the plan holds. */
  readonly held: readonly string[];
  /** The step's native coin moved (a top-up's value). */
  readonly nativeMoved: bigint;
}

/**
 * Reads the gas-address transaction the hot gas wallet is asked to sign, independently of how it was
 * built: the network's chain id; a top-up (gas_top_up) sends exactly the step's native amount, with
 * no data, to a deposit address the plan holds; a sweep submission sends no value and either calls
 * the network's Multicall3 `aggregate3` whose every call is a sweep of a held deposit address
 * (eip7702) or a `transferWithAuthorization` of the coin's token from a held address to the plan's
 * destination (eip3009), or is one such call straight. Returns the reason it is refused, or null.
 */
export function refusalOf(target: AccountNetwork, tx: Transaction, expected: HotGasExpectation): string | null {
  const network = [target.adapter.definition.networks.mainnet, ...target.adapter.definition.networks.testnets].find((n) => n.id === target.network);
  if (network?.evmChainId === undefined || tx.chainId !== BigInt(network.evmChainId))
    return `the transaction is for chain id ${tx.chainId}, not ${network?.evmChainId}`;
  if (!tx.to) return 'the transaction creates a contract';
  const held = new Set(expected.held.map((a) => a.toLowerCase()));
  const to = tx.to.toLowerCase();
  if (expected.method === 'gas_top_up') {
    if (tx.data !== '0x') return 'a top-up carries no data';
    if (!held.has(to)) return `a top-up goes to a deposit address of the plan, not ${tx.to}`;
    if (tx.value !== expected.nativeMoved) return `the top-up sends ${tx.value}, the step ${expected.nativeMoved}`;
    return null;
  }
  if (tx.value !== 0n) return 'a sweep submission sends no value';
  const token = target.adapter.definition.coins.find((c) => c.id === expected.coin)?.contracts?.[target.network]?.toLowerCase();
  if (!token) return `${expected.coin} has no token contract on ${target.network}`;
  const callRefusal = (callTo: string, data: string): string | null => {
    try {
      if (expected.method === 'eip7702') {
        if (!held.has(callTo.toLowerCase())) return `a sweep call goes to ${callTo}, not a deposit address of the plan`;
        if (data.slice(0, 10) !== SWEEP_SELECTOR) return 'a call is not the sweeper’s sweep';
        if (getAddress(SWEEP.decodeFunctionData('sweep', data)[0]).toLowerCase() !== token) return 'a sweep names another token';
        return null;
      }
      if (expected.method === 'eip3009') {
        if (callTo.toLowerCase() !== token) return `a call goes to ${callTo}, not the ${expected.coin} contract`;
        if (data.slice(0, 10) !== TRANSFER_WITH_AUTHORIZATION_SELECTOR) return 'a call is not transferWithAuthorization';
        const [from, to] = EIP3009.decodeFunctionData('transferWithAuthorization', data);
        if (!held.has(String(from).toLowerCase())) return `an authorization moves from ${from}, not a deposit address of the plan`;
        if (String(to).toLowerCase() !== expected.destination.toLowerCase()) return `an authorization pays ${to}, not the plan’s destination`;
        return null;
      }
    } catch {
      return 'a call does not decode';
    }
    return `the method ${expected.method} has no gas-address transaction`;
  };
  if (network.multicall3 && to === network.multicall3.toLowerCase()) {
    let calls: { target: string; callData: string }[];
    try {
      calls = MULTICALL3.decodeFunctionData('aggregate3', tx.data)[0].map((c: { target: string; callData: string }) => ({
        target: c.target,
        callData: c.callData,
      }));
    } catch {
      return 'the Multicall3 call does not decode as aggregate3';
    }
    if (calls.length === 0) return 'the submission makes no call';
    for (const call of calls) {
      const refusal = callRefusal(call.target, call.callData);
      if (refusal) return refusal;
    }
    return null;
  }
  return callRefusal(tx.to, tx.data);
}
