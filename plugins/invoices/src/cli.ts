import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import {
  CLI_ACTOR,
  COIN_ID_PATTERN,
  coreErrors,
  defineCommand,
  PAGE_FLAGS,
  pageFlags,
  parseInstant,
  ulidFlag,
  type ChainId,
  type CliCommand,
  type CoinId,
} from '@gw/kernel';
import { tenancyErrors } from '@gw/plugin-tenancy/contract';
import { MATCHING_MODES, type MatchingMode } from './config.js';
import { INVOICE_STATUSES, type InvoiceStatus } from './invoice-status.js';
import { POLICY_LIMITS, type PolicyPatch } from './services/policy-service.js';
import { exportDocument } from './services/invoice-export.js';
import { AMOUNT_IN_COIN, DESCRIPTION_MAX, oneOffInvoiceInput } from './services/one-off-invoice.js';

function parseConfirmations(value: string): Partial<Record<ChainId, number | null>> {
  const result: Partial<Record<ChainId, number | null>> = {};
  for (const part of value
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = /^([a-z]+)=(\d+|default)$/.exec(part);
    if (!match)
      throw coreErrors.validation_error({ message: `--confirmations: "${part}" is not chain=N or chain=default`, details: { field: 'confirmations' } });
    result[match[1] as ChainId] = match[2] === 'default' ? null : Number(match[2]);
  }
  return result;
}

