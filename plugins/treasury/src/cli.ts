import { AppError, CLI_ACTOR, type CliCommand, type CliFlag, defineCommand, givenFlags, PAGE_LIMIT_FLAG, pageFlags, ulidFlag } from '@gw/kernel';
import { readFile, writeFile } from 'node:fs/promises';
import { PLAN_STATUSES, type PlanStatus } from './plan-status.js';
import { ACCOUNT_METHODS, type AccountSweepInput } from './services/account-plans.js';
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
/** A flag of an ISO 8601 time. */
const TIME_FLAG = (description: string, required = false): CliFlag => ({
  type: 'string',
  ...(required ? { required } : {}),
  description,
  validate: (v) => (Number.isNaN(Date.parse(v)) ? 'must be an ISO 8601 time' : undefined),
});
const OUTPOINT = /^[0-9a-fA-F]{1,128}:[0-9]{1,9}$/;

/** Reads a file's text, or standard input for `-`. */
async function readText(path: string): Promise<string> {
  if (path !== '-') return readFile(path, 'utf8');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `--project`, when given, as the `projectId` a treasury query or plan is narrowed to. */
function projectFlag(flags: Readonly<Record<string, unknown>>): { projectId?: string } {
  return flags['project'] ? { projectId: String(flags['project']) } : {};
}

/** Writes the plan file `file` gives (none: nothing is written) to `--out` as indented JSON, when `--out` is given. */
async function writePlanFile(flags: Readonly<Record<string, unknown>>, file: () => unknown, mode?: number): Promise<void> {
  if (!flags['out']) return;
  const content = await file();
  if (content) await writeFile(String(flags['out']), `${JSON.stringify(content, null, 2)}\n`, mode === undefined ? undefined : { mode });
}

/** `{ plan }` that `utxo` answers for the `--plan` id; an account-chain plan's id (404 there) runs `account` instead. */
async function eitherPlan(
  flags: Readonly<Record<string, unknown>>,
  utxo: (id: string) => Promise<object>,
  account: (id: string) => Promise<object>,
): Promise<{ plan: object }> {
  const id = String(flags['plan']);
  try {
    return { plan: await utxo(id) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'treasury_plan_not_found') return { plan: await account(id) };
    throw error;
  }
}

const ACCOUNT_SWEEP_FLAGS: Record<string, CliFlag> = {
  chain: { type: 'string', choices: 'chains', required: true, description: 'Chain id (eth, polygon, bsc, base, tron, ton).' },
  network: NETWORK_FLAG,
  coin: { type: 'string', required: true, description: 'The coin to gather (eth, usdt_eth, usdc_eth, trx, usdt_tron, ...).' },
  to: { type: 'string', required: true, description: 'The destination address (your cold wallet, an exchange).' },
  method: { type: 'string', choices: ACCOUNT_METHODS, description: 'How to move it (default: the cheapest the quote finds).' },
  project: ulidFlag('Project', { required: false, description: 'Only this project’s addresses (ULID).' }),
  'min-units': UNITS_FLAG('Leave out addresses holding less than this many base units.'),
};

function accountSweepInput(flags: Record<string, unknown>): AccountSweepInput {
  return {
    chain: String(flags['chain']),
    network: String(flags['network']),
    coin: String(flags['coin']),
    destination: String(flags['to']),
    ...(flags['method'] ? { method: flags['method'] as AccountSweepInput['method'] & string } : {}),
    ...projectFlag(flags),
    ...(flags['min-units'] ? { minUnits: BigInt(String(flags['min-units'])) } : {}),
  };
}

/**
 * Operator CLI of the treasury (issue 35): `gateway treasury balances | outputs | plan | list |
 * show | import | broadcast | bump | accelerate | cancel | reconcile`, and on account chains (issue
 * 36) `holdings | quote | sweep | activate | sweeper-deploy | sweepers`, whose plans `show | import | broadcast | cancel` take
 * too. The CLI reaches every project; each write is audited as `operator-cli`.
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
          ...givenFlags(flags, 'network'),
          ...projectFlag(flags),
          limit: pageFlags(flags).limit,
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
          ...projectFlag(flags),
          ...givenFlags(flags, 'address'),
          limit: pageFlags(flags).limit,
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
      before: TIME_FLAG('Only outputs received at or before this ISO 8601 time.'),
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
          ...projectFlag(flags),
          ...(flags['before'] ? { receivedBefore: new Date(String(flags['before'])) } : {}),
          ...(flags['min-units'] ? { minUnits: BigInt(String(flags['min-units'])) } : {}),
        },
        destination,
        ...(flags['fee-rate'] ? { feeRate: BigInt(String(flags['fee-rate'])) } : {}),
        ...(flags['max-fee-rate'] ? { maxFeeRate: BigInt(String(flags['max-fee-rate'])) } : {}),
      };
      const plan = await deps.treasuryPlans.sweep(request, {}, CLI_ACTOR);
      await writePlanFile(flags, () => plan.plan_file, 0o644);
      return { plan };
    },
  }),
  defineCommand(['treasuryPlans', 'treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'list',
    summary: 'Plans, newest first.',
    flags: { status: { type: 'string', choices: PLAN_STATUSES, description: 'Only this status.' }, limit: PAGE_LIMIT_FLAG },
    run: async ({ flags, deps }) => {
      const filter = { limit: pageFlags(flags).limit, ...(flags['status'] ? { status: flags['status'] as PlanStatus } : {}) };
      const utxo = await deps.treasuryPlans.list(filter, {});
      const account = await deps.treasuryAccountPlans.list(filter, {});
      return { ...utxo, account_plans: account.plans, account_next: account.next };
    },
  }),
  defineCommand(['treasuryPlans', 'treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'show',
    summary: 'One plan: inputs (or an account plan’s steps), fee, status, confirmations; --out writes its plan file (an account plan’s: of the round awaited).',
    flags: { plan: ulidFlag('Plan'), out: { type: 'string', description: 'Write the plan file (JSON) here.' } },
    run: ({ flags, deps }) =>
      eitherPlan(
        flags,
        async (id) => {
          const plan = await deps.treasuryPlans.get(id, {});
          await writePlanFile(flags, () => plan.plan_file);
          return plan;
        },
        async (id) => {
          const plan = await deps.treasuryAccountPlans.get(id, {});
          await writePlanFile(flags, () => (plan.status === 'awaiting_signature' ? deps.treasuryAccountPlans.planFile(id, {}) : undefined));
          return plan;
        },
      ),
  }),
  defineCommand(['treasurySignedImport', 'treasuryAccountSignedImport'], {
    noun: 'treasury',
    verb: 'import',
    summary: 'Hand back a signed file (or a wallet’s bare signed PSBT/transaction with --plan): verified to be exactly the plan before anything is stored.',
    flags: {
      file: { type: 'string', required: true, description: 'The signed file, or - for standard input.' },
      plan: ulidFlag('Plan', { required: false, description: 'The plan (needed for a bare signed PSBT or transaction).' }),
      broadcast: { type: 'boolean', description: 'Queue the broadcast once verified.' },
    },
    run: async ({ flags, deps }) => {
      const text = await readText(String(flags['file']));
      const input = { text, ...(flags['plan'] ? { planId: String(flags['plan']) } : {}), broadcast: flags['broadcast'] === true };
      // An account plan's signed round (issue 36) names its own format.
      if (text.includes('"gateway-treasury-account-signed"')) return { plan: await deps.treasuryAccountSignedImport.import(input, {}, CLI_ACTOR) };
      return { plan: await deps.treasurySignedImport.import(input, {}, CLI_ACTOR) };
    },
  }),
  defineCommand(['treasuryTracker', 'treasuryAccountBroadcaster'], {
    noun: 'treasury',
    verb: 'broadcast',
    summary: 'Broadcast a signed plan through the configured providers now (an account plan: its nonces checked, then its first stage).',
    flags: { plan: ulidFlag('Plan') },
    run: ({ flags, deps }) =>
      eitherPlan(
        flags,
        (id) => deps.treasuryTracker.broadcast(id, {}, CLI_ACTOR),
        (id) => deps.treasuryAccountBroadcaster.broadcast(id, {}, CLI_ACTOR),
      ),
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
      await writePlanFile(flags, () => plan.plan_file);
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
      await writePlanFile(flags, () => plan.plan_file);
      return { plan };
    },
  }),
  defineCommand(['treasuryPlans', 'treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'cancel',
    summary: 'Drop a plan that was not broadcast; its outputs (or addresses) are free again.',
    flags: { plan: ulidFlag('Plan') },
    run: ({ flags, deps }) =>
      eitherPlan(
        flags,
        (id) => deps.treasuryPlans.cancel(id, {}, CLI_ACTOR),
        (id) => deps.treasuryAccountPlans.cancel(id, {}, CLI_ACTOR),
      ),
  }),
  defineCommand(['treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'holdings',
    summary: 'Account chains: what each pool address holds on chain now, per coin, with the gas each token lacks and dust flags.',
    flags: {
      chain: { type: 'string', choices: 'chains', required: true, description: 'Chain id.' },
      network: NETWORK_FLAG,
      project: ulidFlag('Project', { required: false, description: 'Only this project’s addresses (ULID).' }),
    },
    run: async ({ flags, deps }) => ({
      holdings: await deps.treasuryAccountPlans.holdings({ chain: String(flags['chain']), network: String(flags['network']), ...projectFlag(flags) }, {}),
    }),
  }),
  defineCommand(['treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'quote',
    summary: 'Account chains: what each sweep method would cost to gather a coin now (fees, what the operator accounts pay, steps, rounds).',
    flags: ACCOUNT_SWEEP_FLAGS,
    run: async ({ flags, deps }) => deps.treasuryAccountPlans.quote(accountSweepInput(flags), {}),
  }),
  defineCommand(['treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'sweep',
    summary: 'Account chains: plan a sweep of a coin from every pool address holding it, by the method asked or the cheapest; writes the round-1 plan file.',
    help: 'Sign the file with gateway-signer, then `gateway treasury import --file signed.json`. A two-round plan (eip7702, eip3009) then has a round-2 file (`gateway treasury show --plan <id> --out round2.json`) unless the hot gas wallet signs it.',
    flags: { ...ACCOUNT_SWEEP_FLAGS, out: { type: 'string', description: 'Write the round-1 plan file (JSON) here.' } },
    run: async ({ flags, deps }) => {
      const plan = await deps.treasuryAccountPlans.sweep(accountSweepInput(flags), {}, CLI_ACTOR);
      await writePlanFile(flags, () => deps.treasuryAccountPlans.planFile(plan.id, {}));
      return { plan };
    },
  }),
  defineCommand(['treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'activate',
    summary: 'TRON: plan the activation of every pool address not yet on chain, from the funding account, as one signed batch.',
    flags: {
      chain: { type: 'string', choices: 'chains', required: true, description: 'Chain id (tron).' },
      network: NETWORK_FLAG,
      project: ulidFlag('Project', { required: false, description: 'Only this project’s addresses (ULID).' }),
      out: { type: 'string', description: 'Write the plan file (JSON) here.' },
    },
    run: async ({ flags, deps }) => {
      const plan = await deps.treasuryAccountPlans.activation(
        { chain: String(flags['chain']), network: String(flags['network']), ...projectFlag(flags) },
        {},
        CLI_ACTOR,
      );
      await writePlanFile(flags, () => deps.treasuryAccountPlans.planFile(plan.id, {}));
      return { plan };
    },
  }),
  defineCommand(['treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'sweeper-deploy',
    summary: 'EVM: plan the deployment of the EIP-7702 token sweeper for a destination, from the gas account; writes the plan file.',
    help: 'Sign the file with gateway-signer, import and broadcast it like any plan. Once confirmed, the sweeper is recorded for the destination and eip7702 sweeps to it use it (`gateway treasury sweepers`).',
    flags: {
      chain: { type: 'string', choices: 'chains', required: true, description: 'Chain id (eth, polygon, bsc, base).' },
      network: NETWORK_FLAG,
      to: { type: 'string', required: true, description: 'The destination the sweeper sends every delegated address’s tokens to, for good.' },
      out: { type: 'string', description: 'Write the plan file (JSON) here.' },
    },
    run: async ({ flags, deps }) => {
      const plan = await deps.treasuryAccountPlans.sweeperDeployment(
        { chain: String(flags['chain']), network: String(flags['network']), destination: String(flags['to']) },
        {},
        CLI_ACTOR,
      );
      await writePlanFile(flags, () => deps.treasuryAccountPlans.planFile(plan.id, {}));
      return { plan };
    },
  }),
  defineCommand(['treasuryAccountPlans'], {
    noun: 'treasury',
    verb: 'sweepers',
    summary: 'EVM: the token sweepers the treasury deployed and recorded, per destination.',
    flags: {
      chain: { type: 'string', choices: 'chains', description: 'Only this chain.' },
      network: { type: 'string', description: 'Only this network.' },
    },
    run: async ({ flags, deps }) => ({
      sweepers: await deps.treasuryAccountPlans.sweepers(givenFlags(flags, 'chain', 'network')),
    }),
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
      from: TIME_FLAG('Plans confirmed at or after this ISO 8601 time.', true),
      to: TIME_FLAG('Plans confirmed before this ISO 8601 time.', true),
      output: { type: 'string', description: 'Write the rows as CSV to this file.' },
    },
    run: async ({ flags, deps }) => {
      const rows = await deps.treasuryMovedOut.rows({ from: new Date(String(flags['from'])), to: new Date(String(flags['to'])) }, {});
      if (flags['output']) await writeFile(String(flags['output']), MovedOutExport.csv(rows));
      return { rows };
    },
  }),
];
