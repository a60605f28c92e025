/**
 * Fuzz cases and how to run one. A case is plain data drawn by fast-check (so a seed replays it):
 * a REST operation of the OpenAPI document with its path, query, body, content type and
 * signature each valid or broken in one of many ways; an OAuth endpoint with valid or hostile
 * input; or a JSON-RPC message (or batch) for the MCP endpoint. `runCase` sends it and returns the
 * broken properties: a 5xx; an answer that does not match the route's documented schema or error
 * codes; a 2xx for another project's resource or with another project's ids in it; rows written by
 * a refused request; an OAuth error not in RFC 6749 shape; an MCP answer that is not JSON-RPC.
 */
import fc from 'fast-check';
import { responseMismatches } from '@gw/kernel/testing';
import { responseBody } from '@gw/testing';
import { countChanges, MCP_PATH, provisionSandbox, requestTarget, rowCounts, signRequest, type Credentials, type FuzzWorld } from './world.js';
import { hostileText, invalidValue, nestedJson, resolverFor, ulid, validValue, type JsonSchema } from './schema-arbitrary.js';

// ---------------------------------------------------------------------------------------------
// Case shapes

type Owner = 'own' | 'foreign' | 'random' | 'hostile';
interface PathChoice {
  readonly owner: Owner;
  readonly pick: number;
  readonly hostile: string;
}

type BodyChoice =
  | { readonly mode: 'none' }
  | { readonly mode: 'json'; readonly value: unknown; readonly valid: boolean }
  | { readonly mode: 'text'; readonly text: string; readonly what: string }
  | { readonly mode: 'bytes'; readonly bytes: readonly number[]; readonly what: string };

type Auth =
  | 'ok'
  | 'missing-project'
  | 'missing-timestamp'
  | 'missing-signature'
  | 'duplicate-project'
  | 'duplicate-signature'
  | 'duplicate-timestamp'
  | 'bad-signature'
  | 'uppercase-signature'
  | 'stale'
  | 'future'
  | 'bad-timestamp'
  | 'foreign-secret'
  | 'tampered'
  | 'replay'
  | 'unknown-project'
  | 'hostile-project'
  | 'hostile-request-id';

export interface RestCase {
  readonly kind: 'rest';
  readonly method: string;
  /** OpenAPI path, e.g. `/api/v1/invoices/{id}`. */
  readonly path: string;
  readonly caller: 'sandbox' | 'testnet';
  readonly pathValues: Readonly<Record<string, PathChoice>>;
  readonly query: { readonly entries: readonly (readonly [string, string])[]; readonly raw: string };
  readonly body: BodyChoice;
  /** `default`: application/json when there is a body. */
  readonly contentType: string | null;
  readonly auth: Auth;
}

export interface OAuthCase {
  readonly kind: 'oauth';
  readonly endpoint: 'register' | 'token' | 'revoke' | 'authorize' | 'authorize/email' | 'authorize/verify' | 'authorize/consent' | 'metadata';
  readonly query: string;
  readonly body: BodyChoice;
  readonly contentType: string | null;
  readonly authorization: string | null;
}

export interface McpCase {
  readonly kind: 'mcp';
  readonly token: 'pat' | 'none' | 'unknown' | 'malformed';
  readonly accept: string | null;
  readonly contentType: string | null;
  readonly body: BodyChoice;
}

export type FuzzCase = RestCase | OAuthCase | McpCase;

const DEFAULT = 'default';

// ---------------------------------------------------------------------------------------------
// Arbitraries

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly koaPath: string;
  readonly pathParams: readonly { name: string; schema: JsonSchema }[];
  readonly queryParams: readonly { name: string; schema: JsonSchema; required: boolean }[];
  readonly bodySchema: JsonSchema | undefined;
}

export function operationsOf(document: any): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith('/api/v1/') || path === '/api/v1/openapi.json') continue;
    for (const [method, op] of Object.entries(methods)) {
      const parameters = (op.parameters ?? []) as { name: string; in: string; required?: boolean; schema: JsonSchema }[];
      out.push({
        method: method.toUpperCase(),
        path,
        koaPath: path.replace(/\{([^}]+)\}/g, ':$1'),
        pathParams: parameters.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema })),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema, required: p.required === true })),
        bodySchema: op.requestBody?.content?.['application/json']?.schema,
      });
    }
  }
  return out;
}

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/vnd.api+json',
  'application/json; charset=latin1',
  '',
  '*/*',
);

