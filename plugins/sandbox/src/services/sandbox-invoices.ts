import type { Actor, ProjectPrincipal, RateLimiter } from '@gw/kernel';
import type { CreateInvoiceInput, InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import { isRateUnavailable, RATE_UNAVAILABLE_RETRY_AFTER } from '@gw/plugin-rates/contract';
import type { DeliveryStatus, EventLog, ResendResult } from '@gw/plugin-webhooks/contract';
import type { SandboxConfig } from '../config.js';
import { sandboxErrors } from '../errors.js';

/** What a sandbox project's resend refuses: events still retrying or dead-lettered (spec 4.5). */
export const SANDBOX_RESEND_REFUSES: readonly DeliveryStatus[] = ['retrying', 'dlq'];

/**
 * The sandbox mirrors of the invoice and resend routes (spec 4.5): the production services with
 * the sandbox's rules in front. A flat write limit per project, a cap on active invoices, 503
 * `rate_quote_unavailable` instead of the production 500 when no rate can be had, and resends
 * only of settled events.
 */
export class SandboxInvoices {
  constructor(
    private readonly deps: {
      rateLimiter: RateLimiter;
      sandboxConfig: SandboxConfig;
      invoicesService: InvoiceService;
      webhooksEventLog: EventLog;
    },
  ) {}

  /**
   * Creates (or replays) an invoice. 422 `sandbox_active_invoice_cap_reached` when the project
   * already has `activeInvoiceCap` unfinished invoices, unless the request replays one it has.
   * The cap is checked before the create, not under a lock: concurrent creates at the cap may
   * pass it by at most their number.
   */
  async create(project: ProjectPrincipal, input: CreateInvoiceInput, actor: Actor): Promise<{ invoice: InvoiceView; created: boolean }> {
    await this.writeLimit(project.id);
    const cap = this.deps.sandboxConfig.activeInvoiceCap;
    if ((await this.deps.invoicesService.countActive(project.id)) >= cap && !(await this.deps.invoicesService.hasExternalId(project.id, input.external_id))) {
      throw sandboxErrors.sandbox_active_invoice_cap_reached({ details: { cap } });
    }
    try {
      return await this.deps.invoicesService.create(project, input, actor);
    } catch (error) {
      if (isRateUnavailable(error)) {
        throw sandboxErrors.rate_quote_unavailable({
          message: (error as Error).message,
          retryAfter: RATE_UNAVAILABLE_RETRY_AFTER,
          details: { coin: input.coin },
        });
      }
      throw error;
    }
  }

  async cancel(projectId: string, invoiceId: string, actor: Actor): Promise<InvoiceView> {
    await this.writeLimit(projectId);
    return this.deps.invoicesService.cancel(projectId, invoiceId, actor);
  }

  /** Resend of a delivered or skipped event; 409 `event_not_resendable` while retrying or in the dlq. */
  async resend(projectId: string, eventId: string, actor: Actor): Promise<ResendResult> {
    return this.deps.webhooksEventLog.resend(projectId, eventId, actor, { refuse: SANDBOX_RESEND_REFUSES });
  }

  private async writeLimit(projectId: string): Promise<void> {
    const limit = this.deps.sandboxConfig.writeRateLimitPerMinute;
    await this.deps.rateLimiter.consume({ key: `sandbox.write:project:${projectId}`, limit, windowSeconds: 60 });
  }
}