/** Operator CLI: project invoice policies, and invoice lookup and cancellation. */
export const invoicesCommands: CliCommand[] = [
  defineCommand(['tenancyProjects', 'invoicesPolicies'], {
    noun: 'policy',
    verb: 'show',
    summary: "A project's effective invoice policy and what it overrides.",
    flags: { project: ulidFlag('Project') },
    run: async ({ flags, deps }) => {
      await deps.tenancyProjects.get(String(flags['project']));
      return { policy: await deps.invoicesPolicies.get(String(flags['project'])) };
    },
  }),
  defineCommand(['invoicesPolicies'], {
    noun: 'policy',
    verb: 'set',
    summary: 'Set invoice defaults of a project: matching mode, expiry, confirmations per chain, enabled coins, underpayment tolerance.',
    flags: {
      project: ulidFlag('Project'),
      'matching-mode': {
        type: 'string',
        choices: [...MATCHING_MODES, 'default'],
        description: 'matching_mode of invoices created without one ("default": the deployment default).',
      },
      'expiry-seconds': {
        type: 'string',
        description: `Invoice lifetime, ${POLICY_LIMITS.expirySeconds.min} to ${POLICY_LIMITS.expirySeconds.max} seconds, or "default".`,
        validate: (v) => (v === 'default' || /^\d+$/.test(v) ? undefined : 'must be a number of seconds or "default"'),
      },
      confirmations: {
        type: 'string',
        description: `Confirmation thresholds, comma-separated chain=N (${POLICY_LIMITS.confirmations.min} to ${POLICY_LIMITS.confirmations.max}) or chain=default, e.g. btc=3,eth=default.`,
      },
      'allow-zero-confirmations': {
        type: 'boolean',
        description:
          'Accept a threshold of 0 on a production project: its invoices are paid on transactions no block holds yet (they can be replaced or never confirm). Refused without it.',
      },
      coins: {
        type: 'string',
        description:
          'Enabled coins, comma-separated (e.g. btc,usdt_trc20), or "all" for every coin of the enabled chains. A coin no enabled chain carries is invalid_coin.',
        validate: (v) => (v === 'all' || v.split(',').every((c) => COIN_ID_PATTERN.test(c.trim())) ? undefined : 'must be "all" or comma-separated coin ids'),
      },
      'underpayment-tolerance': {
        type: 'string',
        description: `The share of an invoice's amount a payment may fall short by and still settle as paid, 0 to ${POLICY_LIMITS.underpaymentTolerance.max} (e.g. 0.005 for 0.5 %), or "default" (none). For exchange withdrawals that deduct their fee.`,
      },
    },
    help:
      'Examples:\n  pnpm gateway policy set --project 01J... --matching-mode at_least --expiry-seconds 1800\n' +
      '  pnpm gateway policy set --project 01J... --confirmations btc=2,eth=default --coins btc,eth,usdt_erc20\n' +
      '  pnpm gateway policy set --project 01J... --underpayment-tolerance 0.005\n' +
      'Only the flags given change; the rest of the policy stays. Existing invoices keep what they were created with.',
    run: async ({ flags, deps }) => {
      const patch: { -readonly [K in keyof PolicyPatch]: PolicyPatch[K] } = {};
      const mode = flags['matching-mode'];
      if (typeof mode === 'string') patch.defaultMatchingMode = mode === 'default' ? null : (mode as MatchingMode);
      const expiry = flags['expiry-seconds'];
      if (typeof expiry === 'string') patch.expirySeconds = expiry === 'default' ? null : Number(expiry);
      if (typeof flags['confirmations'] === 'string') patch.confirmations = parseConfirmations(flags['confirmations']);
      if (flags['allow-zero-confirmations'] === true) patch.allowZeroConfirmations = true;
      const coins = flags['coins'];
      if (typeof coins === 'string') patch.enabledCoins = coins === 'all' ? null : (coins.split(',').map((c) => c.trim()) as CoinId[]);
      const tolerance = flags['underpayment-tolerance'];
      if (typeof tolerance === 'string') patch.underpaymentTolerance = tolerance === 'default' ? null : tolerance;
      if (Object.keys(patch).filter((key) => key !== 'allowZeroConfirmations').length === 0) {
        throw coreErrors.validation_error({
          message: 'Nothing to set: give at least one of --matching-mode, --expiry-seconds, --confirmations, --coins, --underpayment-tolerance.',
        });
      }
      return { policy: await deps.invoicesPolicies.set(String(flags['project']), patch, CLI_ACTOR) };
    },
  }),
  defineCommand(['tenancyProjects', 'invoicesService'], {
    noun: 'invoice',
    verb: 'list',
    summary: "A project's invoices, newest first (the REST search, for operators).",
    flags: {
      project: ulidFlag('Project'),
      status: { type: 'string', choices: INVOICE_STATUSES, description: 'Only this status.' },
      'external-id': { type: 'string', description: 'Only this external_id.' },
      ...PAGE_FLAGS,
    },
    run: async ({ flags, deps }) => {
      await deps.tenancyProjects.get(String(flags['project']));
      return deps.invoicesService.list(String(flags['project']), {
        status: flags['status'] as InvoiceStatus | undefined,
        external_id: flags['external-id'] as string | undefined,
        ...pageFlags(flags),
      });
    },
  }),
  defineCommand(['tenancyProjects', 'invoicesService'], {
    noun: 'invoice',
    verb: 'create',
    summary: 'Create a one-off invoice for a project (an amount in USD, another fiat currency or the coin); prints it with its checkout link.',
    flags: {
      project: ulidFlag('Project'),
      coin: { type: 'string', required: true, description: 'The coin to be paid in, e.g. btc or usdt_trc20 (one the project has enabled).' },
      amount: { type: 'string', required: true, description: 'The price, a plain decimal, e.g. 12.50.' },
      currency: {
        type: 'string',
        description: `What the amount is in: USD (the default), another fiat currency the rates price (e.g. EUR), or "${AMOUNT_IN_COIN}" for the coin itself.`,
      },
      'external-id': {
        type: 'string',
        description: 'Your reference for it (default: a generated op_<ULID>); creating again with the same one returns the same invoice.',
      },
      description: { type: 'string', description: `What it is for (kept in its metadata as description; at most ${DESCRIPTION_MAX} characters).` },
    },
    help:
      'Examples:\n  pnpm gateway invoice create --project 01J... --coin btc --amount 25\n' +
      '  pnpm gateway invoice create --project 01J... --coin usdt_trc20 --amount 19.90 --currency EUR --description "Order 1234"\n' +
      '  pnpm gateway invoice create --project 01J... --coin eth --amount 0.05 --currency coin\n' +
      'The same rules as the API: the coin must be enabled for the project with a verified wallet. Audited as the operator.',
    run: async ({ flags, deps }) => {
      const project = await deps.tenancyProjects.principal(String(flags['project']));
      if (!project) throw tenancyErrors.project_not_found();
      const input = oneOffInvoiceInput({
        coin: String(flags['coin']) as CoinId,
        amount: String(flags['amount']),
        currency: typeof flags['currency'] === 'string' ? flags['currency'] : 'USD',
        externalId: flags['external-id'] as string | undefined,
        description: flags['description'] as string | undefined,
      });
      const { invoice, created } = await deps.invoicesService.create(project, input, CLI_ACTOR);
      return { invoice, created };
    },
  }),
  defineCommand(['invoicesService'], {
    noun: 'invoice',
    verb: 'show',
    summary: 'One invoice with its transactions.',
    flags: { project: ulidFlag('Project'), id: ulidFlag('Invoice') },
    run: async ({ flags, deps }) => ({ invoice: await deps.invoicesService.get(String(flags['project']), String(flags['id'])) }),
  }),
  defineCommand(['tenancyProjects', 'invoicesExporter'], {
    noun: 'invoice',
    verb: 'export',
    summary: "Export a project's invoices created in a range, with their transactions, for accounting (CSV or JSON, streamed).",
    flags: {
      project: ulidFlag('Project'),
      from: { type: 'string', required: true, description: 'Invoices created at or after this ISO 8601 date or date-time (a date: 00:00 UTC).' },
      to: { type: 'string', required: true, description: 'Invoices created at or before this ISO 8601 date or date-time (a date: the end of that UTC day).' },
      format: {
        type: 'string',
        required: true,
        choices: ['csv', 'json'],
        description: 'csv: one line per transaction (or per invoice without any); json: an array of invoices, each with its transactions.',
      },
      output: { type: 'string', description: 'Write to this file instead of stdout.' },
    },
    help:
      "Amounts are exact decimal strings: amount_crypto, amount_usd_at_creation (the invoice's USD amount), received_crypto (confirmed transactions), " +
      'usd_rate_at_payment (the cached rate when the invoice first reached a paid status) and received_usd_at_payment (rounded half-up to 8 decimals). ' +
      'Streams page by page in constant memory; on a terminal a progress line goes to stderr. Logs go to stderr.',
    ownsStdout: true,
    run: async ({ flags, deps }) => {
      const projectId = String(flags['project']);
      await deps.tenancyProjects.get(projectId);
      const from = parseInstant(String(flags['from']), 'from', 'start');
      const to = parseInstant(String(flags['to']), 'to', 'end');
      const output = typeof flags['output'] === 'string' ? flags['output'] : undefined;
      const file = output === undefined ? undefined : createWriteStream(output);
      // A file that cannot be written (no such folder, no permission, disk full) is the command's
      // error, not an uncaught stream error.
      let failed: Error | undefined;
      file?.on('error', (error) => {
        failed = error;
      });
      const refuse = (error: Error) =>
        coreErrors.validation_error({ message: `--output: cannot write ${output}: ${error.message}`, details: { field: 'output' } });
      if (file) await once(file, 'open').catch((error: Error) => Promise.reject(refuse(error)));
      const out: Writable = file ?? process.stdout;
      const write = async (text: string) => {
        if (failed) throw refuse(failed);
        if (!out.write(text)) await once(out, 'drain');
      };
      const tty = process.stderr.isTTY === true;
      let count = 0;
      const progress = (n: number) => {
        count = n;
        if (tty && n % 1000 === 0) process.stderr.write(`\rexported ${n} invoices`);
      };
      for await (const piece of exportDocument(deps.invoicesExporter.invoices({ projectId, from, to }), flags['format'] === 'csv' ? 'csv' : 'json', progress))
        await write(piece);
      if (tty) process.stderr.write(`\rexported ${count} invoices\n`);
      if (file) {
        file.end();
        await once(file, 'finish').catch((error: Error) => Promise.reject(refuse(error)));
      }
      return { exported: count };
    },
  }),
  defineCommand(['invoicesService'], {
    noun: 'invoice',
    verb: 'cancel',
    summary: 'Cancel a pending or detected invoice (releases its address into cooldown). Audited as the operator.',
    flags: { project: ulidFlag('Project'), id: ulidFlag('Invoice') },
    run: async ({ flags, deps }) => ({ invoice: await deps.invoicesService.cancel(String(flags['project']), String(flags['id']), CLI_ACTOR) }),
  }),
];