function hostileBodies(): fc.Arbitrary<BodyChoice> {
  return fc.oneof(
    fc.constant<BodyChoice>({ mode: 'text', text: `{"a":"${'x'.repeat(1_100_000)}"}`, what: 'huge (over the 1 MiB limit)' }),
    fc
      .integer({ min: 60, max: 5000 })
      .chain((depth) =>
        fc.constantFrom<BodyChoice>(
          { mode: 'text', text: nestedJson(depth, 'object'), what: `${depth} nested objects` },
          { mode: 'text', text: nestedJson(depth, 'array'), what: `${depth} nested arrays` },
        ),
      ),
    fc.constantFrom<BodyChoice>(
      { mode: 'text', text: '{"external_id": "x", ', what: 'truncated JSON' },
      { mode: 'text', text: '{"a":1}{"b":2}', what: 'two JSON values' },
      { mode: 'text', text: 'null', what: 'JSON null' },
      { mode: 'text', text: '"text"', what: 'JSON string' },
      { mode: 'text', text: '12', what: 'JSON number' },
      { mode: 'text', text: '[]', what: 'JSON array' },
      { mode: 'text', text: '{"__proto__":{"polluted":1}}', what: 'prototype key' },
      { mode: 'text', text: '{"a":"\\ud800"}', what: 'lone surrogate escape' },
      { mode: 'text', text: '{"a":"\\u0000"}', what: 'NUL escape' },
      { mode: 'text', text: '\uFEFF{}', what: 'byte-order mark' },
      { mode: 'text', text: 'a=1&a=2', what: 'form text' },
      { mode: 'bytes', bytes: [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d], what: 'invalid UTF-8 in a string' },
      { mode: 'bytes', bytes: [0xc3, 0x28, 0xa0, 0xa1], what: 'invalid UTF-8' },
    ),
    fc.jsonValue({ maxDepth: 3 }).map<BodyChoice>((value) => ({ mode: 'json', value, valid: false })),
  );
}

function pathChoice(): fc.Arbitrary<PathChoice> {
  return fc.record({
    owner: fc.constantFrom<Owner>('own', 'own', 'own', 'foreign', 'foreign', 'random', 'hostile'),
    pick: fc.nat({ max: 10 }),
    hostile: fc
      .oneof(
        hostileText,
        fc.string({ minLength: 1, maxLength: 30 }),
        fc.constant('x'.repeat(5000)),
        ulid.map((u) => u.toLowerCase()),
      )
      .filter((s) => s !== '' && s !== '.' && s !== '..'),
  });
}

function queryFor(op: Operation, resolve: (s: JsonSchema) => JsonSchema): fc.Arbitrary<RestCase['query']> {
  if (op.queryParams.length === 0) {
    return fc.oneof(
      { weight: 4, arbitrary: fc.constant({ entries: [], raw: '' }) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), hostileText))
          .map(([k, v]) => ({ entries: [[k, v] as const], raw: '' })),
      },
    );
  }
  const stringify = (v: unknown) => (typeof v === 'string' ? v : v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v));
  const valid = fc
    .tuple(...op.queryParams.map((p) => (p.required ? validValue(p.schema, resolve) : fc.option(validValue(p.schema, resolve), { nil: undefined, freq: 2 }))))
    .map((values) => values.flatMap((v, i) => (v === undefined ? [] : [[op.queryParams[i]!.name, stringify(v)] as const])));
  const oneInvalid = fc
    .tuple(
      valid,
      fc.nat({ max: op.queryParams.length - 1 }).chain((i) => fc.tuple(fc.constant(op.queryParams[i]!.name), invalidValue(op.queryParams[i]!.schema, resolve))),
    )
    .map(([entries, [name, bad]]) => [...entries.filter(([k]) => k !== name), [name, stringify(bad)] as const]);
  const duplicated = fc
    .tuple(valid, fc.constantFrom(...op.queryParams.map((p) => p.name)), fc.string({ maxLength: 5 }))
    .map(([entries, name, other]) => [...entries, [name, other] as const, [name, '1'] as const]);
  return fc.oneof(
    { weight: 5, arbitrary: valid.map((entries) => ({ entries, raw: '' })) },
    { weight: 4, arbitrary: oneInvalid.map((entries) => ({ entries, raw: '' })) },
    { weight: 1, arbitrary: duplicated.map((entries) => ({ entries, raw: '' })) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(valid, fc.constantFrom('%', '%FF', '%uD800', 'limit=%E0%A4%A', '&&&', '=', 'limit', '%00=1', 'limit[]=1', 'limit[$gt]=0'))
        .map(([entries, raw]) => ({ entries, raw })),
    },
  );
}

function bodyFor(op: Operation, resolve: (s: JsonSchema) => JsonSchema): fc.Arbitrary<BodyChoice> {
  if (op.method === 'GET') return fc.constant({ mode: 'none' });
  if (!op.bodySchema) {
    return fc.oneof(
      { weight: 6, arbitrary: fc.constant<BodyChoice>({ mode: 'none' }) },
      { weight: 1, arbitrary: fc.constant<BodyChoice>({ mode: 'json', value: {}, valid: true }) },
      { weight: 2, arbitrary: hostileBodies() },
    );
  }
  // Valid bodies sometimes reuse an external_id of the set-up invoices (or of each other), so the
  // idempotency paths run: the same request again, or another request under a used external_id.
  const reused = fc.constantFrom('fuzz-a-sb-0', 'fuzz-a-tn-0', 'fuzz-b-sb-0', 'fuzz-b-tn-1', 'fuzz-shared');
  const valid = fc
    .tuple(validValue(op.bodySchema, resolve), fc.option(reused, { nil: undefined, freq: 2 }))
    .map(([value, externalId]) =>
      externalId !== undefined && value && typeof value === 'object' && 'external_id' in value ? { ...value, external_id: externalId } : value,
    );
  return fc.oneof(
    { weight: 8, arbitrary: valid.map<BodyChoice>((value) => ({ mode: 'json', value, valid: true })) },
    { weight: 5, arbitrary: invalidValue(op.bodySchema, resolve).map<BodyChoice>((value) => ({ mode: 'json', value, valid: false })) },
    { weight: 1, arbitrary: fc.constant<BodyChoice>({ mode: 'none' }) },
    { weight: 2, arbitrary: hostileBodies() },
  );
}

