import { CLI_ACTOR, type CliCommand, type CliFlag, defineCommand, PAGE_LIMIT_FLAG, ulidFlag } from '@gw/kernel';
import { readFile, writeFile } from 'node:fs/promises';
import { PLAN_STATUSES, type PlanStatus } from './plan-status.js';
import { MovedOutExport } from './services/moved-out-export.js';
import type { DestinationRequest, SweepRequest } from './services/treasury-plans.js';

const RATE_FLAG = (description: string): CliFlag => ({
  type: 'string',
  description,
  validate: (v) => (/^[0-9]{1,30}$/.test(v) ? undefined : 'must be a whole number of base units per size unit'),
});
const UNITS_FLAG = (description: string): CliFlag => ({
  type: 'string',
  description,
  validate: (v) => (/^[0-9]{1,78}$/.test(v) ? undefined : 'must be base units (digits)'),
});
const NETWORK_FLAG: CliFlag = { type: 'string', required: true, description: 'Network id (bitcoin, testnet, regtest, preprod, ...).' };
const OUTPOINT = /^[0-9a-fA-F]{1,128}:[0-9]{1,9}$/;

/** Reads a file's text, or standard input for `-`. */
async function readText(path: string): Promise<string> {
  if (path !== '-') return readFile(path, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Operator CLI of the treasury (issue 35): `gateway treasury balances | outputs | plan | list |
 * show | import | broadcast | bump | accelerate | cancel | reconcile`. The CLI reaches every
 * project; each write is audited as `operator-cli`.
 */
export const treasuryCommands: CliCommand[] = [
  defineCommand(['treasuryBalances'], {
    noun: 'treasury',
    verb: 'balances',
    summary: 'Unspent value received at pool addresses, per chain network (default), project or address; unclaimed = orphans and late payments.',
    flags: {
      by: { type: 'string', choices: ['network', 'project', 'address'], description: 'Group by (default network).' },
      chain: { type: 'string', choices: 'chains', description: 'Only this chain.' },
      network: { type: 'string', description: 'Only this network.' },
      project: ulidFlag('Project', { required: false, description: 'Only this project (ULID).' }),
      limit: PAGE_LIMIT_FLAG,
    },
    run: async ({ flags, deps }) =>
      deps.treasuryBalances.balances(
        {
          groupBy: (flags['by'] as 'network' | 'project' | 'address' | undefined) ?? 'network',
          ...(flags['chain'] ? { chain: String(flags['chain']) as never } : {}),
          ...(flags['network'] ? { network: String(flags['network']) } : {}),
          ...(flags['project'] ? { projectId: String(flags['project']) } : {}),
          limit: flags['limit'] ? Number(flags['limit']) : 50,
        },
        {},
      ),
  }),
  defineCommand(['treasuryBalances'], {
    noun: 'treasury',
    verb: 'outputs',
    summary: 'The unspent outputs behind the balances of a network, oldest first, with the plan holding each.',
    flags: {
      chain: { type: 'string', choices: 'chains', required: true, description: 'Chain id.' },
      network: NETWORK_FLAG,
      project: ulidFlag('Project', { required: false, description: 'Only this project (ULID).' }),
      address: { type: 'string', description: 'Only this address.' },
      limit: PAGE_LIMIT_FLAG,
    },
    run: async ({ flags, deps }) =>
      deps.treasuryBalances.outputs(
        {
          chain: String(flags['chain']) as never,
          network: String(flags['network']),
          ...(flags['project'] ? { projectId: String(flags['project']) } : {}),
          ...(flags['address'] ? { address: String(flags['address']) } : {}),
          limit: flags['limit'] ? Number(flags['limit']) : 50,
        },
        {},
      ),
  }),
  defineCommand(['treasuryPlans'], {
    noun: 'treasury',
    verb: 'plan',
    summary: 'Plan a sweep: an unsigned transaction gathering outputs to your own change address or an external one; writes the plan file to sign offline.',
    help: 'Select with --outpoints, --invoices, or every confirmed unspent output (of --project, older than --before, worth at least --min-units). Sign the file with gateway-signer or a wallet, then `gateway treasury import`.',
    flags: {
      chain: { type: 'string', choices: 'chains', required: true, description: 'Chain id.' },
      network: NETWORK_FLAG,
      to: { type: 'string', required: true, description: '`own` (the account’s next change address) or an external address of the network.' },
      'to-project': ulidFlag('Project', { required: false, description: 'With --to own: whose account (default: the first output’s project).' }),
      outpoints: {
        type: 'string',
        description: 'Comma-separated txid:index.',
        validate: (v) => (v.split(',').every((o) => OUTPOINT.test(o)) ? undefined : 'must be txid:index,...'),
      },
      invoices: { type: 'string', description: 'Comma-separated invoice ids: their outputs.' },
      project: ulidFlag('Project', { required: false, description: 'Only this project’s outputs (ULID).' }),
      before: {
        type: 'string',
        description: 'Only outputs received at or before this ISO 8601 time.',
        validate: (v) => (Number.isNaN(Date.parse(v)) ? 'must be an ISO 8601 time' : undefined),
      },
      'min-units': UNITS_FLAG('Only outputs worth at least this many base units.'),
      'fee-rate': RATE_FLAG('Fee rate in base units per size unit (default: configured, else the provider’s one-hour estimate).'),
      'max-fee-rate': RATE_FLAG('Wait until the next-block rate is at most this, then build at it.'),
      out: { type: 'string', description: 'Write the plan file (JSON) here.' },
    },
    run: async ({ flags, deps }) => {
      const to = String(flags['to']);
      const destination: DestinationRequest =
        to === 'own' ? { kind: 'own', ...(flags['to-project'] ? { projectId: String(flags['to-project']) } : {}) } : { kind: 'external', address: to };
      const request: SweepRequest = {
        chain: String(flags['chain']),
        network: String(flags['network']),
        select: {
          ...(flags['outpoints']
            ? {
                outpoints: String(flags['outpoints'])
                  .split(',')
                  .map((o) => ({ txHash: o.split(':')[0]!, outputIndex: Number(o.split(':')[1]) })),
              }
            : {}),
          ...(flags['invoices'] ? { invoiceIds: String(flags['invoices']).split(',') } : {}),
          ...(flags['project'] ? { projectId: String(flags['project']) } : {}),
          ...(flags['before'] ? { receivedBefore: new Date(String(flags['before'])) } : {}),
          ...(flags['min-units'] ? { minUnits: BigInt(String(flags['min-units'])) } : {}),
        },
        destination,
        ...(flags['fee-rate'] ? { feeRate: BigInt(String(flags['fee-rate'])) } : {}),
        ...(flags['max-fee-rate'] ? { maxFeeRate: BigInt(String(flags['max-fee-rate'])) } : {}),
      };
      const plan = await deps.treasuryPlans.sweep(request, {}, CLI_ACTOR);
      if (flags['out'] && plan.plan_file) await writeFile(String(flags['out']), `${JSON.stringify(plan.plan_file, null, 2)}\n`, { mode: 0o644 });
      return { plan };
    },
  }),
  defineCommand(['treasuryPlans'], {
    noun: 'treasury',
    verb: 'list',
    summary: 'Plans, newest first.',
    flags: { status: { type: 'string', choices: PLAN_STATUSES, description: 'Only this status.' }, limit: PAGE_LIMIT_FLAG },
    run: async ({ flags, deps }) =>
      deps.treasuryPlans.list(
        { limit: flags['limit'] ? Number(flags['limit']) : 50, ...(flags['status'] ? { status: flags['status'] as PlanStatus } : {}) },
        {},
      ),
  }),
  defineCommand(['treasuryPlans'], {
    noun: 'treasury',
    verb: 'show',
    summary: 'One plan: inputs, fee, status, confirmations; --out writes its plan file.',
    flags: { plan: ulidFlag('Plan'), out: { type: 'string', description: 'Write the plan file (JSON) here.' } },
    run: async ({ flags, deps }) => {
      const plan = await deps.treasuryPlans.get(String(flags['plan']), {});
      if (flags['out'] && plan.plan_file) await writeFile(String(flags['out']), `${JSON.stringify(plan.plan_file, null, 2)}\n`);
      return { plan };
    },
  }),
  defineCommand(['treasurySignedImport'], {
    noun: 'treasury',
    verb: 'import',
    summary: 'Hand back a signed file (or a wallet’s bare signed PSBT/transaction with --plan): verified to be exactly the plan before anything is stored.',
    flags: {
      file: { type: 'string', required: true, description: 'The signed file, or - for standard input.' },
      plan: ulidFlag('Plan', { required: false, description: 'The plan (needed for a bare signed PSBT or transaction).' }),
      broadcast: { type: 'boolean', description: 'Queue the broadcast once verified.' },
    },
    run: async ({ flags, deps }) => ({
      plan: await deps.treasurySignedImport.import(
        { text: await readText(String(flags['file'])), ...(flags['plan'] ? { planId: String(flags['plan']) } : {}), broadcast: flags['broadcast'] === true },
        {},
        CLI_ACTOR,
      ),
    }),
  }),
  defineCommand(['treasuryTracker'], {
    noun: 'treasury',
    verb: 'broadcast',
    summary: 'Broadcast a signed plan through the configured providers now.',
    flags: { plan: ulidFlag('Plan') },
    run: async ({ flags, deps }) => ({ plan: await deps.treasuryTracker.broadcast(String(flags['plan']), {}, CLI_ACTOR) }),
  }),
  defineCommand(['treasuryPlans'], {
    noun: 'treasury',
    verb: 'bump',
    summary: 'Replace a stuck broadcast sweep (RBF): a new plan over the same inputs at a higher fee, to sign again.',
    flags: {
      plan: ulidFlag('Plan'),
      'fee-rate': RATE_FLAG('New fee rate (default: the next-block estimate).'),
      out: { type: 'string', description: 'Write the new plan file here.' },
    },
    run: async ({ flags, deps }) => {
      const plan = await deps.treasuryPlans.bump(String(flags['plan']), flags['fee-rate'] ? { feeRate: BigInt(String(flags['fee-rate'])) } : {}, {}, CLI_ACTOR);
      if (flags['out'] && plan.plan_file) await writeFile(String(flags['out']), `${JSON.stringify(plan.plan_file, null, 2)}\n`);
      return { plan };
    },
  }),
  defineCommand(['treasuryPlans'], {
    noun: 'treasury',
    verb: 'accelerate',
    summary: 'Accelerate an incoming payment (CPFP): spend its unconfirmed output to your change address, paying for parent and child.',
    flags: {
      chain: { type: 'string', choices: 'chains', required: true, description: 'Chain id.' },
      network: NETWORK_FLAG,
      output: {
        type: 'string',
        required: true,
        description: 'txid:index of the payment.',
        validate: (v) => (OUTPOINT.test(v) ? undefined : 'must be txid:index'),
      },
      'fee-rate': RATE_FLAG('Target rate for parent and child together (default: the next-block estimate).'),
      out: { type: 'string', description: 'Write the plan file here.' },
    },
    run: async ({ flags, deps }) => {
      const [txHash, index] = String(flags['output']).split(':');
      const plan = await deps.treasuryPlans.accelerate(
        {
          chain: String(flags['chain']),
          network: String(flags['network']),
          txHash: txHash!,
          outputIndex: Number(index),
          ...(flags['fee-rate'] ? { feeRate: BigInt(String(flags['fee-rate'])) } : {}),
        },
        {},
        CLI_ACTOR,
      );
      if (flags['out'] && plan.plan_file) await writeFile(String(flags['out']), `${JSON.stringify(plan.plan_file, null, 2)}\n`);
      return { plan };
    },
  }),
  defineCommand(['treasuryPlans'], {
    noun: 'treasury',
    verb: 'cancel',
    summary: 'Drop a plan that was not broadcast; its outputs are free again.',
    flags: { plan: ulidFlag('Plan') },
    run: async ({ flags, deps }) => ({ plan: await deps.treasuryPlans.cancel(String(flags['plan']), {}, CLI_ACTOR) }),
  }),
  defineCommand(['treasuryReconciliation'], {
    noun: 'treasury',
    verb: 'reconcile',
    summary: 'Compare the recorded unspent outputs with the providers’ now and report the differences (never corrected).',
    flags: {},
    run: async ({ deps }) => ({ runs: await deps.treasuryReconciliation.runAll(), latest: await deps.treasuryReconciliation.latest(10) }),
  }),

  defineCommand(['treasuryMovedOut'], {
    noun: 'treasury',
    verb: 'export',
    summary: 'Money moved out for accounting: every plan confirmed in a range, per project, with its share of the fee (JSON, or CSV with --output).',
    flags: {
      from: {
        type: 'string',
        required: true,
        description: 'Plans confirmed at or after this ISO 8601 time.',
        validate: (v) => (Number.isNaN(Date.parse(v)) ? 'must be an ISO 8601 time' : undefined),
      },
      to: {
        type: 'string',
        required: true,
        description: 'Plans confirmed before this ISO 8601 time.',
        validate: (v) => (Number.isNaN(Date.parse(v)) ? 'must be an ISO 8601 time' : undefined),
      },
      output: { type: 'string', description: 'Write the rows as CSV to this file.' },
    },
    run: async ({ flags, deps }) => {
      const rows = await deps.treasuryMovedOut.rows({ from: new Date(String(flags['from'])), to: new Date(String(flags['to'])) }, {});
      if (flags['output']) await writeFile(String(flags['output']), MovedOutExport.csv(rows));
      return { rows };
    },
  }),
];
