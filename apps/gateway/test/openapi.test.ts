import test from 'ava';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import Type from 'typebox';
import { buildOpenApiDocument, CLI_ACTOR, defineErrors, definePlugin, defineRoute, type OpenApiDocument, type RouteDefinition, withDeps } from '@gw/kernel';
import { expectResponseMatchesRoute, responseMismatches, signedFetch, startTestKernel, type TestKernel } from '@gw/kernel/testing';
// Kernel tests reach the real plugins by path: the kernel package does not depend on them.
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { walletsPlugin } from '@gw/plugin-wallets';
import { btcChain } from '@gw/chain-btc';
import { chains as compositionChains, plugins as compositionPlugins } from '../src/composition.js';

/** BIP84 test vector account key (mnemonic "abandon ... about"), as in the wallets tests. */
const BTC_ZPUB = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs';

const probeErrors = defineErrors('openapi-probe', {
  probe_gone: { status: 410, message: 'The probe is gone.' },
});

interface TreeNode {
  id: string;
  children: TreeNode[];
}

/** Routes that exercise every part of the conversion: bodies, queries, path params, guards, odd schemas. */
const openApiProbe = definePlugin({
  id: 'openapi-probe',
  dependsOn: ['tenancy'],
  errors: [probeErrors],
  routes: withDeps([], () => [
    defineRoute({
      method: 'POST',
      path: '/api/v1/probe-docs/things',
      summary: 'A production write with a body.',
      tags: ['probe'],
      auth: 'signed',
      access: { projectKind: 'production', write: true },
      body: Type.Object(
        {
          coin: Type.Union([Type.Literal('btc'), Type.Literal('eth')]),
          amount: Type.String({ pattern: '^[0-9]+$' }),
          note: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
      responses: { 201: Type.Object({ id: Type.String(), pair: Type.Tuple([Type.String(), Type.Integer()]) }) },
      errors: ['probe_gone', 'invalid_coin'],
      handler: async () => ({ status: 201, body: { id: 'x', pair: ['a', 1] } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/probe-docs/things',
      summary: 'A read with query constraints.',
      tags: ['probe'],
      auth: 'signed',
      query: Type.Object(
        {
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Page size.' })),
          status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('paid')])),
          cursor: Type.String({ pattern: '^[0-9A-Z]{26}$' }),
        },
        { additionalProperties: false },
      ),
      responses: { 200: Type.Object({ items: Type.Array(Type.String()), next: Type.Union([Type.String(), Type.Null()]) }) },
      handler: async () => ({ body: { items: [], next: null } }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/v1/sandbox/:projectId/probe-docs/:thingId',
      summary: 'A project-scoped sandbox delete.',
      auth: 'signed',
      access: { projectKind: 'sandbox', projectParam: 'projectId' },
      params: Type.Object({ projectId: Type.String({ description: 'The signing project.' }), thingId: Type.String({ minLength: 3 }) }),
      responses: { 204: Type.Null() },
      handler: async () => ({ status: 204 }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/probe-docs/tree',
      summary: 'A recursive response.',
      auth: 'none',
      operationId: 'probeTree',
      responses: {
        200: Type.Cyclic({ ProbeNode: Type.Object({ id: Type.String(), children: Type.Array(Type.Ref('ProbeNode')) }) }, 'ProbeNode'),
      },
      handler: async () => ({ body: { id: 'root', children: [{ id: 'leaf', children: [] }] } satisfies TreeNode }),
    }),
  ]),
});

let gw: TestKernel;
let document: OpenApiDocument;
let production: { projectId: string; secret: string };

test.before(async () => {
  gw = await startTestKernel({
    plugins: [tenancyPlugin, walletsPlugin, openApiProbe],
    chains: [btcChain],
    role: 'gateway',
    config: { 'http.baseUrl': 'https://pay.example.test' },
  });
  const res = await fetch(`${gw.url}/api/v1/openapi.json`);
  if (res.status !== 200) throw new Error(`openapi.json answered ${res.status}: ${await res.text()}`);
  document = (await res.json()) as OpenApiDocument;
  const operator = await gw.kernel.cradle.tenancyOperators.create('openapi', CLI_ACTOR);
  const created = await gw.kernel.cradle.tenancyProjects.create({ name: 'openapi-prod', kind: 'production', operator: operator.id }, CLI_ACTOR);
  production = { projectId: created.project.id, secret: created.credentials.api_secret };
});
test.after.always(async () => {
  await gw?.close();
});

/** Validates with a real OpenAPI 3.1 validator, then every schema against the JSON Schema 2020-12 meta-schema. */
async function assertValidOpenApi(doc: unknown): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
  if (!result.valid) throw new Error(`not valid OpenAPI ${JSON.stringify(result.errors, null, 2)}`);
  if (validator.version !== '3.1') throw new Error(`validated as OpenAPI ${validator.version}`);
  // The OpenAPI schema only checks that a Schema Object is an object; check each one is 2020-12.
  const ajv = new Ajv2020({ strict: false });
  for (const [where, schema] of schemasOf(doc)) {
    if (!ajv.validateSchema(schema as object)) throw new Error(`${where} is not JSON Schema 2020-12: ${ajv.errorsText(ajv.errors)}`);
  }
  const text = JSON.stringify(doc);
  for (const leftover of ['"~kind"', '"~optional"', '"bigint"', '"additionalItems"']) {
    if (text.includes(leftover)) throw new Error(`the document contains ${leftover}`);
  }
}

function* schemasOf(node: unknown, where = '#'): Generator<[string, unknown]> {
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'schema') yield [`${where}/schema`, value];
    else if (key === 'schemas' && where === '#/components') for (const [n, s] of Object.entries(value as object)) yield [`${where}/schemas/${n}`, s];
    else yield* schemasOf(value, `${where}/${key}`);
  }
}