const auths = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Auth>('ok') },
  {
    weight: 6,
    arbitrary: fc.constantFrom<Auth>(
      'missing-project',
      'missing-timestamp',
      'missing-signature',
      'duplicate-project',
      'duplicate-signature',
      'duplicate-timestamp',
      'bad-signature',
      'uppercase-signature',
      'stale',
      'future',
      'bad-timestamp',
      'foreign-secret',
      'tampered',
      'replay',
      'replay',
      'replay',
      'unknown-project',
      'hostile-project',
      'hostile-request-id',
    ),
  },
);

export function restCaseArbitrary(world: FuzzWorld): fc.Arbitrary<RestCase> {
  const resolve = resolverFor(world.document);
  const operations = operationsOf(world.document);
  return fc.constantFrom(...operations).chain((op) => {
    const sandboxRoute = op.path.startsWith('/api/v1/sandbox');
    return fc.record({
      kind: fc.constant('rest' as const),
      method: fc.constant(op.method),
      path: fc.constant(op.path),
      caller: fc.oneof(
        { weight: 5, arbitrary: fc.constant(sandboxRoute ? ('sandbox' as const) : ('testnet' as const)) },
        { weight: 1, arbitrary: fc.constant(sandboxRoute ? ('testnet' as const) : ('sandbox' as const)) },
      ),
      pathValues: fc.record(Object.fromEntries(op.pathParams.map((p) => [p.name, pathChoice()]))) as fc.Arbitrary<Record<string, PathChoice>>,
      query: queryFor(op, resolve),
      body: bodyFor(op, resolve),
      contentType: fc.oneof(
        { weight: 8, arbitrary: fc.constant(DEFAULT) },
        { weight: 2, arbitrary: contentTypes },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
      auth: auths,
    });
  });
}

/** RFC 7591 client metadata, as much of it as the gateway reads. */
const CLIENT_METADATA: JsonSchema = {
  type: 'object',
  required: ['redirect_uris'],
  properties: {
    redirect_uris: {
      type: 'array',
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [{ enum: ['http://127.0.0.1:8080/cb', 'https://app.example/cb', 'http://localhost/cb'] }, { type: 'string', minLength: 1, maxLength: 50 }],
      },
    },
    client_name: { type: 'string', minLength: 1, maxLength: 200 },
    token_endpoint_auth_method: { enum: ['none', 'client_secret_post', 'client_secret_basic', 'private_key_jwt'] },
    grant_types: { type: 'array', maxItems: 3, items: { enum: ['authorization_code', 'refresh_token', 'client_credentials', 'implicit'] } },
    response_types: { type: 'array', maxItems: 2, items: { enum: ['code', 'token'] } },
    scope: { type: 'string', maxLength: 100 },
    client_uri: { type: 'string', maxLength: 100 },
    logo_uri: { type: 'string', maxLength: 100 },
  },
};

function formText(fields: fc.Arbitrary<readonly (readonly [string, string])[]>): fc.Arbitrary<BodyChoice> {
  return fields.map((entries) => ({ mode: 'text', text: new URLSearchParams(entries as [string, string][]).toString(), what: 'form' }));
}

