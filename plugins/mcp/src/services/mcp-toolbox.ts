import {
  coreErrors,
  enforceAccess,
  isAppError,
  MCP_PAYWALLS,
  validateInput,
  type AppError,
  type Authenticator,
  type Cradle,
  type McpPaywall,
  type McpToolDefinition,
  type ProjectPrincipal,
  type RateLimitResult,
} from '@gw/kernel';
import type { Logger } from 'pino';
import Type from 'typebox';
import type { McpConfig } from '../config.js';
import { mcpErrors } from '../errors.js';
import { hasScope, type McpPrincipal } from './mcp-credentials.js';

/** A tool as `tools/list` shows it. */
export interface ListedTool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { readonly type: 'object'; readonly [key: string]: unknown };
  readonly annotations: { readonly title: string; readonly readOnlyHint: boolean; readonly openWorldHint: boolean };
}

/** A `tools/call` result (MCP CallToolResult). */
export interface ToolCallResult {
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
  readonly [key: string]: unknown;
}

/** The tool that needs no project: it lists the projects a credential reaches. */
const LIST_PROJECTS = 'list_projects';
const LIST_PROJECTS_SCOPE = 'projects:read';
const LIST_PROJECTS_ARGUMENTS = Type.Object({}, { additionalProperties: false });

/** enforceAccess only consults the authenticator for `projectParam`, which tools never have. */
const NO_LOOKUP: Authenticator = {
  authenticate: () => Promise.reject(new Error('MCP tools authenticate by bearer token')),
};

/**
 * Every tool of every enabled plugin (`mcpTools`, see McpToolDefinition) plus `list_projects`,
 * behind one dispatcher shared by the streamable HTTP endpoint and STDIO: scope check, argument
 * validation, project reach and access guards, then the plugin's handler, or, for a tool some
 * paywall (`MCP_PAYWALLS`) guards, that paywall, which runs the handler only once paid. Errors come
 * back as tool errors (`isError`) whose JSON carries the spec's `error_code`.
 */
export class McpToolbox {
  private groupsCache: Map<string, McpToolDefinition[]> | undefined;

  /** @throws Error when the plugins' tool declarations clash (the kernel start fails with it). */
  constructor(private readonly deps: Pick<Cradle, 'mcpTools' | 'tenancyProjects' | 'rateLimiter' | 'extensions'> & { logger: Logger; mcpConfig: McpConfig }) {
    this.groupsCache = this.groups();
  }

  list(): ListedTool[] {
    const listed: ListedTool[] = [
      {
        name: LIST_PROJECTS,
        title: 'List projects',
        description: `The projects this credential reaches (id, name, kind: production, testnet or sandbox; status). Every other tool takes one of these ids as project_id. Scope: ${LIST_PROJECTS_SCOPE}.`,
        inputSchema: JSON.parse(JSON.stringify(LIST_PROJECTS_ARGUMENTS)) as ListedTool['inputSchema'],
        annotations: { title: 'List projects', readOnlyHint: true, openWorldHint: false },
      },
    ];
    for (const [name, variants] of this.groups()) {
      const tool = variants[0]!;
      listed.push({
        name,
        title: tool.title,
        description: `${tool.description} Scope: ${tool.scope}.`,
        inputSchema: JSON.parse(JSON.stringify(tool.input)) as ListedTool['inputSchema'],
        annotations: { title: tool.title, readOnlyHint: !tool.writes, openWorldHint: false },
      });
    }
    return listed;
  }

  /** The scope a tool needs; undefined for unknown tools. */
  scopeOf(name: string): string | undefined {
    if (name === LIST_PROJECTS) return LIST_PROJECTS_SCOPE;
    return this.groups().get(name)?.[0]!.scope;
  }

  /** Counts `calls` tool calls against the credential's per-minute pool (spec 8). */
  async consumeRate(principal: McpPrincipal, calls = 1): Promise<RateLimitResult> {
    const results = await this.deps.rateLimiter.hitMany(
      { key: `mcp_tool_per_token:${principal.rateKey}`, limit: this.deps.mcpConfig.toolCallsPerMinute, windowSeconds: 60 },
      calls,
    );
    return results.find((result) => !result.allowed) ?? results[results.length - 1]!;
  }

  /** The tool error of a call over the per-token limit. */
  rateLimited(rate: RateLimitResult, requestId: string): ToolCallResult {
    return toolError(this.rateLimitError(rate), requestId);
  }

  rateLimitError(rate: RateLimitResult): AppError {
    return coreErrors.rate_limit_exceeded({
      message: `More than ${this.deps.mcpConfig.toolCallsPerMinute} tool calls per minute with this token.`,
      retryAfter: rate.retryAfter,
      details: { limit: this.deps.mcpConfig.toolCallsPerMinute, window_seconds: 60 },
    });
  }

