import { AppError, CLI_ACTOR, type CliCommand, type CliFlag, coreErrors, defineCommand, PAGE_FLAGS, pageFlags, ulidFlag } from '@gw/kernel';
import type { PayoutSource } from '@gw/plugin-treasury/contract';
import { writeFile } from 'node:fs/promises';
import { addressSourceText, cliApprover, ITEM_KINDS, ITEM_STATUSES, type ItemKind, type ItemStatus, type ItemView, type PayoutItems } from './contract.js';
import { MoneyOut } from './money-out.js';
import { moneyOutRange } from './money-out-range.js';

const USD = /^[0-9]{1,12}(\.[0-9]{1,2})?$/;
const PROJECT = ulidFlag('Project');
const ITEM = ulidFlag('Item', { description: 'Refund or payout id (ULID).' });
const KIND: CliFlag = { type: 'string', choices: ITEM_KINDS, description: 'refund or payout (default: both).' };
const usdFlag = (description: string, reset: string): CliFlag => ({
  type: 'string',
  description,
  validate: (v) => (v === reset || USD.test(v) ? undefined : `must be a USD value (up to 2 decimals) or ${reset}`),
});
const INSTANT: CliFlag = {
  type: 'string',
  required: true,
  description: 'ISO 8601 date or date-time (UTC without an offset).',
};

/** An item of either kind: refunds and payouts share their ids' space. */
async function eitherKind(items: PayoutItems, projectId: string, id: string, kind: ItemKind | undefined): Promise<ItemView> {
  if (kind) return items.get(projectId, kind, id);
  try {
    return await items.get(projectId, 'refund', id);
  } catch (error) {
    if (error instanceof AppError && error.code === 'refund_not_found') return items.get(projectId, 'payout', id);
    throw error;
  }
}

/**
 * Operator CLI of refunds and payouts (issue 37): `gateway payout list | show | approve | cancel |
 * batch | policy | export`. The CLI reaches every project; it approves as the active administrator
 * named by `--as` (recorded as that user); other writes are audited as `operator-cli`. Partners propose items
 * through the API; nothing but this CLI and the dashboard's administrators approves them.
 */
