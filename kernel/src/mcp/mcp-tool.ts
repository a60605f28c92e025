import Type, { type TObject, type TProperties, type Static } from 'typebox';
import type { AuditChannel } from '../audit/audit-log.js';
import type { AuthContext, ProjectPrincipal } from '../http/authenticator.js';
import type { RouteAccess } from '../http/route.js';
import { ULID_PATTERN } from '../ids.js';

/** What a tool handler receives: validated arguments, the target project and the caller. */
export interface McpToolInput<A> {
  /** Arguments, validated against the tool's `input` schema (defaults applied). */
  readonly args: A;
  /** The project named by `args.project_id`, already checked against the credential and `access`. */
  readonly project: ProjectPrincipal;
  /** The credential (PAT or OAuth access token) behind the call. */
  readonly auth: AuthContext;
  /** Audit actor of the call: `pat:<id>` or `oauth:<id>` on channel `mcp`. */
  readonly actor: { readonly actor: string; readonly channel: AuditChannel; readonly requestId?: string };
}

/**
 * One MCP tool (architecture guide: MCP tools are a kernel extension point). Plugins declare their
 * tools with `mcpTools`; the MCP plugin lists and calls them over streamable HTTP and STDIO.
 *
 * Rules the MCP plugin enforces before `handler` runs:
 * - `input` is a TypeBox object schema with a required `project_id` (the project the call acts
 *   on); it is published as the tool's JSON Schema and validated (400-style `validation_error`
 *   tool errors name the field).
 * - The credential must carry `scope` (or `admin:all`); without it the HTTP endpoint answers
 *   403 `insufficient_scope` with a `WWW-Authenticate` challenge.
 * - The project must be reachable by the credential (its operator; a project-bound PAT only its
 *   project), then `access` is enforced exactly as for REST routes (project kind, subscription on
 *   writes).
 *
 * Two plugins may declare the same tool name for different `access.projectKind` values (e.g.
 * `create_invoice` for production/testnet projects in `invoices` and for sandbox projects in
 * `sandbox`): the call goes to the variant of the target project's kind. Variants must share
 * `scope` and the very same `input` schema object (arguments are validated before the project is
 * known); the listing shows the first variant's description.
 *
 * Errors are thrown as catalogued AppErrors and come back as tool errors carrying `error_code`.
 */
export interface McpToolDefinition<A extends TObject = TObject> {
  /** snake_case tool name, e.g. `create_invoice`. */
  readonly name: string;
  /** Short human title. */
  readonly title: string;
  /** What the tool does and returns, written for an agent deciding whether to call it. */
  readonly description: string;
  readonly input: A;
  /** The scope a credential needs (spec 5.3). */
  readonly scope: string;
  readonly access?: RouteAccess;
  /** Whether the tool changes state (MCP `readOnlyHint` is its negation). */
  readonly writes: boolean;
  /** Error codes the tool may return, for the docs. */
  readonly errors?: readonly string[];
  readonly handler: (input: McpToolInput<Static<A>>) => Promise<unknown>;
}

/** Declares a tool with inferred argument types. */
export function defineMcpTool<A extends TObject>(tool: McpToolDefinition<A>): McpToolDefinition {
  if (!/^[a-z][a-z0-9_]*$/.test(tool.name)) throw new Error(`defineMcpTool: invalid tool name "${tool.name}"`);
  if (!tool.input.required?.includes('project_id')) throw new Error(`defineMcpTool(${tool.name}): input must require project_id`);
  return tool as unknown as McpToolDefinition;
}

/**
 * A tool's argument schema: `project_id` (the project the call acts on) followed by `properties`;
 * unknown arguments are refused.
 */
export function mcpArguments<P extends TProperties>(properties: P) {
  return Type.Object(
    {
      project_id: Type.String({
        pattern: ULID_PATTERN,
        description: 'Id of the project the call acts on (ULID; list_projects shows the ones this credential reaches).',
      }),
      ...properties,
    },
    { additionalProperties: false },
  );
}
