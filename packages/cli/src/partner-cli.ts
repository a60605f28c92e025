/**
 * The partner developer's commands, which talk to a gateway over its signed REST API with one
 * project's credentials and never touch a database: `gateway api`, `gateway trigger` and
 * `gateway listen`. They take positional arguments, unlike the operator's `<noun> <verb>`
 * commands, and are dispatched before those.
 */
import { parseArgs } from 'node:util';
import {
  GatewayClient,
  GatewayConnectionError,
  GatewayError,
  GATEWAY_EVENT_TYPES,
  isMoneyOutEventType,
  isSessionEventType,
  SESSION_EVENT_TYPES,
  WEBHOOK_EVENT_TYPES,
  type CreateInvoiceInput,
} from '@gw/client';
import { PartnerUsageError, resolveCredentials } from './credentials.js';
import { triggerPlan, triggerableFrom, type SimulationStep } from './trigger-plan.js';
import { runListen } from './listen.js';
import { MONEY_OUT_FLAGS, runPayouts, runRefunds, triggerMoneyOut } from './money-out-commands.js';
import { runCheckoutSessions, runPaymentLinks, SESSION_FLAGS } from './session-commands.js';
import { triggerSession } from './session-trigger.js';
import type { ResourceCommand } from './resource-command.js';

/** The partner commands over one API resource, by name. */
const RESOURCE_COMMANDS: Readonly<Record<string, ResourceCommand>> = {
  refunds: runRefunds,
  payouts: runPayouts,
  'checkout-sessions': runCheckoutSessions,
  'payment-links': runPaymentLinks,
};

export interface PartnerIo {
  out(text: string): void;
  err(text: string): void;
}

/** The partner commands, in the order the overview and the docs list them. */
export const PARTNER_COMMANDS = ['api', 'trigger', 'refunds', 'payouts', 'checkout-sessions', 'payment-links', 'listen'] as const;
export type PartnerCommand = (typeof PARTNER_COMMANDS)[number];

export interface PartnerContext {
  readonly io: PartnerIo;
  /** How help spells the command (`gateway`, the default; `pnpm gateway` in a checkout). */
  readonly program?: string;
  readonly env: NodeJS.ProcessEnv;
  /** `listen` stops when this aborts (tests; the real CLI exits on SIGINT/SIGTERM). */
  readonly stopSignal?: AbortSignal;
}

