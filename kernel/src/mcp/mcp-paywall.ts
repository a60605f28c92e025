import type { Actor } from '../audit/actor.js';
import { extensionPoint } from '../extensions/extension-point.js';
import type { ProjectPrincipal } from '../http/authenticator.js';

/** A `tools/call` result as the MCP plugin answers it (MCP CallToolResult). */
export interface PaidToolResult {
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  readonly _meta?: Record<string, unknown>;
}

/** One call of a tool a paywall guards, as the MCP plugin hands it over once scope, arguments and access passed. */
export interface PaidToolCall {
  readonly tool: string;
  readonly project: ProjectPrincipal;
  /** The request's `params._meta` (where a payment protocol carries its payment), or undefined. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly requestId: string;
  /** The caller as the audit log names it (`pat:<id>` or `oauth:<id>` on channel `mcp`): what the paywall writes is theirs. */
  readonly actor: Actor;
  /** Runs the tool (its handler) and gives its result, an error result included. */
  readonly run: () => Promise<PaidToolResult>;
}

/**
 * A paywall in front of some MCP tools (issue 41: x402's MCP transport for the gateway's own paid
 * tools), contributed by the plugin that speaks the payment protocol. The MCP plugin asks each
 * paywall whether it `guards` a tool; the first that does answers the call: without a valid payment
 * it returns its payment-required result and never runs the tool; with one it runs the tool
 * (`call.run`) and settles only a result that is no error.
 */
export interface McpPaywall {
  readonly id: string;
  guards(tool: string): boolean;
  call(call: PaidToolCall): Promise<PaidToolResult>;
}

/** Paywalls of MCP tools (`contribute(MCP_PAYWALLS, …)`). */
export const MCP_PAYWALLS = extensionPoint<McpPaywall>('mcp.paywalls');
