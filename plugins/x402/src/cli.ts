import { defineCommand, PAGE_LIMIT_FLAG, ulidFlag, type CliCommand } from '@gw/kernel';
import { SETTLEMENT_STATUSES, settlementRow, type SettlementStatus } from './operator/settlement-rows.js';
import { X402_STATUS_DEPS, x402Status } from './operator/x402-status.js';

/**
 * Operator CLI commands of the x402 plugin (issue 41): how x402 is set up here (settlement mode,
 * payable coins, gas wallets with their balance, spend and caps, the external facilitator) and the
 * latest settlements. The dashboard's x402 page shows the same.
 */
export const x402Commands: CliCommand[] = [
  defineCommand(X402_STATUS_DEPS, {
    noun: 'x402',
    verb: 'status',
    summary:
      'x402 here: the settlement mode, the coins payable per network, each gas wallet (address, balance, spent in 24 h, caps) and the external facilitator (does its /supported answer).',
    help: [
      'settlement: off (x402 is not offered), gas_wallet (the gateway’s own capped gas wallets pay the gas), facilitator (an external facilitator settles; no key here). Config plugins.x402 (docs/x402.md).',
      'assets: a coin is payable on a network when its token implements EIP-3009 there (read from the chain), the network is watched, and in gas_wallet mode the network has a gas wallet.',
      'gas_wallets: amounts in the network’s native coin (ETH, POL), base units beside (units). spent_24h: what settlements of the last 24 hours signed for (gas limit x max fee), every instance. settlements_covered: settlements at max_per_settlement the balance pays for; at 0 settlements there are refused (unexpected_settle_error).',
      'A gas wallet holds gas money only, never payments: each settlement moves the payer’s tokens straight into the invoice’s own address.',
      'facilitator: answers is whether GET <url>/supported answered now; missing_networks are payable networks it does not list.',
    ].join('\n'),
    run: async ({ deps }) => ({ x402: await x402Status(deps) }),
  }),
  defineCommand(['chains', 'x402Settlements'], {
    noun: 'x402',
    verb: 'settlements',
    summary: 'The latest x402 settlements, newest first: invoice, payer, amount, gas wallet or facilitator, status and transaction.',
    flags: {
      project: ulidFlag('Project', { required: false, description: 'Only the settlements of this project (ULID).' }),
      status: { type: 'string', choices: SETTLEMENT_STATUSES, description: 'Only settlements in this status (default: every status).' },
      limit: PAGE_LIMIT_FLAG,
    },
    help: [
      'status: submitted (being sent now), settled (mined, the transfer logged), pending (sent, not mined within plugins.x402.receiptWaitSeconds), failed (reverted).',
      'A settlement never credits an invoice: the watchers see the transfer like any other and the invoice turns paid through its lifecycle (gateway invoice show --project <project_id> --id <invoice_id>).',
      'spend: what the gas wallet signed for (gas limit x max fee, native coin); null when an external facilitator settled.',
      'Refused settlements (a cap, a replay) leave no row: the protocol answer carried the reason, and gateway_x402_settlements_total counts them.',
    ].join('\n'),
    run: async ({ flags, deps }) => {
      const found = await deps.x402Settlements.list({
        ...(flags['project'] ? { projectId: flags['project'] as string } : {}),
        ...(flags['status'] ? { status: flags['status'] as SettlementStatus } : {}),
        limit: flags['limit'] ? Number(flags['limit']) : 50,
      });
      return { settlements: found.map((s) => settlementRow(deps.chains, s)) };
    },
  }),
];