export function oauthCaseArbitrary(world: FuzzWorld): fc.Arbitrary<OAuthCase> {
  const resource = `${world.gw.url}${MCP_PATH}`;
  const value = (choices: string[]) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...choices) },
      { weight: 1, arbitrary: hostileText },
      { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
    );
  const field = (name: string, choices: string[]) =>
    fc.option(
      value(choices).map((v) => [name, v] as const),
      { nil: undefined, freq: 3 },
    );
  const fields = (...list: fc.Arbitrary<readonly [string, string] | undefined>[]) =>
    fc.tuple(fc.tuple(...list), fc.boolean()).map(([entries, dup]) => {
      const present = entries.filter((e): e is readonly [string, string] => e !== undefined);
      return dup && present.length > 0 ? [...present, present[0]!] : present;
    });
  const verifier = 'v'.repeat(43);
  const tokenFields = fields(
    field('grant_type', ['authorization_code', 'refresh_token', 'client_credentials', 'password']),
    field('client_id', [world.oauthClientId, 'https://localhost:1/client.json', '01ARZ3NDEKTSV4RRFFQ69G5FAV']),
    field('code', ['svc_code_x', 'abc']),
    field('redirect_uri', [world.oauthRedirectUri, 'http://evil.example/cb']),
    field('code_verifier', [verifier, 'short']),
    field('resource', [resource, 'https://other.example/mcp']),
    field('refresh_token', ['svc_ort_x', 'x']),
    field('client_secret', ['s']),
    field('scope', ['projects:read', 'invoices:write']),
  );
  const authorizeFields = fields(
    field('client_id', [world.oauthClientId, 'https://localhost:1/client.json', 'nope']),
    field('redirect_uri', [world.oauthRedirectUri, 'http://evil.example/cb']),
    field('response_type', ['code', 'token']),
    field('code_challenge_method', ['S256', 'plain']),
    field('code_challenge', ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'x']),
    field('resource', [resource, 'https://other.example/mcp']),
    field('scope', ['projects:read invoices:read', 'invoices:write', '']),
    field('state', ['s', 'x'.repeat(600)]),
  );
  const pageFields = fields(
    field('request', ['01ARZ3NDEKTSV4RRFFQ69G5FAV', 'x']),
    field('csrf', ['x', '']),
    field('email', ['someone@example.test', 'not-an-email', 'x'.repeat(400) + '@example.test']),
    field('challenge', ['01ARZ3NDEKTSV4RRFFQ69G5FAV']),
    field('code', ['123456', 'abcdef']),
    field('decision', ['approve', 'deny', 'maybe']),
  );
  const formBody = (f: typeof tokenFields) =>
    fc.oneof(
      { weight: 6, arbitrary: formText(f) },
      { weight: 1, arbitrary: f.map<BodyChoice>((entries) => ({ mode: 'json', value: Object.fromEntries(entries), valid: false })) },
      { weight: 2, arbitrary: hostileBodies() },
    );
  const formType = fc.oneof(
    { weight: 8, arbitrary: fc.constant('application/x-www-form-urlencoded') },
    { weight: 2, arbitrary: contentTypes },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  const none = fc.constant<BodyChoice>({ mode: 'none' });
  const make = (endpoint: OAuthCase['endpoint'], query: fc.Arbitrary<string>, body: fc.Arbitrary<BodyChoice>, contentType: fc.Arbitrary<string | null>) =>
    fc.record({
      kind: fc.constant('oauth' as const),
      endpoint: fc.constant(endpoint),
      query,
      body,
      contentType,
      authorization: fc.option(fc.constantFrom('Basic eDp5', 'Bearer x', 'Basic !!!'), { nil: null, freq: 6 }),
    });
  return fc.oneof(
    make(
      'register',
      fc.constant(''),
      fc.oneof(
        { weight: 3, arbitrary: validValue(CLIENT_METADATA).map<BodyChoice>((value) => ({ mode: 'json', value, valid: true })) },
        { weight: 4, arbitrary: invalidValue(CLIENT_METADATA).map<BodyChoice>((value) => ({ mode: 'json', value, valid: false })) },
        { weight: 2, arbitrary: hostileBodies() },
      ),
      fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: contentTypes }, { weight: 1, arbitrary: fc.constant(null) }),
    ),
    make('token', fc.constant(''), formBody(tokenFields), formType),
    make(
      'revoke',
      fc.constant(''),
      formBody(
        fields(field('token', ['svc_oat_x', 'x']), field('client_id', [world.oauthClientId]), field('token_type_hint', ['access_token', 'refresh_token', 'x'])),
      ),
      formType,
    ),
    make(
      'authorize',
      authorizeFields.map((entries) => new URLSearchParams(entries as [string, string][]).toString()),
      none,
      fc.constant(null),
    ),
    make('authorize', fc.constantFrom('%', 'client_id=%FF', 'state=%uD800', 'client_id=a&client_id=b'), none, fc.constant(null)),
    make('authorize/email', fc.constant(''), formBody(pageFields), formType),
    make('authorize/verify', fc.constant(''), formBody(pageFields), formType),
    make('authorize/consent', fc.constant(''), formBody(pageFields), formType),
    make('metadata', fc.constant(''), none, fc.constant(null)),
  );
}

const JSONRPC_IDS = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 1_000_000 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 10 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, true, 1.5, {}, [], -1, 2 ** 60, '\uD800') },
);