  /**
   * Runs one tool call. Never throws: every failure is a tool error carrying its `error_code`.
   * `meta` is the request's `params._meta`, handed to the paywall guarding the tool (if any).
   */
  async call(name: string, rawArgs: unknown, principal: McpPrincipal, requestId: string, meta?: Record<string, unknown>): Promise<ToolCallResult> {
    try {
      const needed = this.scopeOf(name);
      if (needed === undefined)
        throw coreErrors.validation_error({ message: `Unknown tool "${name}"; tools/list shows the tools.`, details: { field: 'name' } });
      if (!hasScope(principal.auth.scopes, needed)) {
        throw mcpErrors.insufficient_scope({ message: `The tool ${name} needs the scope ${needed}.`, details: { scope: needed } });
      }
      if (name === LIST_PROJECTS) {
        validateInput(LIST_PROJECTS_ARGUMENTS, rawArgs ?? {}, 'body', false);
        return toolResult({ data: await this.reachableProjects(principal) });
      }
      const variants = this.groups().get(name)!;
      const args = validateInput<Record<string, unknown> & { project_id: string }>(variants[0]!.input, rawArgs ?? {}, 'body', false);
      const project = await this.reach(principal, args.project_id);
      const kind = project.kind === 'sandbox' ? 'sandbox' : 'production';
      const tool = variants.find((variant) => (variant.access?.projectKind ?? kind) === kind) ?? variants[0]!;
      const access = tool.access
        ? { ...(tool.access.projectKind ? { projectKind: tool.access.projectKind } : {}), ...(tool.access.write ? { write: true } : {}) }
        : undefined;
      await enforceAccess(access, { ...principal.auth, project }, {}, NO_LOOKUP);
      const actor = { actor: principal.auth.actor, channel: 'mcp', requestId } as const;
      const run = () => this.run(tool, { args, project, auth: principal.auth, actor }, requestId);
      const paywall = this.paywallOf(name);
      if (!paywall) return await run();
      return (await paywall.call({ tool: name, project, meta, requestId, actor, run })) as ToolCallResult;
    } catch (error) {
      return this.failure(error, name, requestId);
    }
  }

  /** The handler's result, or its failure as a tool error (what a paywall gets from `run`). */
  private async run(tool: McpToolDefinition, input: Parameters<McpToolDefinition['handler']>[0], requestId: string): Promise<ToolCallResult> {
    try {
      return toolResult(await tool.handler(input));
    } catch (error) {
      return this.failure(error, tool.name, requestId);
    }
  }

  private failure(error: unknown, tool: string, requestId: string): ToolCallResult {
    if (isAppError(error)) return toolError(error, requestId);
    this.deps.logger.error({ err: error, tool, requestId }, 'MCP tool failed');
    return toolError(coreErrors.internal_error(), requestId);
  }

  /** The first paywall (in plugin order) that guards the tool. */
  private paywallOf(name: string): McpPaywall | undefined {
    return this.deps.extensions.of(MCP_PAYWALLS).find((contribution) => contribution.item.guards(name))?.item;
  }

  /**
   * The project a call names, when the credential reaches it: a project of the credential's
   * operator (a project-bound PAT: only its project), not suspended. Unknown and foreign
   * projects are the same `permission_denied`, so ids of other operators cannot be probed.
   */
  private async reach(principal: McpPrincipal, projectId: string): Promise<ProjectPrincipal> {
    const project = await this.deps.tenancyProjects.principal(projectId);
    if (!project || project.operatorId !== principal.operatorId || (principal.projectId !== null && principal.projectId !== project.id)) {
      throw coreErrors.permission_denied({ message: `This credential does not reach project ${projectId}.`, details: { field: 'project_id' } });
    }
    if (project.status === 'suspended') throw coreErrors.project_suspended();
    return project;
  }

  private async reachableProjects(principal: McpPrincipal) {
    const projects = await this.deps.tenancyProjects.list({ operator: principal.operatorId });
    return projects.filter((project) => principal.projectId === null || project.id === principal.projectId);
  }

  private groups(): Map<string, McpToolDefinition[]> {
    if (this.groupsCache) return this.groupsCache;
    const groups = new Map<string, McpToolDefinition[]>();
    for (const tool of this.deps.mcpTools) {
      if (tool.name === LIST_PROJECTS) throw new Error(`MCP tool name ${LIST_PROJECTS} is reserved`);
      const variants = groups.get(tool.name) ?? [];
      // Arguments are validated before the project (and so the variant) is known: variants share one schema.
      const clash = variants.find(
        (variant) => variant.access?.projectKind === tool.access?.projectKind || variant.scope !== tool.scope || variant.input !== tool.input,
      );
      if (clash) throw new Error(`MCP tool ${tool.name} is declared twice for the same project kind, or with a different scope or input schema`);
      groups.set(tool.name, [...variants, tool]);
    }
    this.groupsCache = groups;
    return groups;
  }
}

function toolResult(value: unknown): ToolCallResult {
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { result: value };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A tool error: the REST error body (`error_code`, `message`, `details`, `request_id`) as JSON. */
export function toolError(error: AppError, requestId: string): ToolCallResult {
  const body = {
    error_code: error.code,
    message: error.message,
    ...(error.details ? { details: error.details } : {}),
    ...(error.retryAfter !== undefined ? { retry_after: error.retryAfter } : {}),
    request_id: requestId,
  };
  return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
}