const CREDENTIAL_FLAGS = {
  url: { type: 'string' },
  'project-id': { type: 'string' },
  'api-secret': { type: 'string' },
  credentials: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const CREDENTIALS_HELP = `Credentials (first found wins, each value separately):
  --url <url> --project-id <id> --api-secret <secret>    flags (a secret in a flag is visible to other local users in ps)
  GATEWAY_URL, GATEWAY_PROJECT_ID, GATEWAY_API_SECRET    environment
  --credentials <path>, $GATEWAY_CREDENTIALS_FILE, else $XDG_CONFIG_HOME/gateway/credentials.json (~/.config/...):
      {"url": "...", "project_id": "...", "api_secret": "..."}; refused unless only its owner can read it (chmod 600)`;

/** The partner commands' lines of the overview (`gateway --help`). */
export const PARTNER_USAGE = `Partner commands (a project's credentials against a gateway's REST API; no database):
  gateway api <METHOD> <path> [--data JSON]         Make a signed call and print the answer.
  gateway trigger <event_type> [--invoice ID]       Drive a sandbox invoice, refund, payout or checkout session to produce a webhook event.
  gateway refunds <create|list|get|cancel> ...      Refunds of the project's invoices.
  gateway payouts <create|list|get|cancel> ...      Payouts to addresses.
  gateway checkout-sessions <create|list|get|expire> ...   Checkout sessions: a price the payer pays in the coin they pick.
  gateway payment-links <create|list|get|deactivate> ...   Payment links: reusable URLs that open a session per payer.
  gateway listen --forward-to <url>                 Forward the project's webhook events to a local URL.`;

/** The overview's last line, pointing at each command's own help. */
export function partnerHelpPointer(program: string): string {
  return `Run "${program} <${PARTNER_COMMANDS.join('|')}> --help" for their arguments and credentials.`;
}

/**
 * Each partner command's `--help`, its usage and examples spelled with `program`: `gateway` for the
 * installed `@gw/cli`, `pnpm gateway` in a checkout of the gateway (the operator CLI).
 */
export function partnerHelp(program: string): Readonly<Record<PartnerCommand, string>> {
  return {
    api: `Usage: ${program} api <METHOD> <path> [--data JSON] [credentials] [--json]

Signs the request (spec 5.1), sends it and prints the JSON answer on stdout. <path> is the path
on the gateway with any query string, e.g. /api/v1/invoices?status=paid&limit=10. On an error
answer the error body is printed on stdout, "error <code>: <message>" on stderr, and the exit
code is 1. GET is retried on 429, 503 and network errors; other methods are sent once.

Flags:
  --data <json>  The request body (JSON text).
  --json  Print the answer as compact JSON (default: indented).

${CREDENTIALS_HELP}

Example:
  ${program} api POST /api/v1/sandbox/invoices --data '{"external_id":"o-1","coin":"eth","amount_crypto":"0.01"}'`,
    trigger: `Usage: ${program} trigger <event_type> [--invoice ID] [--coin COIN] [--address ADDRESS] [credentials] [--json]

Sandbox projects only. Drives a sandbox invoice through the simulations that produce <event_type>
(${WEBHOOK_EVENT_TYPES.join(', ')}), so the project's webhook target (or
"gateway listen") receives it. Without --invoice a new invoice is created (external_id
trigger-<time>, --coin, default eth). Prints one line per simulation and the event produced.

Refund and payout events (${GATEWAY_EVENT_TYPES.filter(isMoneyOutEventType).join(', ')})
start from a new item. A refund: a new sandbox invoice is paid overpaid (simulations), its excess
refunded, then the refund is claimed, approved, sent and confirmed or failed (sandbox simulations)
as far as the event needs; refund.cancelled cancels it. A payout goes to --address, else to the
address of a new sandbox invoice of --coin, then is approved, sent and confirmed or failed.

Checkout session events (${SESSION_EVENT_TYPES.join(', ')}) start from a new session of 0.01
--coin: checkout_session.completed picks the coin (simulate-pick) and pays the invoice
(simulate-detect, simulate-paid); checkout_session.expired ends the session.

Flags:
  --invoice <id>  Drive this sandbox invoice from its current status (invoice events).
  --coin <coin>  Coin of the invoice, refund, payout or session created (default eth).
  --address <address>  The payout's recipient (payout events).
  --json  Print the result as JSON.

${CREDENTIALS_HELP}`,
    refunds: `Usage: ${program} refunds <create|list|get|cancel> [arguments] [credentials] [--json]

Refunds of the project's invoices (a sandbox secret uses /api/v1/sandbox). A refund waits for the
payer's claim (its claim_url) and an administrator's approval; cancel works before approval.

  refunds create <invoice_id> [--amount X] [--rate-rule coin_amount|fiat_at_payment|fiat_now]
         [--spread PERCENT] [--address A] [--email E] [--reference R] [--reason R] [--idempotency-key K]
         Without --amount: the natural amount (an overpayment's excess, or all of it).
  refunds list [--invoice ID | --status S --limit N --cursor C]
  refunds get <id>
  refunds cancel <id>

${CREDENTIALS_HELP}`,
    payouts: `Usage: ${program} payouts <create|list|get|cancel> [arguments] [credentials] [--json]

Payouts to addresses the project gives (a sandbox secret uses /api/v1/sandbox). They wait for an
administrator's approval; cancel works before approval.

  payouts create --address A --coin C --amount X --reference R [--reason R] [--idempotency-key K]
  payouts create --data '[{"address":"...","coin":"usdc_erc20","amount":"12.5","reference":"w-1"}, ...]'
         1 to 100 recipients, all created or none.
  payouts list [--status S] [--limit N] [--cursor C]
  payouts get <id>
  payouts cancel <id>

${CREDENTIALS_HELP}`,
    'checkout-sessions': `Usage: ${program} checkout-sessions <create|list|get|expire> [arguments] [credentials] [--json]

Checkout sessions of the project (a sandbox secret uses /api/v1/sandbox): a price in a fiat
currency (ISO 4217) or one coin, paid in the coin the payer picks on the session's page (its url).

  checkout-sessions create --currency C --amount X [--coins a,b] [--description D] [--external-id X]
         [--email E] [--return-url U] [--cancel-url U] [--expires-in SECONDS] [--data JSON] [--idempotency-key K]
         --data is the whole request body (line_items, metadata, ...); the flags given override its fields.
  checkout-sessions list [--status open|completed|expired] [--link ID] [--external-id X] [--limit N] [--cursor C]
  checkout-sessions get <id>
  checkout-sessions expire <id>

${CREDENTIALS_HELP}

Example:
  ${program} checkout-sessions create --currency EUR --amount 42.50 --description "Order 1042" --idempotency-key order-1042`,
    'payment-links': `Usage: ${program} payment-links <create|list|get|deactivate> [arguments] [credentials] [--json]

Payment links of the project (a sandbox secret uses /api/v1/sandbox): a reusable URL and QR code
(url, qr_url) that opens a checkout session for each payer; deactivate stops new sessions.

  payment-links create --currency C (--amount X | --min X --max Y) [--coins a,b] [--description D]
         [--max-uses N] [--ask-email yes|no] [--return-url U] [--data JSON] [--idempotency-key K]
  payment-links list [--active yes|no] [--limit N] [--cursor C]
  payment-links get <id>
  payment-links deactivate <id>

${CREDENTIALS_HELP}

Example:
  ${program} payment-links create --currency USD --min 5 --max 500 --description "Tip jar"`,
    listen: `Usage: ${program} listen --forward-to <url> [--since <event_id>] [--state <path>] [--wait <seconds>] [credentials] [--json]

Follows the project's webhook events through the gateway's signed event stream
(GET /api/v1/webhooks/stream, or /api/v1/sandbox/webhooks/stream for a sandbox project), so no
inbound port is needed, POSTs each to <url> signed exactly as a delivery (the same body and
X-Service-Signature, -Event-Id, -Event-Type and -Delivery-Attempt headers, signed with the
project's API secret) and prints one line per event with the local answer. The cursor (the last
event forwarded) is saved after each event; restarted, it resumes right after it, so no event is
skipped (one may be forwarded twice if the process died while forwarding it: deduplicate on
event_id). A failed local answer is printed, not retried: the gateway's own deliveries keep their
retries. While the gateway cannot be reached (or answers 503/429) it asks again every 5 seconds,
keeping its cursor. Stop with Ctrl-C.

Flags:
  --forward-to <url>  Where to POST each event (required).
  --since <event_id>  Start after this event instead of the saved cursor.
  --state <path>  The cursor file (default $XDG_CONFIG_HOME/gateway/listen-<project_id>.cursor).
  --wait <seconds>  Long-poll wait per request, 0 to 25 (default 20).
  --json  Print one JSON object per event.

Without a saved cursor or --since it forwards only events created from now on.

${CREDENTIALS_HELP}`,
  };
}

/** Whether argv is a partner command (the operator's nouns are singular: `payout`, `invoice`; the partner's `refunds`, `payouts`). */
export function isPartnerCommand(argv: readonly string[]): boolean {
  return (PARTNER_COMMANDS as readonly (string | undefined)[]).includes(argv[0]);
}

/** Runs a partner command; returns the exit code (0, 1 failed, 2 usage). */
export async function runPartnerCommand(argv: readonly string[], context: PartnerContext): Promise<number> {
  const { io } = context;
  if (!isPartnerCommand(argv)) throw new Error(`not a partner command: ${argv[0]}`);
  const name = argv[0] as PartnerCommand;
  const json = argv.includes('--json');
  const usage = (message: string) => {
    if (json) io.out(JSON.stringify({ error_code: 'usage', message }));
    else io.err(`error usage: ${message}`);
    return 2;
  };
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const parsed = parseArgs({
      args: argv.slice(1),
      options: {
        ...CREDENTIAL_FLAGS,
        ...(name === 'api' ? { data: { type: 'string' } } : {}),
        ...(name === 'trigger' ? { invoice: { type: 'string' }, coin: { type: 'string' }, address: { type: 'string' } } : {}),
        ...(name === 'refunds' || name === 'payouts' ? MONEY_OUT_FLAGS : {}),
        ...(name === 'checkout-sessions' || name === 'payment-links' ? SESSION_FLAGS : {}),
        ...(name === 'listen' ? { 'forward-to': { type: 'string' }, since: { type: 'string' }, state: { type: 'string' }, wait: { type: 'string' } } : {}),
      },
      strict: true,
      allowPositionals: true,
    });
    values = parsed.values as Record<string, string | boolean | undefined>;
    positionals = parsed.positionals;
  } catch (error) {
    return usage(`${(error as Error).message.split('\n')[0]} (see "gateway ${name} --help")`);
  }
  if (values['help']) {
    io.out(partnerHelp(context.program ?? 'gateway')[name]);
    return 0;
  }
  try {
    const credentials = resolveCredentials(values as Record<string, string | undefined>, context.env);
    const gateway = new GatewayClient({ baseUrl: credentials.url, projectId: credentials.projectId, apiSecret: credentials.apiSecret });
    if (name === 'api') return await api(gateway, positionals, values, context, json);
    if (name === 'trigger') return await trigger(gateway, positionals, values, context, json);
    const resource = RESOURCE_COMMANDS[name];
    if (resource) {
      const [verb, ...rest] = positionals;
      const answer = await resource(gateway, verb ?? '', rest, values);
      io.out(JSON.stringify(answer, null, json ? undefined : 2));
      return 0;
    }
    if (positionals.length > 0) throw new PartnerUsageError(`listen takes no arguments (got ${positionals.join(' ')})`);
    return await runListen(gateway, credentials, values, context, json);
  } catch (error) {
    if (error instanceof PartnerUsageError) return usage(error.message);
    if (error instanceof GatewayError) {
      if (json) io.out(JSON.stringify({ error_code: error.errorCode, message: error.message, request_id: error.requestId, status: error.status }));
      else io.err(`error ${error.errorCode}: ${error.message} (HTTP ${error.status}, request ${error.requestId ?? '-'})`);
      return 1;
    }
    if (error instanceof GatewayConnectionError) {
      if (json) io.out(JSON.stringify({ error_code: 'connection_failed', message: error.message }));
      else io.err(`error connection_failed: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

/** A partner command that calls the gateway: its arguments and flags in, its exit code out. */
type GatewayCommand = (
  gateway: GatewayClient,
  positionals: string[],
  values: Record<string, string | boolean | undefined>,
  context: PartnerContext,
  json: boolean,
) => Promise<number>;

const api: GatewayCommand = async (gateway, positionals, values, { io }, json) => {
  const [method, path, ...rest] = positionals;
  if (!method || !path || rest.length > 0) throw new PartnerUsageError('expected: gateway api <METHOD> <path> [--data JSON]');
  if (!/^[A-Za-z]+$/.test(method)) throw new PartnerUsageError(`"${method}" is not an HTTP method`);
  if (!path.startsWith('/')) throw new PartnerUsageError(`<path> must start with "/" (got "${path}")`);
  let body: unknown;
  if (typeof values['data'] === 'string') {
    try {
      body = JSON.parse(values['data']);
    } catch (error) {
      throw new PartnerUsageError(`--data is not JSON: ${(error as Error).message}`);
    }
  }
  try {
    const answer = await gateway.call(method, path, body === undefined ? {} : { body });
    io.out(answer.body === undefined ? '' : JSON.stringify(answer.body, null, json ? undefined : 2));
    return 0;
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const errorBody = {
      error_code: error.errorCode,
      message: error.message.replace(`${error.errorCode}: `, ''),
      request_id: error.requestId,
      ...(error.details ? { details: error.details } : {}),
    };
    io.out(JSON.stringify(errorBody, null, json ? undefined : 2));
    io.err(`error ${error.errorCode}: HTTP ${error.status} (request ${error.requestId ?? '-'})`);
    return 1;
  }
};

const trigger: GatewayCommand = async (gateway, positionals, values, { io }, json) => {
  const [eventType, ...rest] = positionals;
  if (!eventType || rest.length > 0) throw new PartnerUsageError('expected: gateway trigger <event_type> [--invoice ID]');
  if (!(GATEWAY_EVENT_TYPES as readonly string[]).includes(eventType))
    throw new PartnerUsageError(`unknown event type "${eventType}"; one of ${GATEWAY_EVENT_TYPES.join(', ')}`);
  const coin = typeof values['coin'] === 'string' ? values['coin'] : 'eth';
  if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(eventType)) {
    if (values['invoice'] !== undefined) throw new PartnerUsageError(`--invoice is for invoice events; ${eventType} starts from a new item`);
    if (isSessionEventType(eventType)) {
      const steps: { step: string; id: string; status: string }[] = [];
      const session = await triggerSession(gateway, eventType, coin, (step) => {
        steps.push(step);
        if (!json) io.out(`${step.step.padEnd(12)} ${step.id}  ${step.status}`);
      });
      const result = { event_type: eventType, checkout_session_id: session.id, invoice_id: session.invoice_id, status: session.status, steps };
      io.out(json ? JSON.stringify(result) : `${eventType} for checkout session ${session.id}`);
      return 0;
    }
    const address = typeof values['address'] === 'string' ? values['address'] : undefined;
    const steps: { step: string; id: string; status: string }[] = [];
    const item = await triggerMoneyOut(gateway, eventType, { coin, address }, (step) => {
      steps.push(step);
      if (!json) io.out(`${step.step.padEnd(12)} ${step.id}  ${step.status}`);
    });
    const result = { event_type: eventType, [`${item.object}_id`]: item.id, invoice_id: item.invoice_id, status: item.status, steps };
    io.out(json ? JSON.stringify(result) : `${eventType} for ${item.object} ${item.id}`);
    return 0;
  }
  const invoiceId = typeof values['invoice'] === 'string' ? values['invoice'] : undefined;
  const invoice = invoiceId
    ? await gateway.sandbox.invoices.retrieve(invoiceId)
    : await gateway.sandbox.invoices.create({ external_id: `trigger-${Date.now()}`, coin: coin as CreateInvoiceInput['coin'], amount_crypto: '0.01' });
  // An unknown --coin is the gateway's 400 validation_error, printed as such.
  const plan = triggerPlan(eventType, invoice.status);
  if (!plan)
    throw new PartnerUsageError(`invoice ${invoice.id} is ${invoice.status}; ${eventType} can be triggered from ${triggerableFrom(eventType).join(', ')}`);
  const steps: { step: SimulationStep; event_id: string; status: string | undefined }[] = [];
  for (const step of plan) {
    const result = await simulate(gateway, step, invoice.id);
    steps.push({ step, event_id: result.event_id, status: result.status });
    if (!json) io.out(`${step.padEnd(12)} ${result.event_id}  ${result.status ?? ''}`);
  }
  const last = steps[steps.length - 1]!;
  const result = { invoice_id: invoice.id, created: invoiceId === undefined, event_type: eventType, event_id: last.event_id, steps };
  io.out(json ? JSON.stringify(result) : `${eventType} ${last.event_id} for invoice ${invoice.id}`);
  return 0;
};

function simulate(gateway: GatewayClient, step: SimulationStep, id: string): Promise<{ event_id: string; status?: string }> {
  const simulate = gateway.sandbox.simulate;
  switch (step) {
    case 'detect':
      return simulate.detect(id);
    case 'paid':
      return simulate.paid(id);
    case 'overpaid':
      return simulate.overpaid(id, { multiplier: 1.5 });
    case 'partial':
      return simulate.partial(id, { fraction: 0.5 });
    case 'expire':
      return simulate.expire(id);
    case 'latePayment':
      return simulate.latePayment(id);
    case 'reorg':
      return simulate.reorg(id);
    case 'reconfirm':
      return simulate.reconfirm(id);
  }
}