export function mcpCaseArbitrary(world: FuzzWorld): fc.Arbitrary<McpCase> {
  const tool = fc.constantFrom(...world.tools);
  const ownIds = [
    world.a.sandbox.projectId,
    world.a.testnet.projectId,
    ...world.a.sandboxInvoices,
    ...world.a.testnetInvoices,
    ...world.a.sandboxEvents,
    ...world.a.testnetEvents,
  ];
  const foreignIds = [...world.foreignIds];
  // Arguments from the tool's input schema, valid or not; ids of A's, B's or nobody's resources.
  const toolCall = tool.chain((t) =>
    fc
      .tuple(fc.oneof(validValue(t.inputSchema), invalidValue(t.inputSchema)), fc.constantFrom('keep', 'own', 'foreign', 'foreign'), fc.nat({ max: 100 }))
      .map(([args, idChoice, pick]) => {
        if (!args || typeof args !== 'object' || Array.isArray(args) || idChoice === 'keep') return { name: t.name, arguments: args };
        const copy = { ...(args as Record<string, unknown>) };
        for (const key of Object.keys((t.inputSchema['properties'] ?? {}) as object)) {
          if (!/(^|_)id$/.test(key) || key === 'external_id') continue;
          const pool = idChoice === 'own' ? ownIds : foreignIds;
          copy[key] =
            t.name.startsWith('sandbox_reset') || t.name.startsWith('sandbox_delete')
              ? idChoice === 'own'
                ? world.disposable.projectId
                : pool[pick % pool.length]
              : pool[pick % pool.length];
        }
        return { name: t.name, arguments: copy };
      }),
  );
  const params = fc.oneof(
    toolCall,
    fc.record({
      protocolVersion: fc.constantFrom('2025-06-18', '2024-11-05', 'x'),
      capabilities: fc.constant({}),
      clientInfo: fc.record({ name: fc.string(), version: fc.string() }),
    }),
    fc.jsonValue({ maxDepth: 2 }),
  );
  const method = fc.oneof(
    { weight: 6, arbitrary: fc.constant('tools/call') },
    { weight: 3, arbitrary: fc.constantFrom('initialize', 'tools/list', 'ping', 'notifications/initialized', 'resources/list', 'prompts/list') },
    { weight: 1, arbitrary: fc.oneof(fc.string({ maxLength: 12 }), fc.integer()) },
  );
  const message = fc
    .record(
      {
        jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant<unknown>('2.0') }, { weight: 1, arbitrary: fc.constantFrom<unknown>('1.0', 2, null, '') }),
        id: JSONRPC_IDS,
        method,
        params,
      },
      { requiredKeys: [] },
    )
    .map((m) => (m.method === 'tools/call' && m.params && typeof m.params === 'object' && 'protocolVersion' in m.params ? { ...m, method: 'initialize' } : m));
  const wellFormed = fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.integer({ min: 1, max: 1_000_000 }),
    method: fc.constant('tools/call'),
    params: toolCall,
  });
  const body = fc.oneof(
    { weight: 5, arbitrary: wellFormed.map<BodyChoice>((value) => ({ mode: 'json', value, valid: true })) },
    { weight: 4, arbitrary: message.map<BodyChoice>((value) => ({ mode: 'json', value, valid: false })) },
    {
      weight: 2,
      arbitrary: fc.array(fc.oneof(message, wellFormed), { minLength: 0, maxLength: 3 }).map<BodyChoice>((value) => ({ mode: 'json', value, valid: false })),
    },
    { weight: 2, arbitrary: hostileBodies() },
  );
  return fc.record({
    kind: fc.constant('mcp' as const),
    token: fc.oneof(
      { weight: 8, arbitrary: fc.constant('pat' as const) },
      { weight: 1, arbitrary: fc.constantFrom('none' as const, 'unknown' as const, 'malformed' as const) },
    ),
    accept: fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json, text/event-stream') },
      { weight: 1, arbitrary: fc.constantFrom<string | null>(null, 'application/json', 'text/event-stream', 'text/html') },
    ),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json') },
      { weight: 1, arbitrary: contentTypes },
      { weight: 1, arbitrary: fc.constant(null) },
    ),
    body,
  });
}

/** Every case kind, weighted roughly by the size of its surface. */
export function caseArbitrary(world: FuzzWorld): fc.Arbitrary<FuzzCase> {
  return fc.oneof(
    { weight: 6, arbitrary: restCaseArbitrary(world) },
    { weight: 2, arbitrary: oauthCaseArbitrary(world) },
    { weight: 2, arbitrary: mcpCaseArbitrary(world) },
  );
}

// ---------------------------------------------------------------------------------------------
// Running a case

interface Sent {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: unknown;
}

function bodyBytes(body: BodyChoice): Buffer | undefined {
  switch (body.mode) {
    case 'none':
      return undefined;
    case 'json':
      return body.value === undefined ? undefined : Buffer.from(JSON.stringify(body.value), 'utf8');
    case 'text':
      return Buffer.from(body.text, 'utf8');
    case 'bytes':
      return Buffer.from(body.bytes);
  }
}

async function send(url: string, method: string, headers: Headers, bytes: Buffer | undefined): Promise<Sent> {
  const response = await fetch(url, { method, headers, redirect: 'manual', ...(bytes !== undefined ? { body: new Uint8Array(bytes) } : {}) });
  const { text, body } = await responseBody(response);
  return { status: response.status, headers: response.headers, text, body };
}

/** encodeURIComponent that takes any string: a lone surrogate goes out as U+FFFD's UTF-8 bytes. */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
}

/** Node's default `--max-http-header-size`: request line plus headers. */
const NODE_MAX_HEADER_SIZE = 16 * 1024;

function pickId(pool: readonly string[], pick: number): string {
  return pool.length === 0 ? '01ARZ3NDEKTSV4RRFFQ69G5FAV' : pool[pick % pool.length]!;
}

/** Resolves a path parameter to a concrete value (and whether it names B's resource). */
function pathValue(world: FuzzWorld, c: RestCase, name: string, choice: PathChoice): { value: string; foreign: boolean } {
  if (choice.owner === 'hostile') return { value: choice.hostile, foreign: false };
  if (choice.owner === 'random' || name === 'tx_hash')
    return { value: name === 'tx_hash' ? `0x${'ab'.repeat(32)}` : '01ARZ3NDEKTSV4RRFFQ69G5FAV', foreign: false };
  const side = choice.owner === 'own' ? world.a : world.b;
  const sandbox = c.path.startsWith('/api/v1/sandbox');
  const destructive = /\/reset$/.test(c.path) || (c.method === 'DELETE' && c.path === '/api/v1/sandbox/{projectId}');
  const pools: Record<string, readonly string[]> = {
    id: sandbox ? side.sandboxInvoices : side.testnetInvoices,
    invoiceId: side.sandboxInvoices,
    event_id: sandbox ? side.sandboxEvents : side.testnetEvents,
    projectId:
      choice.owner === 'own' && destructive ? [world.disposable.projectId] : [c.caller === 'sandbox' ? side.sandbox.projectId : side.testnet.projectId],
  };
  return { value: pickId(pools[name] ?? [], choice.pick), foreign: choice.owner === 'foreign' };
}

