import { readHotGasKey } from '@gw/chain-evm';
import { sql, sqlQuery } from '@gw/kernel';
import { Transaction, Wallet } from 'ethers';
import type { Knex } from 'knex';
import type { TreasuryConfig } from '../config.js';
import { treasuryErrors } from '../errors.js';
import { Plan } from '../models/plan.js';
import { PlanAddress } from '../models/plan-address.js';
import { PlanStep } from '../models/plan-step.js';
import type { AccountNetwork } from './account-networks.js';
import { refusalOf } from './hot-gas-transaction.js';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';

/** Methods whose gas-address transactions are top-ups (gas_top_up) or sweep submissions (eip7702, eip3009). */
const GAS_METHODS = new Set(['gas_top_up', 'eip7702', 'eip3009']);

/**
 * The operator's opt-in hot gas wallet (issue 36): custody of gas money, never of payments. It
 * signs one thing only: a step stored in an open plan, from the configured gas address, that tops
 * up a token address or submits a sweep, under the caps per transaction and per day (the value it
 * sends plus its maximum fee). It is asked by plan and step id, never handed a transaction, so
 * nothing outside a plan can reach the key. EVM only (`evm-tx` steps).
 */
export class HotGasWallet {
  private readonly wallets = new Map<string, Wallet>();

  constructor(private readonly deps: { treasuryConfig: TreasuryConfig; addressPoolService: AddressPoolService }) {}

  /** Whether the network has a hot gas wallet configured. */
  configured(target: Pick<AccountNetwork, 'chain' | 'network'>): boolean {
    return Boolean(this.settings(target));
  }

  /** Whether the hot wallet would be the one to sign this step (a gas-address transaction of a top-up or submission method). */
  signs(target: AccountNetwork, plan: Pick<Plan, 'method'>, step: Pick<PlanStep, 'kind' | 'signer_kind' | 'signer_role' | 'unsigned_format'>): boolean {
    return (
      this.configured(target) &&
      GAS_METHODS.has(plan.method ?? '') &&
      step.kind === 'transaction' &&
      step.signer_kind === 'operator' &&
      step.signer_role === 'gas' &&
      step.unsigned_format === 'evm-tx'
    );
  }