export const payoutsCommands: CliCommand[] = [
  defineCommand(['payoutsItems', 'payoutsApprovals'], {
    noun: 'payout',
    verb: 'list',
    summary: 'Refunds and payouts: of a project (by kind and status, newest first, paged), or without --project every item waiting for approval or a batch.',
    flags: {
      project: ulidFlag('Project', { required: false, description: 'The project (ULID); without it: the items waiting of every project.' }),
      kind: KIND,
      status: { type: 'string', choices: ITEM_STATUSES, description: 'Only this status (with --project).' },
      ...PAGE_FLAGS,
    },
    run: async ({ flags, deps }) => {
      const kind = flags['kind'] as ItemKind | undefined;
      if (!flags['project']) {
        if (flags['status'] || flags['cursor'])
          throw coreErrors.validation_error({ message: '--status and --cursor need --project.', details: { field: 'project' } });
        return { items: await deps.payoutsApprovals.pending({}, kind) };
      }
      const projectId = String(flags['project']);
      const page = pageFlags(flags);
      const kinds = kind ? [kind] : ITEM_KINDS;
      if (kinds.length > 1 && page.cursor)
        throw coreErrors.validation_error({ message: '--cursor needs --kind (each kind pages on its own).', details: { field: 'kind' } });
      const lists = await Promise.all(
        kinds.map((k) =>
          deps.payoutsItems.list({
            projectId,
            kind: k,
            limit: page.limit,
            ...(page.cursor ? { cursor: page.cursor } : {}),
            ...(flags['status'] ? { status: flags['status'] as ItemStatus } : {}),
          }),
        ),
      );
      return kind ? lists[0]! : { refunds: lists[0]!, payouts: lists[1]! };
    },
  }),
  defineCommand(['payoutsItems'], {
    noun: 'payout',
    verb: 'show',
    summary: 'One refund or payout: amount, destination and how it arrived (claim page or partner), approvals, plan and transaction.',
    flags: { project: PROJECT, id: ITEM, kind: KIND },
    run: async ({ flags, deps }) => {
      const item = await eitherKind(deps.payoutsItems, String(flags['project']), String(flags['id']), flags['kind'] as ItemKind | undefined);
      // The approver reads where the address came from: the claim page (anyone with the checkout link) or the partner.
      return { item, address_from: addressSourceText(item) };
    },
  }),
  defineCommand(['payoutsApprovals', 'tenancyUsers'], {
    noun: 'payout',
    verb: 'approve',
    summary:
      'Approve a refund (claimed) or a payout as the active administrator named by --as (the same person as in the dashboard); a second administrator’s approval when the policy asks for two.',
    flags: {
      id: ITEM,
      as: { type: 'string', required: true, description: 'The approving administrator: an active dashboard user with role admin (e-mail or id).' },
    },
    run: async ({ flags, deps }) => ({
      item: await deps.payoutsApprovals.approve(String(flags['id']), await cliApprover(deps.tenancyUsers, String(flags['as'])), {}),
    }),
  }),
  defineCommand(['payoutsApprovals'], {
    noun: 'payout',
    verb: 'cancel',
    summary: 'Cancel a refund or payout that is not in a plan yet.',
    flags: { id: ITEM },
    run: async ({ flags, deps }) => ({ item: await deps.payoutsApprovals.cancel(String(flags['id']), CLI_ACTOR, {}) }),
  }),
  defineCommand(['payoutsBatches'], {
    noun: 'payout',
    verb: 'batch',
    summary:
      'Batch approved items of a project, chain, network and coin into a treasury payout plan; sign its file offline (`gateway treasury show --plan <id> --out plan.json`).',
    help: 'Funds: --source received (UTXO chains: the project’s received outputs), funding (account chains: the funding account) or address (--address, a pool address of the project).',
    flags: {
      project: PROJECT,
      chain: { type: 'string', choices: 'chains', required: true, description: 'Chain id.' },
      network: { type: 'string', required: true, description: 'Network id.' },
      coin: { type: 'string', required: true, description: 'The coin the items pay.' },
      source: { type: 'string', choices: ['received', 'funding', 'address'], description: 'Where the funds come from (default received).' },
      address: { type: 'string', description: 'With --source address: the pool address.' },
      items: {
        type: 'string',
        description: 'Only these approved items (comma-separated ids; default all).',
        validate: (v) => (v.split(',').every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id)) ? undefined : 'must be item ids (ULIDs), comma-separated'),
      },
      'fee-rate': {
        type: 'string',
        description: 'UTXO chains: base units per size unit (default: the estimate).',
        validate: (v) => (/^[0-9]{1,30}$/.test(v) ? undefined : 'must be a whole number'),
      },
    },
    run: async ({ flags, deps }) => {
      const kind = (flags['source'] as 'received' | 'funding' | 'address' | undefined) ?? 'received';
      if (kind === 'address' && !flags['address'])
        throw coreErrors.validation_error({ message: '--source address needs --address.', details: { field: 'address' } });
      const source: PayoutSource = kind === 'address' ? { kind, address: String(flags['address']) } : { kind };
      const batch = await deps.payoutsBatches.create(
        {
          projectId: String(flags['project']),
          chain: String(flags['chain']),
          network: String(flags['network']),
          coin: String(flags['coin']),
          source,
          ...(flags['items'] ? { itemIds: String(flags['items']).split(',') } : {}),
          ...(flags['fee-rate'] ? { feeRate: BigInt(String(flags['fee-rate'])) } : {}),
        },
        CLI_ACTOR,
        {},
      );
      return { plan_id: batch.planId, items: batch.items };
    },
  }),
  defineCommand(['payoutsApprovals'], {
    noun: 'payout',
    verb: 'policy',
    summary: 'Show a project’s approval policy, or set it: two administrators above a USD value (`none`: one always), a claim proof above one (`default`).',
    flags: {
      project: PROJECT,
      'dual-approval-above-usd': usdFlag('Two administrators must approve above this USD value; `none`: one always.', 'none'),
      'claim-proof-above-usd': usdFlag('Payers must sign with their address above this USD value; `default`: the deployment’s.', 'default'),
    },
    run: async ({ flags, deps }) => {
      const projectId = String(flags['project']);
      const current = await deps.payoutsApprovals.policy(projectId);
      const dual = flags['dual-approval-above-usd'] as string | undefined;
      const proof = flags['claim-proof-above-usd'] as string | undefined;
      if (dual === undefined && proof === undefined) return { policy: current };
      const policy = await deps.payoutsApprovals.setPolicy(
        projectId,
        {
          dualApprovalAboveUsd: dual === undefined ? current.dualApprovalAboveUsd : dual === 'none' ? null : dual,
          claimProofAboveUsd: proof === undefined ? current.claimProofAboveUsd : proof === 'default' ? null : proof,
        },
        CLI_ACTOR,
      );
      return { policy };
    },
  }),
  defineCommand(['payoutsMoneyOut'], {
    noun: 'payout',
    verb: 'export',
    summary: 'Money out of a project in a period (from included, to excluded) beside money in: refunds, payouts, sweeps and network fees (CSV or JSON).',
    flags: {
      project: PROJECT,
      from: INSTANT,
      to: INSTANT,
      format: { type: 'string', choices: ['csv', 'json'], description: 'csv (default) or json.' },
      out: { type: 'string', description: 'Write the file here (default: print it in the result).' },
    },
    run: async ({ flags, deps }) => {
      const range = moneyOutRange(String(flags['project']), String(flags['from']), String(flags['to']));
      const rows = await deps.payoutsMoneyOut.rows(range);
      const json = flags['format'] === 'json';
      const document = json
        ? { project_id: range.projectId, from: range.from.toISOString(), to: range.to.toISOString(), ...(await deps.payoutsMoneyOut.books(range)), rows }
        : MoneyOut.csv(rows);
      if (flags['out']) {
        await writeFile(String(flags['out']), json ? `${JSON.stringify(document, null, 2)}\n` : (document as string));
        return { rows: rows.length, out: String(flags['out']) };
      }
      return json ? (document as object) : { csv: document };
    },
  }),
];
