import type { McpPaywall, PaidToolCall, PaidToolResult, ProjectPrincipal } from '@gw/kernel';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { X402Config } from '../config.js';
import { X402_MCP_META, X402_VERSION, type PaymentRequired, type PaymentRequirements, type ResourceInfo, type SettleResponse } from '../protocol/messages.js';
import { X402_REASONS } from '../protocol/reasons.js';
import type { PaymentTarget } from '../services/payment-target.js';
import type { X402Offers } from '../services/x402-offers.js';
import type { X402Payments } from '../services/x402-payments.js';

/** The services the paywall reads. */
export const X402_PAYWALL_DEPS = ['x402Config', 'x402Offers', 'x402Payments', 'invoicesService', 'tenancyProjects'] as const;

interface PaywallDeps {
  readonly x402Config: X402Config;
  readonly x402Offers: X402Offers;
  readonly x402Payments: X402Payments;
  readonly invoicesService: InvoiceService;
  readonly tenancyProjects: Pick<ProjectService, 'principal'>;
}

/** The `resource` of a paid tool's requirements, as x402's MCP transport names a tool. */
export function toolResource(tool: string): ResourceInfo {
  return { url: `mcp://tool/${tool}`, description: `MCP tool ${tool}`, mimeType: 'application/json' };
}

/**
 * x402's MCP transport (`specs/transports-v2/mcp.md`) for the gateway's own paid tools
 * (`plugins.x402.paidTools`, issue 41). A call without `_meta["x402/payment"]` gets an offer: a
 * fresh invoice of the tool's project for its price (`X402Offers.create`, source `tool`), answered
 * as the payment-required result (`isError`, `structuredContent` the PaymentRequired, its JSON as
 * text). A call with one is checked against the offer its `accepted` names (an offer of this tool
 * whose invoice still asks for the payment), verified, then the tool runs; an error result is
 * returned unsettled (nothing is taken for a failed call); otherwise the payment is settled into the
 * invoice's address and the tool's result carries the SettleResponse in
 * `_meta["x402/payment-response"]`. Any refusal is the payment-required result with the reason as
 * `error`; the tool's output is given only for a settled payment. The invoice turns paid when the
 * watchers see the transfer.
 */
export class X402Paywall implements McpPaywall {
  readonly id = 'x402';

  constructor(private readonly deps: PaywallDeps) {}

  guards(tool: string): boolean {
    return Object.hasOwn(this.deps.x402Config.paidTools, tool);
  }

  async call(call: PaidToolCall): Promise<PaidToolResult> {
    const price = this.deps.x402Config.paidTools[call.tool]!;
    const project = await this.payee(price.projectId);
    const resource = toolResource(call.tool);
    const offer = async (error: string) => {
      const { requirements } = await this.deps.x402Offers.create(
        project,
        { coin: price.coin, amount: price.amount, resource, source: 'tool', tool: call.tool },
        call.actor,
      );
      return paymentRequired({ x402Version: X402_VERSION, error, resource, accepts: [requirements] });
    };
    const payload = call.meta?.[X402_MCP_META.payment];
    if (payload === undefined) return offer('Payment required');
    const accepted = acceptedOf(payload);
    if (!accepted) return offer(X402_REASONS.payload);
    const offered = await this.offered(project, call.tool, accepted, resource);
    if (!offered) {
      // An offer of this tool whose invoice asks nothing more: the replay of what paid it is told so.
      const target = await this.deps.x402Offers.target(project.id, accepted);
      return offer(target?.source === 'tool' ? await this.deps.x402Payments.nothingDueReason(payload, target) : X402_REASONS.requirements);
    }
    const { required, target } = offered;
    const requirements = required.accepts[0]!;
    const { response: verified, payment } = await this.deps.x402Payments.verification(payload, requirements, target);
    if (!payment) return paymentRequired({ ...required, error: verified.invalidReason ?? X402_REASONS.verify });
    const result = await call.run();
    if (result.isError) return result;
    // Verified before the run: settled as verified (a change on chain meanwhile fails the mined transaction, nothing is credited).
    const settled = await this.deps.x402Payments.settleVerified(payment);
    if (!settled.success) return paymentRequired({ ...required, error: settled.errorReason ?? X402_REASONS.settle }, settled);
    return { ...result, _meta: { ...result._meta, [X402_MCP_META.response]: settled } };
  }

  /** The project the tool's payments go to (checked at start: `checkPaidTools`). */
  private async payee(projectId: string): Promise<ProjectPrincipal> {
    const project = await this.deps.tenancyProjects.principal(projectId);
    if (!project) throw new Error(`plugins.x402.paidTools names project ${projectId}, which does not exist`);
    return project;
  }

  /**
   * The offer a payment's `accepted` names, with what its invoice asks for now: an offer of this
   * tool (never a partner's, nor another tool's at another price) whose invoice still accepts the
   * payment; undefined otherwise.
   */
  private async offered(
    project: ProjectPrincipal,
    tool: string,
    accepted: PaymentRequirements,
    resource: ResourceInfo,
  ): Promise<{ required: PaymentRequired; target: PaymentTarget } | undefined> {
    const target = await this.deps.x402Offers.target(project.id, accepted);
    if (!target || target.source !== 'tool') return undefined;
    const invoice = await this.deps.invoicesService.get(target.projectId, target.invoiceId);
    const x402 = (invoice.metadata as { x402?: { tool?: unknown } } | null)?.x402;
    if (x402?.tool !== tool) return undefined;
    const required = await this.deps.x402Payments.requirementsFor(invoice, resource);
    return required && required.accepts.length > 0 ? { required, target } : undefined;
  }
}

/** The requirement a payment says it accepted, when it has the fields an offer is found by. */
function acceptedOf(payload: unknown): PaymentRequirements | undefined {
  if (payload === null || typeof payload !== 'object') return undefined;
  const accepted = (payload as { accepted?: unknown }).accepted;
  if (accepted === null || typeof accepted !== 'object') return undefined;
  const { network, payTo } = accepted as { network?: unknown; payTo?: unknown };
  return typeof network === 'string' && typeof payTo === 'string' ? (accepted as PaymentRequirements) : undefined;
}

/** x402's payment-required tool result; a failed settlement's SettleResponse in `_meta` (it may name a transaction still pending). */
function paymentRequired(required: PaymentRequired, settled?: SettleResponse): PaidToolResult {
  return {
    isError: true,
    structuredContent: required as unknown as Record<string, unknown>,
    content: [{ type: 'text', text: JSON.stringify(required) }],
    ...(settled ? { _meta: { [X402_MCP_META.response]: settled } } : {}),
  };
}
