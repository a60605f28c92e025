import { type Actor, newId, type ProjectPrincipal, type RateLimiter } from '@gw/kernel';
import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import type { X402Config } from '../config.js';
import { x402Errors } from '../errors.js';
import type { PaymentRequirements, ResourceInfo } from '../protocol/messages.js';
import type { PaymentTarget } from './payment-target.js';
import type { X402Networks } from './x402-networks.js';
import type { X402Payments } from './x402-payments.js';

/** A fresh payTo asked for: a partner's paid call (facilitator) or a paid MCP tool's call. */
export interface OfferInput {
  readonly coin: string;
  /** The price in the coin, decimal string. */
  readonly amount: string;
  readonly resource: ResourceInfo;
  readonly source: 'facilitator' | 'tool';
  readonly tool?: string;
}

/**
 * Fresh payTo addresses (issue 41, "a facilitator for partners' own APIs"): each is an ordinary
 * invoice of the project (external id `x402_<offer id>`, the project's usual expiry, so a late
 * settlement still credits it), so a paid call gets the invoice's webhooks and shows in the
 * treasury like any payment; the `x402_offers` row ties its network and address to it for
 * `/verify` and `/settle`. At most `payToPerMinute` per project (429 `rate_limit_exceeded`).
 */
export class X402Offers {
  constructor(
    private readonly deps: {
      db: Knex;
      rateLimiter: RateLimiter;
      invoicesService: InvoiceService;
      x402Config: X402Config;
      x402Networks: X402Networks;
      x402Payments: X402Payments;
    },
  ) {}

  /**
   * A new invoice of `input.amount` in `input.coin` and the requirement that pays it. 429
   * `rate_limit_exceeded` past the project's `payToPerMinute`; 422 `x402_coin_unsupported` for a
   * coin x402 cannot be paid in here (the invoices' own errors for a bad amount).
   */
  async create(
    project: ProjectPrincipal,
    input: OfferInput,
    actor: Actor,
  ): Promise<{ readonly invoice: InvoiceView; readonly requirements: PaymentRequirements }> {
    const { db, rateLimiter, invoicesService, x402Config, x402Payments } = this.deps;
    await rateLimiter.consume({ key: `x402_pay_to:${project.id}`, limit: x402Config.payToPerMinute, windowSeconds: 60 });
    const asset = await this.deps.x402Networks.assetFor(input.coin, project.kind);
    if (!asset) throw x402Errors.x402_coin_unsupported({ details: { coin: input.coin } });
    const id = newId();
    const metadata = { x402: { resource: input.resource.url, source: input.source, ...(input.tool === undefined ? {} : { tool: input.tool }) } };
    const { invoice } = await invoicesService.create(project, { external_id: `x402_${id}`, coin: input.coin, amount_crypto: input.amount, metadata }, actor);
    const requirements = (await x402Payments.requirementsFor(invoice, input.resource))?.accepts[0];
    if (!requirements) throw x402Errors.x402_coin_unsupported({ details: { coin: input.coin } });
    await db.raw(
      `insert into x402_offers (id, project_id, invoice_id, source, chain, network, coin, asset, pay_to, amount_units, resource_url, tool, expires_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now() + make_interval(secs => ?))`,
      [
        id,
        project.id,
        invoice.id,
        input.source,
        asset.chain,
        asset.network,
        input.coin,
        asset.asset.toLowerCase(),
        requirements.payTo.toLowerCase(),
        requirements.amount,
        input.resource.url,
        input.tool ?? null,
        x402Config.maxTimeoutSeconds,
      ],
    );
    return { invoice, requirements };
  }

  /** The offer whose network and payTo the requirement names, in the project, as a payment target; undefined when none. */
  async target(projectId: string, requirements: PaymentRequirements): Promise<PaymentTarget | undefined> {
    const network = this.deps.x402Networks.networkOf(requirements.network);
    if (!network || typeof requirements.payTo !== 'string') return undefined;
    const row = await this.deps
      .db('x402_offers')
      .where({ project_id: projectId, chain: network.chain, network: network.network, pay_to: requirements.payTo.toLowerCase() })
      .orderBy('created_at', 'desc')
      .first<{ invoice_id: string; source: 'facilitator' | 'tool' } | undefined>('invoice_id', 'source');
    return row && { projectId, invoiceId: row.invoice_id, source: row.source };
  }
}
