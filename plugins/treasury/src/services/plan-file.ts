import type { ChainAdapter, NetworkKind, PlanAccount, PlanFile, PlanOutput, SpendInput, UnsignedTransaction } from '@gw/kernel';
import type { PlanKind } from '../plan-status.js';

/**
 * The plan file handed to a signer (packages/chain-api/src/treasury/plan-file.ts): the unsigned
 * transaction and a summary the signer checks against it. Paths are the full paths from the master
 * key when the wallet was registered with a key origin, else the account path of the key itself
 * (its own account number: the signer refuses a path whose account differs from the key's).
 */
export function buildPlanFile(input: {
  planId: string;
  adapter: ChainAdapter;
  network: { id: string; kind: NetworkKind };
  coin: string;
  kind: Exclude<PlanKind, 'activation' | 'sweeper_deployment'>;
  unsigned: UnsignedTransaction;
  feeRate: bigint;
  createdAt: Date;
  /** The account an own destination belongs to (its change chain). */
  ownKey?: SpendInput['key'];
}): PlanFile {
  const { unsigned, adapter } = input;
  const accounts: PlanAccount[] = [];
  const accountOf = (key: SpendInput['key'], origin: SpendInput['origin']): number => {
    const at = accounts.findIndex((a) => a.key === key.canonical);
    if (at >= 0) return at;
    accounts.push({ key: key.canonical, fingerprint: origin?.fingerprint ?? null, path: origin?.path ?? accountPathOf(adapter, key) });
    return accounts.length - 1;
  };
  const inputs = unsigned.inputs.map((i) => {
    const account = accountOf(i.key, i.origin ?? i.key.origin);
    return {
      tx_hash: i.txHash,
      output_index: i.outputIndex,
      address: i.address,
      amount_units: i.amountUnits.toString(),
      account,
      path: `${accounts[account]!.path}/${i.branch}/${i.index}`,
    };
  });
  const ownAccount = input.ownKey ? accountOf(input.ownKey, input.ownKey.origin) : (inputs[0]?.account ?? 0);
  const outputs = unsigned.outputs.map((o: PlanOutput & { amountUnits: bigint }) => ({
    address: o.address,
    amount_units: o.amountUnits.toString(),
    destination: o.own
      ? { kind: 'own' as const, account: ownAccount, path: `${accounts[ownAccount]!.path}/${o.own.branch}/${o.own.index}` }
      : { kind: 'external' as const },
  }));
  return {
    format: 'gateway-treasury-plan',
    version: 1,
    plan_id: input.planId,
    chain: adapter.definition.id,
    network: input.network.id,
    coin: input.coin,
    kind: input.kind,
    accounts,
    inputs,
    outputs,
    fee_units: unsigned.feeUnits.toString(),
    fee_rate: input.feeRate.toString(),
    unsigned: { format: unsigned.format, data: unsigned.data, txid: unsigned.txid },
    created_at: input.createdAt.toISOString(),
  };
}

/** The account path of a key registered without an origin: its receive index 0's path without the branch and index. */
function accountPathOf(adapter: ChainAdapter, key: SpendInput['key']): string {
  return adapter.deriveAddress(key, 0).path.split('/').slice(0, -2).join('/');
}