function documentedOperations(doc: OpenApiDocument): Set<string> {
  return new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
}

function mountedOperations(routes: readonly RouteDefinition[]): Set<string> {
  return new Set(routes.filter((r) => !r.hidden).map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`));
}

function operation(path: string, method: string): Record<string, any> {
  const op = document.paths[path]?.[method];
  if (!op) throw new Error(`no operation ${method} ${path}`);
  return op as Record<string, any>;
}

test('GET /api/v1/openapi.json is a valid OpenAPI 3.1 document of the mounted routes', async (t) => {
  await assertValidOpenApi(document);
  t.is(document.openapi, '3.1.0');
  t.is(document.info.version, '0.1.0');
  t.deepEqual(document['servers'], [{ url: 'https://pay.example.test' }]);
  const documented = documentedOperations(document);
  t.deepEqual(documented, mountedOperations(gw.kernel.routes));
  t.true(
    documented.has('get /api/v1/wallets') &&
      documented.has('get /api/v1/project') &&
      documented.has('get /healthz') &&
      documented.has('get /api/v1/openapi.json'),
  );
  t.false(
    [...documented].some((d) => d.includes('/assets/')),
    'reference page assets are hidden',
  );
  t.deepEqual(
    (document['tags'] as { name: string }[]).map((tag) => tag.name),
    ['system', 'projects', 'wallets', 'probe'],
  );
  t.is(operation('/api/v1/wallets', 'get')['operationId'], 'getWallets');
  t.is(operation('/api/v1/probe-docs/tree', 'get')['operationId'], 'probeTree');
  t.is(operation('/api/v1/sandbox/{projectId}/probe-docs/{thingId}', 'delete')['operationId'], 'deleteSandboxByProjectIdProbeDocsByThingId');
});

test('signed routes carry the signed-request security requirement; public routes none', (t) => {
  const schemes = document.components['securitySchemes'] as Record<string, any>;
  t.deepEqual(
    Object.values(schemes).map((s) => [s.type, s.in, s.name]),
    [
      ['apiKey', 'header', 'X-Project-Id'],
      ['apiKey', 'header', 'X-Timestamp'],
      ['apiKey', 'header', 'X-Signature'],
    ],
  );
  t.regex(schemes['signedSignature'].description, /HMAC-SHA256/);
  // Both signing forms of spec 5.1 (issue 33 item 1): the page says what the gateway verifies.
  t.regex(schemes['signedSignature'].description, /or the pathname alone; this gateway accepts both/);
  t.regex(String(document.info['description']), /`\?` and the raw query string/);
  t.regex(String(document.info['description']), /Idempotent-Replayed: true/);
  const signedRoute = defineRoute({
    method: 'GET',
    path: '/api/v1/signed-probe',
    summary: 'A signed read.',
    auth: 'signed',
    handler: async () => ({ body: {} }),
  });
  const strict = buildOpenApiDocument({ routes: [signedRoute], errorCatalogues: [], version: '1', signedQuery: 'required' });
  t.regex((strict.components['securitySchemes'] as Record<string, any>)['signedSignature'].description, /this gateway requires that form/);
  t.regex(schemes['signedTimestamp'].description, /300 seconds/);
  t.deepEqual(operation('/api/v1/wallets', 'get')['security'], [{ signedProjectId: [], signedTimestamp: [], signedSignature: [] }]);
  t.deepEqual(operation('/api/v1/project', 'get')['security'], [{ signedProjectId: [], signedTimestamp: [], signedSignature: [] }]);
  t.deepEqual(operation('/healthz', 'get')['security'], []);
  t.deepEqual(operation('/api/v1/openapi.json', 'get')['security'], []);
});

test('path and query parameters come from the params and query schemas', (t) => {
  const del = operation('/api/v1/sandbox/{projectId}/probe-docs/{thingId}', 'delete');
  t.deepEqual(del['parameters'], [
    { name: 'projectId', in: 'path', required: true, description: 'The signing project.', schema: { type: 'string', description: 'The signing project.' } },
    { name: 'thingId', in: 'path', required: true, schema: { type: 'string', minLength: 3 } },
  ]);
  t.false('content' in del['responses']['204']);
  const list = operation('/api/v1/probe-docs/things', 'get');
  t.deepEqual(list['parameters'], [
    {
      name: 'limit',
      in: 'query',
      required: false,
      description: 'Page size.',
      schema: { type: 'integer', minimum: 1, maximum: 200, default: 50, description: 'Page size.' },
    },
    {
      name: 'status',
      in: 'query',
      required: false,
      schema: {
        anyOf: [
          { type: 'string', const: 'pending' },
          { type: 'string', const: 'paid' },
        ],
      },
    },
    { name: 'cursor', in: 'query', required: true, schema: { type: 'string', pattern: '^[0-9A-Z]{26}$' } },
  ]);
});

test('request bodies, declared responses and odd schemas become JSON Schema 2020-12', (t) => {
  const create = operation('/api/v1/probe-docs/things', 'post');
  t.true(create['requestBody'].required);
  const body = create['requestBody'].content['application/json'].schema;
  t.deepEqual(body.required, ['coin', 'amount']);
  t.is(body.additionalProperties, false);
  t.is(body.properties.amount.pattern, '^[0-9]+$');
  // A TypeBox tuple (draft-07 `items: [...]`) is rewritten as prefixItems.
  t.deepEqual(create['responses']['201'].content['application/json'].schema.properties.pair, {
    type: 'array',
    prefixItems: [{ type: 'string' }, { type: 'integer' }],
    items: false,
    minItems: 2,
  });
  // A cyclic type's $defs are hoisted into components and its bare $refs point there.
  const tree = operation('/api/v1/probe-docs/tree', 'get')['responses']['200'].content['application/json'].schema;
  t.deepEqual(tree, { $ref: '#/components/schemas/ProbeNode' });
  t.deepEqual((document.components['schemas'] as Record<string, any>)['ProbeNode'].properties.children.items, { $ref: '#/components/schemas/ProbeNode' });
  t.is(Object.keys(operation('/metrics', 'get')['responses']['200'].content)[0], 'text/plain');
  t.is(Object.keys(operation('/api/v1/docs', 'get')['responses']['200'].content)[0], 'text/html');
});

/** The error codes an operation documents, by status. */
function errorCodes(op: Record<string, any>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [status, response] of Object.entries(op['responses'] as Record<string, any>)) {
    const schema = response.content?.['application/json']?.schema;
    const error = schema?.allOf ?? schema?.anyOf?.[1]?.allOf;
    if (error) {
      assertErrorRef(error[0]);
      out[status] = error[1].properties.error_code.enum;
    }
  }
  return out;
}
function assertErrorRef(ref: unknown): void {
  if (JSON.stringify(ref) !== JSON.stringify({ $ref: '#/components/schemas/Error' })) throw new Error(`expected the Error schema, got ${JSON.stringify(ref)}`);
}

test('every operation lists its error responses with statuses from the error catalogues', (t) => {
  t.deepEqual(errorCodes(operation('/api/v1/wallets', 'get')), {
    '401': ['auth_invalid', 'signature_invalid', 'timestamp_out_of_window'],
    '403': ['key_revoked', 'key_suspended', 'project_suspended', 'permission_denied', 'production_project_required'],
    '429': ['rate_limit_exceeded'],
    '503': ['service_unavailable'],
  });
  t.deepEqual(errorCodes(operation('/api/v1/probe-docs/things', 'post')), {
    '400': ['validation_error', 'invalid_coin'],
    '401': ['auth_invalid', 'signature_invalid', 'timestamp_out_of_window'],
    '402': ['subscription_expired'],
    '403': ['key_revoked', 'key_suspended', 'project_suspended', 'permission_denied', 'production_project_required'],
    '410': ['probe_gone'],
    '413': ['payload_too_large'],
    '415': ['unsupported_media_type'],
    '429': ['rate_limit_exceeded'],
    '503': ['service_unavailable'],
  });
  const scoped = errorCodes(operation('/api/v1/sandbox/{projectId}/probe-docs/{thingId}', 'delete'));
  t.deepEqual(scoped['400'], ['sandbox_key_against_production_project', 'production_key_against_sandbox_project', 'validation_error']);
  t.true(scoped['403']!.includes('sandbox_project_required'));
  t.deepEqual(errorCodes(operation('/healthz', 'get')), {});
  // /readyz documents its own 503 body, or the draining error.
  t.deepEqual(errorCodes(operation('/readyz', 'get')), { '503': ['service_unavailable'] });
  const wallets = operation('/api/v1/wallets', 'get')['responses'];
  t.regex(wallets['401'].description, /`signature_invalid`: The request signature does not match\./);
  t.deepEqual(wallets['429'].headers['Retry-After'], { $ref: '#/components/headers/RetryAfter' });
  t.deepEqual((document.components['schemas'] as Record<string, any>)['Error'].required, ['error_code', 'message', 'request_id']);
});

test("real responses match their routes' declared schemas, and a wrong body does not", async (t) => {
  await gw.kernel.cradle.walletsWallets.register({ projectId: production.projectId, chain: 'btc', xpub: BTC_ZPUB }, CLI_ACTOR);
  const project = await signedFetch(gw.url, '/api/v1/project', production);
  t.is(project.status, 200);
  t.notThrows(() => expectResponseMatchesRoute(gw.kernel, 'GET', '/api/v1/project', project.status, project.body));
  const wallets = await signedFetch(gw.url, '/api/v1/wallets', production);
  t.is(wallets.status, 200);
  t.is(wallets.body.length, 1);
  t.deepEqual(responseMismatches(gw.kernel, 'GET', '/api/v1/wallets', wallets.status, wallets.body), []);

  const wrong = { ...project.body, created_at: String(project.body.created_at) };
  delete wrong.name;
  const problems = responseMismatches(gw.kernel, 'GET', '/api/v1/project', 200, wrong);
  t.true(
    problems.some((p) => /name/.test(p)),
    problems.join('\n'),
  );
  t.true(
    problems.some((p) => /created_at/.test(p)),
    problems.join('\n'),
  );
  t.throws(() => expectResponseMatchesRoute(gw.kernel, 'GET', '/api/v1/wallets', 200, [{ ...wallets.body[0], verification_standard: 'bip32' }]), {
    message: /verification_standard/,
  });

  // Errors: the envelope with a code the route documents for that status.
  const unsigned = await fetch(`${gw.url}/api/v1/wallets`);
  const unsignedBody = (await unsigned.json()) as Record<string, unknown>;
  t.is(unsigned.status, 401);
  t.notThrows(() => expectResponseMatchesRoute(gw.kernel, 'GET', '/api/v1/wallets', unsigned.status, unsignedBody));
  t.regex(
    responseMismatches(gw.kernel, 'GET', '/api/v1/wallets', 401, { ...unsignedBody, error_code: 'invoice_not_found' }).join('\n'),
    /not one of auth_invalid/,
  );
  t.regex(responseMismatches(gw.kernel, 'GET', '/api/v1/wallets', 418, {}).join('\n'), /status 418 is not documented/);
  t.regex(responseMismatches(gw.kernel, 'GET', '/api/v1/nowhere', 200, {}).join('\n'), /no route/);

  // Concrete paths find their template.
  const scoped = `/api/v1/sandbox/${production.projectId}/probe-docs/abc`;
  const refused = await signedFetch(gw.url, scoped, { ...production, method: 'DELETE' });
  t.is(refused.status, 403);
  t.is(refused.body.error_code, 'sandbox_project_required');
  t.deepEqual(responseMismatches(gw.kernel, 'DELETE', scoped, refused.status, refused.body), []);
  const health = await fetch(`${gw.url}/healthz`);
  t.deepEqual(responseMismatches(gw.kernel.routes, 'GET', '/healthz', health.status, await health.json()), []);
  const metrics = await fetch(`${gw.url}/metrics`);
  t.deepEqual(responseMismatches(gw.kernel, 'GET', '/metrics', metrics.status, await metrics.text()), []);
});

test('the reference page is HTML that loads the document and only assets the gateway serves', async (t) => {
  const page = await fetch(`${gw.url}/api/v1/docs`);
  t.is(page.status, 200);
  t.regex(page.headers.get('content-type') ?? '', /^text\/html/);
  const html = await page.text();
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  t.true(assets.includes('/api/v1/openapi.json'));
  t.false(
    assets.some((url) => /^(https?:)?\/\//.test(url)),
    'nothing is loaded from another host',
  );
  const loaded = assets.filter((url) => url.startsWith('/api/v1/docs/assets/'));
  t.deepEqual(loaded.map((url) => url.split('/').pop()).sort(), ['favicon-32x32.png', 'reference.js', 'swagger-ui-bundle.js', 'swagger-ui.css']);
  const types: Record<string, RegExp> = { png: /^image\/png/, js: /^text\/javascript/, css: /^text\/css/ };
  for (const url of loaded) {
    const res = await fetch(`${gw.url}${url}`);
    t.is(res.status, 200, url);
    t.regex(res.headers.get('content-type') ?? '', types[url.split('.').pop()!]!, url);
    const body = await res.text();
    t.true(body.length > 0, url);
    if (url.endsWith('reference.js')) t.regex(body, /"\/api\/v1\/openapi\.json"/);
    if (url.endsWith('swagger-ui-bundle.js')) t.true(body.length > 500_000);
  }
  const missing = await fetch(`${gw.url}/api/v1/docs/assets/package.json`);
  t.is(missing.status, 404);
  t.is(((await missing.json()) as { error_code: string }).error_code, 'not_found');
  t.is((await fetch(`${gw.url}/api/v1/docs/assets/..%2Fpackage.json`)).status, 404);
});

test('the document of the whole composition is valid', async (t) => {
  const full = await startTestKernel({ plugins: compositionPlugins, chains: compositionChains, role: 'gateway' });
  t.teardown(() => full.close());
  const res = await fetch(`${full.url}/api/v1/openapi.json`);
  t.is(res.status, 200);
  const doc = (await res.json()) as OpenApiDocument;
  await t.notThrowsAsync(assertValidOpenApi(doc));
  t.false('servers' in doc);
  t.deepEqual(documentedOperations(doc), mountedOperations(full.kernel.routes));
});

const route = (overrides: Partial<RouteDefinition>): RouteDefinition => ({
  method: 'GET',
  path: '/api/v1/x',
  summary: 'x',
  auth: 'none',
  handler: async () => ({}),
  ...overrides,
});

test('schemas JSON cannot carry, unknown error codes and clashing operationIds are refused', (t) => {
  const build = (routes: RouteDefinition[]) => buildOpenApiDocument({ routes, errorCatalogues: [], version: '1' });
  t.throws(() => build([route({ responses: { 200: Type.Object({ amount: Type.BigInt() }) } })]), {
    message: /GET \/api\/v1\/x response 200\/properties\/amount\/type: type "bigint"/,
  });
  t.throws(() => build([route({ query: Type.Object({ at: Type.Undefined() }) })]), { message: /type "undefined"/ });
  t.throws(() => build([route({ errors: ['no_such_code'] })]), { message: /"no_such_code", which no error catalogue declares/ });
  t.throws(() => build([route({}), route({ path: '/api/v1/y', operationId: 'getX' })]), { message: /same operationId "getX"/ });
  t.throws(
    () =>
      buildOpenApiDocument({
        routes: [],
        errorCatalogues: [defineErrors('a', { validation_error: { status: 422, message: 'x' } })],
        version: '1',
      }),
    { message: /"validation_error" is declared with statuses 400 and 422/ },
  );
});

test('a document with unusual schemas still validates', async (t) => {
  const doc = buildOpenApiDocument({
    routes: [
      route({
        method: 'PUT',
        path: '/api/v1/things/:id',
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        query: Type.Union([Type.Object({ a: Type.String() }), Type.Object({ b: Type.String() })]),
        body: Type.Object({
          map: Type.Record(Type.String(), Type.Number()),
          both: Type.Intersect([Type.Object({ x: Type.String() }), Type.Object({ y: Type.String() })]),
        }),
        responses: { 200: Type.Union([Type.Literal(5), Type.Null(), Type.Enum(['a', 'b'])]) },
        auth: 'pat',
      }),
    ],
    errorCatalogues: [],
    version: '1',
  });
  await t.notThrowsAsync(assertValidOpenApi(doc));
  const op = doc.paths['/api/v1/things/{id}']?.['put'] as Record<string, any>;
  t.deepEqual(op['security'], [{ pat: [] }]);
  t.deepEqual((doc.components['securitySchemes'] as Record<string, unknown>)['pat'], {
    type: 'http',
    scheme: 'bearer',
    description: 'Authenticator `pat`: a bearer token in `Authorization`.',
  });
  t.true(op['requestBody'].required);
  t.deepEqual(op['parameters'][0], { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } });
  t.like(op['parameters'][1], { name: 'query', in: 'query', style: 'form', explode: true });
  t.false('2XX' in op['responses']);
  t.deepEqual(op['responses']['401'].content['application/json'].schema.allOf[1].properties.error_code.enum, ['auth_invalid']);
});

test('every operation says whether a client may retry it with a new signature: reads and idempotent writes only', (t) => {
  const doc = buildOpenApiDocument({
    routes: [
      route({ method: 'GET', path: '/api/v1/x' }),
      route({ method: 'POST', path: '/api/v1/x', idempotent: true }),
      route({ method: 'POST', path: '/api/v1/x/:id/cancel' }),
      route({ method: 'DELETE', path: '/api/v1/x/:id' }),
    ],
    errorCatalogues: [],
    version: '1',
  });
  const retrySafe = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => [`${method} ${path}`, (op as Record<string, unknown>)['x-retry-safe']]),
  );
  t.deepEqual(retrySafe, [
    ['get /api/v1/x', true],
    ['post /api/v1/x', true],
    ['post /api/v1/x/{id}/cancel', false],
    ['delete /api/v1/x/{id}', false],
  ]);
  t.true(operation('/api/v1/probe-docs/things', 'get')['x-retry-safe']);
  t.false(operation('/api/v1/probe-docs/things', 'post')['x-retry-safe']);
});