function credentialsOf(world: FuzzWorld, c: RestCase): Credentials {
  const destructive = /\/reset$/.test(c.path) || (c.method === 'DELETE' && c.path === '/api/v1/sandbox/{projectId}');
  if (destructive && c.pathValues['projectId']?.owner === 'own') return world.disposable;
  return c.caller === 'sandbox' ? world.a.sandbox : world.a.testnet;
}

export interface CaseOutcome {
  /** The broken properties; empty when none. */
  readonly problems: string[];
  /** HTTP status of every request sent (a replay sends two). */
  readonly statuses: number[];
}

/** Sends a case and returns the properties it broke and the statuses it got. */
export async function runCase(world: FuzzWorld, c: FuzzCase): Promise<CaseOutcome> {
  const statuses: number[] = [];
  const problems =
    c.kind === 'rest' ? await runRest(world, c, statuses) : c.kind === 'oauth' ? await runOAuth(world, c, statuses) : await runMcp(world, c, statuses);
  return { problems, statuses };
}

function foreignLeaks(world: FuzzWorld, sent: Sent, request: string): string[] {
  return [...world.foreignIds].filter((id) => sent.text.includes(id) && !request.includes(id));
}

async function runRest(world: FuzzWorld, c: RestCase, statuses: number[]): Promise<string[]> {
  const problems: string[] = [];
  let foreign = false;
  let pathname = c.path;
  for (const [name, choice] of Object.entries(c.pathValues)) {
    const resolved = pathValue(world, c, name, choice);
    foreign ||= resolved.foreign;
    pathname = pathname.replace(`{${name}}`, percentEncode(resolved.value));
  }
  const query = [...c.query.entries.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`), ...(c.query.raw ? [c.query.raw] : [])].join('&');
  const url = new URL(`${world.gw.url}${pathname}${query ? `?${query}` : ''}`);
  const creds = credentialsOf(world, c);
  const bytes = bodyBytes(c.body);
  const rawBody = bytes ? bytes.toString('utf8') : '';
  const now = Math.floor(Date.now() / 1000);
  const timestamp = c.auth === 'stale' ? now - 3600 : c.auth === 'future' ? now + 3600 : now;
  const secret = c.auth === 'foreign-secret' ? world.b.testnet.secret : creds.secret;
  // Two equal writes within one second carry the same signature; the second gets the first's
  // answer (docs/decisions.md, "Signing forms and repeated signed requests").
  const signature = signRequest({ secret, method: c.method, target: requestTarget(url), timestamp, rawBody: c.auth === 'tampered' ? `${rawBody} ` : rawBody });
  const headers = new Headers();
  if (c.auth !== 'missing-project')
    headers.append(
      'X-Project-Id',
      c.auth === 'unknown-project' ? '01ARZ3NDEKTSV4RRFFQ69G5FAV' : c.auth === 'hostile-project' ? 'x\u00e9\u00ff' : creds.projectId,
    );
  if (c.auth !== 'missing-timestamp') headers.append('X-Timestamp', c.auth === 'bad-timestamp' ? '1e9' : String(timestamp));
  if (c.auth !== 'missing-signature')
    headers.append('X-Signature', c.auth === 'bad-signature' ? 'ab'.repeat(32) : c.auth === 'uppercase-signature' ? signature.toUpperCase() : signature);
  if (c.auth === 'duplicate-project') headers.append('X-Project-Id', world.b.testnet.projectId);
  if (c.auth === 'duplicate-signature') headers.append('X-Signature', signature);
  if (c.auth === 'duplicate-timestamp') headers.append('X-Timestamp', String(timestamp));
  if (c.auth === 'hostile-request-id') headers.append('X-Request-Id', 'x'.repeat(300) + '\u00ff');
  const contentType = c.contentType === DEFAULT ? (bytes !== undefined ? 'application/json' : null) : c.contentType;
  if (contentType !== null && contentType !== '') headers.set('Content-Type', contentType);
  const request = `${url.pathname}${url.search} ${rawBody.slice(0, 100_000)}`;
  const sends = c.auth === 'replay' ? 2 : 1;
  for (let i = 0; i < sends; i += 1) {
    const before = await rowCounts(world);
    const sent = await send(url.toString(), c.method, headers, bytes);
    const after = await rowCounts(world);
    statuses.push(sent.status);
    const label = sends > 1 ? `(send ${i + 1}) ` : '';
    if (sent.status >= 500) problems.push(`${label}status ${sent.status}: ${sent.text.slice(0, 300)}`);
    const koaPath = c.path.replace(/\{([^}]+)\}/g, ':$1');
    // Node's HTTP parser refuses a request line and headers over its 16 KiB limit with 431 and no
    // body before the gateway sees the request (docs/decisions.md, "Requests over Node's header limit").
    const headSize = url.pathname.length + url.search.length + [...headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
    const transportRefusal = sent.status === 431 && headSize > NODE_MAX_HEADER_SIZE && sent.text === '';
    if (sent.status === 431 && !transportRefusal) problems.push(`${label}431 for a request head of ${headSize} bytes (or with a body)`);
    const mismatches = transportRefusal ? [] : responseMismatches(world.gw.kernel, c.method as 'GET', koaPath, sent.status, sent.body);
    problems.push(...mismatches.map((m) => `${label}${m}`));
    if (foreign && sent.status < 300) problems.push(`${label}cross-project: ${sent.status} for another project's resource`);
    if (sent.status < 300) {
      const leaks = foreignLeaks(world, sent, request);
      if (leaks.length > 0) problems.push(`${label}cross-project: the answer holds ids of another project: ${leaks.join(', ')}`);
    }
    if (sent.status >= 400) {
      const changed = countChanges(before, after);
      if (changed.length > 0) problems.push(`${label}refused (${sent.status}) but wrote rows: ${changed.join('; ')}`);
    }
    if (sent.status < 300 && c.method === 'DELETE' && creds === world.disposable) world.disposable = await provisionSandbox(world.gw, world.a.operatorId);
  }
  return problems;
}