  /**
   * Signs the step `stepId` of the plan `planId` in `trx` (which must hold the plan's row lock):
   * the signed transaction, hex. Throws `treasury_hot_wallet_refused` for anything that is not a
   * planned top-up or submission awaiting its signature, `treasury_hot_wallet_cap_exceeded` over a
   * cap. The caller verifies the result against the step like any signed step and stores it with
   * `signed_by = 'hot_gas_wallet'`, which the daily cap sums.
   */
  async sign(trx: Knex.Transaction, target: AccountNetwork, planId: string, stepId: string): Promise<{ signed: string; spendUnits: bigint }> {
    const settings = this.settings(target);
    const refuse = (reason: string) =>
      treasuryErrors.treasury_hot_wallet_refused({ message: `The hot gas wallet refused: ${reason}.`, details: { plan_id: planId, step_id: stepId } });
    if (!settings) throw refuse(`none is configured for ${target.chain} ${target.network}`);
    const plan = await Plan.query(trx).findById(planId);
    if (!plan || plan.method === null || plan.chain !== target.chain || plan.network !== target.network) throw refuse('no such account plan on this network');
    if (plan.status !== 'awaiting_signature') throw refuse(`the plan is ${plan.status}`);
    const step = await PlanStep.query(trx).findOne({ plan_id: planId, step_id: stepId });
    if (!step) throw refuse('the plan has no such step');
    if (!this.signs(target, plan, step)) throw refuse('the step is not a top-up or sweep submission from the gas address');
    if (step.status !== 'awaiting_signature' || step.round !== plan.round) throw refuse('the step does not await a signature now');
    // A pool address receives payments: a hot key there would spend them. Asked at each signature, since pools grow.
    if ((await this.deps.addressPoolService.lookupAddresses(target.chain, [step.signer_address], trx)).length > 0) {
      throw refuse(`the gas address ${step.signer_address} is a pool address that receives payments`);
    }
    const wallet = this.wallet(target, settings.privateKeyFile);
    if (wallet.address.toLowerCase() !== step.signer_address.toLowerCase()) {
      throw refuse(`its key is for ${wallet.address}, the step is signed by ${step.signer_address}`);
    }
    let tx: Transaction;
    try {
      tx = Transaction.from(step.unsigned_data);
    } catch {
      throw refuse('the step is no EVM transaction');
    }
    // The stored transaction is read for itself, not trusted as built: what it does must be a top-up
    // or sweep submission of this plan's held addresses (the signed result is then verified against
    // the step like any signature before it is stored).
    if (step.nonce !== null && BigInt(tx.nonce) !== step.nonce) throw refuse('the transaction is not the step (nonce)');
    if (tx.signature) throw refuse('the stored transaction is already signed');
    const held = await PlanAddress.query(trx).where({ plan_id: planId, held: true });
    const refusal = refusalOf(target, tx, {
      method: plan.method,
      coin: plan.coin,
      destination: plan.destination,
      held: held.map((a) => a.address),
      nativeMoved: BigInt(step.moves[target.nativeCoin] ?? '0'),
    });
    if (refusal) throw refuse(refusal);
    const spend = tx.value + tx.gasLimit * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n);
    const perTransaction = BigInt(settings.maxPerTransactionUnits);
    if (spend > perTransaction) {
      throw treasuryErrors.treasury_hot_wallet_cap_exceeded({
        message: `The transaction may spend ${spend}, above the cap of ${perTransaction} per transaction.`,
        details: { spend_units: spend.toString(), cap_units: perTransaction.toString(), cap: 'transaction' },
      });
    }
    // One signer at a time per network, so two plans cannot both pass the daily sum.
    await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${`treasury:hot-gas:${target.chain}:${target.network}`}, 0))`);
    const [row] = await sqlQuery<{ spent: string }>(
      trx,
      sql`select coalesce(sum(s.hot_spend_units), 0)::text as spent
            from treasury_plan_steps s join treasury_plans p on p.id = s.plan_id
           where s.signed_by = 'hot_gas_wallet' and s.signed_at > now() - interval '24 hours'
             and p.chain = ${target.chain} and p.network = ${target.network}`,
    );
    const spent = BigInt(row!.spent);
    const perDay = BigInt(settings.maxPerDayUnits);
    if (spent + spend > perDay) {
      throw treasuryErrors.treasury_hot_wallet_cap_exceeded({
        message: `The hot gas wallet signed for ${spent} in the last 24 hours; ${spend} more is above the cap of ${perDay} per day.`,
        details: { spend_units: spend.toString(), spent_units: spent.toString(), cap_units: perDay.toString(), cap: 'day' },
      });
    }
    const signed = tx.clone();
    signed.signature = wallet.signingKey.sign(signed.unsignedHash);
    return { signed: signed.serialized, spendUnits: spend };
  }

  /**
   * Reads every configured key file at start (a bad one stops the plugin, its content never in the
   * error); warns of a readable one. A key that is not the network's configured gas address
   * (`operatorAccounts.gas.address`) stops the plugin too: it could sign no step, and every plan
   * needing the gas address would be refused at import.
   */
  checkKeys(warn: (message: string) => void): void {
    for (const [chain, networks] of Object.entries(this.deps.treasuryConfig.networks)) {
      for (const [network, settings] of Object.entries(networks ?? {})) {
        if (!settings?.hotGasWallet) continue;
        const wallet = readHotGasKey(settings.hotGasWallet.privateKeyFile, { warn });
        const gas = settings.operatorAccounts?.gas?.address;
        if (!gas || gas.toLowerCase() !== wallet.address.toLowerCase()) {
          throw new Error(
            `The hot gas wallet key of ${chain} ${network} is for ${wallet.address}, not the configured gas address (operatorAccounts.gas.address: ${gas ?? 'none'}).`,
          );
        }
        this.wallets.set(`${chain}:${network}`, wallet);
      }
    }
  }

  private settings(target: Pick<AccountNetwork, 'chain' | 'network'>) {
    return this.deps.treasuryConfig.networks[target.chain]?.[target.network]?.hotGasWallet;
  }

  private wallet(target: AccountNetwork, file: string): Wallet {
    const key = `${target.chain}:${target.network}`;
    let wallet = this.wallets.get(key);
    if (!wallet) {
      wallet = readHotGasKey(file);
      this.wallets.set(key, wallet);
    }
    return wallet;
  }
}
