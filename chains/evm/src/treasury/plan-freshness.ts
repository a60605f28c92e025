import { chainErrors, treasuryChainErrors, type AccountStep } from '@gw/chain-api';
import { getAddress, Transaction, verifyAuthorization } from 'ethers';
import { quantity, type EvmRpc } from './evm-rpc.js';
import { signerAddress } from './plan-steps.js';

/** One nonce a plan counts on: a transaction's, or an EIP-7702 authorization's (its own step, or carried by a submission). */
interface PlannedNonce {
  readonly address: string;
  readonly nonce: bigint;
  readonly stepId: string;
  /** `transaction`: used by the step's own transaction. `authorization`: valid only while the account is at exactly this nonce. */
  readonly kind: 'transaction' | 'authorization';
  /** The transaction steps whose inclusion uses this nonce (the step itself; a submission carrying the authorization). */
  readonly usedBy: readonly string[];
}

/**
 * EVM freshness (see `AccountTreasury.checkFresh`). Reads every account's pending nonce in one
 * batch; the plan is stale when
 *
 * - a transaction step's nonce is below its account's, and the chain does not have that step's own
 *   transaction (found by its id in `txids`, sent by the step's account at the step's nonce): the
 *   account used the nonce for something else;
 * - an EIP-7702 authorization (a round-1 step, or one a round-2 submission carries) is not at its
 *   account's nonce, and no submission carrying it is on chain: the chain would skip it, and the
 *   sweep of the then plain address would "succeed" moving nothing.
 *
 * Steps and authorizations already on chain are not stale: a plan resumed after stage 1 passes.
 */
export async function checkEvmFresh(rpc: EvmRpc, steps: readonly AccountStep[], txids: ReadonlyMap<string, string> = new Map()): Promise<void> {
  const planned = plannedNonces(steps);
  if (planned.length === 0) return;
  const addresses = [...new Set(planned.map((p) => p.address))];
  const answers = await rpc.batch(
    'nonces',
    addresses.map((address) => ['eth_getTransactionCount', [address, 'pending']] as [string, unknown[]]),
  );
  const onChain = new Map(addresses.map((address, i) => [address, quantity(answers[i], 'eth_getTransactionCount')]));
  const moved = planned.filter((p) => (p.kind === 'transaction' ? onChain.get(p.address)! > p.nonce : onChain.get(p.address)! !== p.nonce));
  if (moved.length === 0) return;
  const landed = await landedSteps(rpc, steps, [...new Set(moved.flatMap((p) => p.usedBy))], txids);
  for (const p of moved) {
    if (p.usedBy.some((id) => landed.has(id))) continue;
    const at = onChain.get(p.address)!;
    throw treasuryChainErrors.treasury_nonce_stale({
      message:
        p.kind === 'transaction'
          ? `${p.address} is at nonce ${at}; step ${p.stepId} was planned at ${p.nonce} and the chain has another transaction there. Make a new plan.`
          : `${p.address} is at nonce ${at}; its EIP-7702 authorization (${p.stepId}) was signed at ${p.nonce} and would be skipped, sweeping nothing. Make a new plan.`,
    });
  }
}

function plannedNonces(steps: readonly AccountStep[]): PlannedNonce[] {
  const planned: PlannedNonce[] = [];
  const authorizations = new Map<string, PlannedNonce>();
  const addAuthorization = (address: string, nonce: bigint, stepId: string, usedBy: readonly string[]): void => {
    const key = `${address}/${nonce}`;
    const seen = authorizations.get(key);
    authorizations.set(key, { address, nonce, stepId: seen?.stepId ?? stepId, kind: 'authorization', usedBy: [...(seen?.usedBy ?? []), ...usedBy] });
  };
  for (const step of steps) {
    if (step.nonce === null) continue;
    const address = getAddress(signerAddress(step));
    if (step.kind === 'authorization') {
      if (step.unsigned.format === 'evm-7702-authorization') addAuthorization(address, step.nonce, step.id, []);
      continue;
    }
    planned.push({ address, nonce: step.nonce, stepId: step.id, kind: 'transaction', usedBy: [step.id] });
    for (const carried of carriedAuthorizations(step)) addAuthorization(carried.address, carried.nonce, `carried by ${step.id}`, [step.id]);
  }
  return [...planned, ...authorizations.values()];
}

/** The authorities and nonces of the EIP-7702 authorizations a type-4 submission carries. */
function carriedAuthorizations(step: AccountStep): { address: string; nonce: bigint }[] {
  if (step.unsigned.format !== 'evm-tx' || !step.unsigned.data.startsWith('0x04')) return [];
  const tx = Transaction.from(step.unsigned.data);
  return (tx.authorizationList ?? []).map((auth) => {
    try {
      return { address: getAddress(verifyAuthorization(auth, auth.signature)), nonce: auth.nonce };
    } catch (error) {
      throw chainErrors.validation_error({
        message: `Step ${step.id} carries an authorization that recovers no key (${(error as Error).message.slice(0, 80)}).`,
      });
    }
  });
}

/** Which of `ids` the chain has: a transaction by the step's id in `txids`, from the step's account at the step's nonce. */
async function landedSteps(rpc: EvmRpc, steps: readonly AccountStep[], ids: readonly string[], txids: ReadonlyMap<string, string>): Promise<Set<string>> {
  const lookups = ids.flatMap((id) => {
    const txid = txids.get(id);
    const step = steps.find((s) => s.id === id);
    return txid && step ? [{ step, txid }] : [];
  });
  if (lookups.length === 0) return new Set();
  const answers = await rpc.batch(
    'plan_lookup',
    lookups.map(({ txid }) => ['eth_getTransactionByHash', [txid]] as [string, unknown[]]),
  );
  const landed = new Set<string>();
  lookups.forEach(({ step, txid }, i) => {
    const tx = answers[i]!.result as { hash?: string; from?: string; nonce?: string } | null | undefined;
    if (!tx?.from || !tx.nonce || tx.hash?.toLowerCase() !== txid.toLowerCase()) return;
    if (getAddress(tx.from) === getAddress(signerAddress(step)) && BigInt(tx.nonce) === step.nonce) landed.add(step.id);
  });
  return landed;
}