const OAUTH_PATHS: Record<OAuthCase['endpoint'], { method: string; path: string }> = {
  register: { method: 'POST', path: '/oauth/register' },
  token: { method: 'POST', path: '/oauth/token' },
  revoke: { method: 'POST', path: '/oauth/revoke' },
  authorize: { method: 'GET', path: '/oauth/authorize' },
  'authorize/email': { method: 'POST', path: '/oauth/authorize/email' },
  'authorize/verify': { method: 'POST', path: '/oauth/authorize/verify' },
  'authorize/consent': { method: 'POST', path: '/oauth/authorize/consent' },
  metadata: { method: 'GET', path: '/.well-known/oauth-authorization-server' },
};

/** RFC 6749 section 5.2: `error` (a code) and optionally `error_description`, `error_uri`. */
export function oauthErrorShape(body: unknown): string | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return 'not a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b['error'] !== 'string' || !/^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/.test(b['error'])) return `error is ${JSON.stringify(b['error'])}`;
  if (b['error_description'] !== undefined && typeof b['error_description'] !== 'string') return 'error_description is not a string';
  return undefined;
}

async function runOAuth(world: FuzzWorld, c: OAuthCase, statuses: number[]): Promise<string[]> {
  const problems: string[] = [];
  const { method, path } = OAUTH_PATHS[c.endpoint];
  const url = `${world.gw.url}${path}${c.query ? `?${c.query}` : ''}`;
  const headers = new Headers();
  const bytes = method === 'GET' ? undefined : bodyBytes(c.body);
  if (c.contentType) headers.set('Content-Type', c.contentType);
  if (c.authorization) headers.set('Authorization', c.authorization);
  const before = await rowCounts(world);
  const sent = await send(url, method, headers, bytes);
  const after = await rowCounts(world);
  statuses.push(sent.status);
  if (sent.status >= 500) problems.push(`status ${sent.status}: ${sent.text.slice(0, 300)}`);
  // Every error of the JSON endpoints is RFC 6749's shape, the kernel's own refusals before the
  // handler (413, 415, unparseable JSON) included (the OAuth plugin's error format for /oauth).
  if ((c.endpoint === 'register' || c.endpoint === 'token' || c.endpoint === 'revoke') && sent.status >= 400 && sent.status < 500) {
    const shape = oauthErrorShape(sent.body);
    if (shape) problems.push(`${c.endpoint} ${sent.status}: not an RFC 6749 error (${shape}): ${sent.text.slice(0, 200)}`);
  }
  // RFC 7009: revocation answers 200 whatever the token; only a request the server cannot read is refused.
  if (c.endpoint === 'revoke' && sent.status !== 200 && ![400, 413, 415].includes(sent.status))
    problems.push(`revoke answered ${sent.status} (RFC 7009: 200): ${sent.text.slice(0, 200)}`);
  if (c.endpoint === 'metadata' && sent.status !== 200) problems.push(`metadata answered ${sent.status}`);
  // 2xx bodies of the JSON endpoints: RFC 7591 section 3.2.1 and RFC 8414 section 2, as far as the spec (2.7, 5.4) names fields.
  const answer = (sent.body ?? {}) as Record<string, unknown>;
  if (
    c.endpoint === 'register' &&
    sent.status < 300 &&
    !(
      typeof answer['client_id'] === 'string' &&
      Array.isArray(answer['redirect_uris']) &&
      ['none', 'client_secret_post'].includes(answer['token_endpoint_auth_method'] as string)
    )
  ) {
    problems.push(`register ${sent.status}: not a client information response: ${sent.text.slice(0, 200)}`);
  }
  if (
    c.endpoint === 'metadata' &&
    sent.status === 200 &&
    !['issuer', 'authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'].every((name) => typeof answer[name] === 'string')
  ) {
    problems.push(`metadata: a required field is missing: ${sent.text.slice(0, 200)}`);
  }
  const location = sent.headers.get('location') ?? '';
  const refused = sent.status >= 400 || (sent.status === 302 && /[?&]error=/.test(location));
  if (refused) {
    const changed = countChanges(before, after);
    if (changed.length > 0) problems.push(`refused (${sent.status}) but wrote rows: ${changed.join('; ')}`);
  }
  return problems;
}

/** Problems of a JSON-RPC 2.0 response object. */
export function jsonRpcResponseProblems(value: unknown): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return ['a response is not an object'];
  const r = value as Record<string, unknown>;
  const out: string[] = [];
  if (r['jsonrpc'] !== '2.0') out.push(`jsonrpc is ${JSON.stringify(r['jsonrpc'])}`);
  if (!('id' in r) || !(typeof r['id'] === 'string' || typeof r['id'] === 'number' || r['id'] === null)) out.push(`id is ${JSON.stringify(r['id'])}`);
  if ('result' in r === 'error' in r) out.push('not exactly one of result and error');
  if ('error' in r) {
    const e = r['error'] as Record<string, unknown> | null;
    if (!e || !Number.isInteger(e['code']) || typeof e['message'] !== 'string') out.push(`error is ${JSON.stringify(e)}`);
  }
  return out;
}

async function runMcp(world: FuzzWorld, c: McpCase, statuses: number[]): Promise<string[]> {
  const problems: string[] = [];
  const headers = new Headers();
  if (c.token === 'pat') headers.set('Authorization', `Bearer ${world.pat}`);
  if (c.token === 'unknown') headers.set('Authorization', 'Bearer svc_pat_unknownunknownunknownunknown00');
  if (c.token === 'malformed') headers.set('Authorization', 'Bearer');
  if (c.accept) headers.set('Accept', c.accept);
  if (c.contentType) headers.set('Content-Type', c.contentType);
  const bytes = bodyBytes(c.body) ?? Buffer.alloc(0);
  const request = bytes.toString('utf8');
  const before = await rowCounts(world);
  const sent = await send(`${world.gw.url}${MCP_PATH}`, 'POST', headers, bytes);
  const after = await rowCounts(world);
  statuses.push(sent.status);
  if (sent.status >= 500) problems.push(`status ${sent.status}: ${sent.text.slice(0, 300)}`);
  const responses = sent.body === undefined ? [] : Array.isArray(sent.body) ? sent.body : [sent.body];
  if (sent.status !== 202 && sent.body === undefined) problems.push(`status ${sent.status} without a body`);
  if (sent.body !== undefined && typeof sent.body !== 'string') {
    if (Array.isArray(sent.body) && sent.body.length === 0) problems.push('an empty batch answer');
    const shape = responses.flatMap((r) => jsonRpcResponseProblems(r));
    if (shape.length > 0) problems.push(`status ${sent.status}: not a JSON-RPC answer (${shape.join('; ')}): ${sent.text.slice(0, 200)}`);
  } else if (typeof sent.body === 'string') {
    problems.push(`status ${sent.status}: not JSON: ${sent.text.slice(0, 200)}`);
  }
  let wrote = false;
  const foreignCalls = foreignToolCallIds(world, c);
  for (const r of responses as Record<string, any>[]) {
    const result = r?.['result'];
    const success = result !== undefined && result?.isError !== true;
    if (success) wrote = true;
    if (success && foreignCalls.has(r['id']))
      problems.push(`cross-project: a tool call with another project's id succeeded: ${JSON.stringify(result).slice(0, 200)}`);
  }
  if (sent.status < 300) {
    const leaks = foreignLeaks(world, sent, request);
    if (leaks.length > 0) problems.push(`cross-project: the answer holds ids of another project: ${leaks.join(', ')}`);
  }
  if (!wrote) {
    const changed = countChanges(before, after);
    if (changed.length > 0) problems.push(`refused (${sent.status}, no successful result) but wrote rows: ${changed.join('; ')}`);
  }
  if (
    wrote &&
    c.body.mode === 'json' &&
    JSON.stringify(c.body.value).includes('sandbox_delete') &&
    JSON.stringify(c.body.value).includes(world.disposable.projectId)
  ) {
    world.disposable = await provisionSandbox(world.gw, world.a.operatorId);
  }
  return problems;
}

/** JSON-RPC ids of the case's tool calls whose arguments name a resource of B. */
function foreignToolCallIds(world: FuzzWorld, c: McpCase): Set<unknown> {
  const out = new Set<unknown>();
  if (c.body.mode !== 'json') return out;
  for (const m of Array.isArray(c.body.value) ? c.body.value : [c.body.value]) {
    const message = m as { method?: unknown; id?: unknown; params?: { arguments?: unknown } } | null;
    if (message?.method !== 'tools/call') continue;
    const args = JSON.stringify(message.params?.arguments ?? null);
    if ([...world.foreignIds].some((id) => args.includes(id))) out.add(message.id);
  }
  return out;
}

/** A one-line description of a case for reports (long strings shortened). */
export function describeCase(c: FuzzCase): string {
  return JSON.stringify(c, (_key, value) => (typeof value === 'string' && value.length > 120 ? `${value.slice(0, 60)}…(${value.length} chars)` : value));
}
