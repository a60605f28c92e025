/**
 * BTCPay Server's published Greenfield OpenAPI document (issue 39), read at test time from the
 * peers directory beside the project (`../shared/peers/btcpay/swagger`), never copied into it.
 * BTCPay publishes it as templates: `swagger.template.json` holds the shared parts and each other
 * `swagger.template.*.json` adds its `paths`, its `components` (schemas, parameters) and, for the
 * webhooks, `x-webhooks`; BTCPay's server merges them the same way to serve its document.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A JSON value of the document (schemas, operations): read by key, as the document gives it. */
export type JsonObject = Record<string, any>;

/** The merged document: what the tests look up operations and schemas in. */
export interface GreenfieldDocument {
  readonly openapi: string;
  /** Path template (`/api/v1/stores/{storeId}/invoices`) → method (lowercase) → operation. */
  readonly paths: Record<string, Record<string, JsonObject>>;
  readonly components: { readonly schemas: Record<string, JsonObject>; readonly parameters: Record<string, JsonObject> };
  /** Event type (`InvoiceSettled`) → the webhook's `post` operation, whose request body is the event. */
  readonly 'x-webhooks': Record<string, Record<string, JsonObject>>;
}

/** The environment variable that names the peers directory when it is not beside the project. */
export const PEERS_DIR_ENV = 'GW_BTCPAY_PEERS';

/**
 * The directory of BTCPay's published material (`swagger/`, `greenfield-php/`): `$GW_BTCPAY_PEERS`
 * when set, else `shared/peers/btcpay` in the nearest directory above the repository that has one
 * (the issue names `../shared/peers/btcpay`; a worktree sits deeper than the main checkout). Throws,
 * naming where it looked, when there is none: the tests of issue 39 need it.
 */
export function btcpayPeersDir(): string {
  const given = process.env[PEERS_DIR_ENV];
  if (given) {
    if (!existsSync(join(given, 'swagger', 'swagger.template.json'))) throw new Error(`${PEERS_DIR_ENV}=${given} has no swagger/swagger.template.json`);
    return given;
  }
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const looked: string[] = [];
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'peers', 'btcpay');
    looked.push(candidate);
    if (existsSync(join(candidate, 'swagger', 'swagger.template.json'))) return candidate;
    if (dirname(dir) === dir) break;
  }
  throw new Error(`BTCPay's published material (issue 39) was not found; looked in ${looked.join(', ')}; set ${PEERS_DIR_ENV}`);
}

/** Reads and merges BTCPay's templates from `<peersDir>/swagger` as BTCPay's server does. */
export function loadGreenfieldDocument(peersDir: string = btcpayPeersDir()): GreenfieldDocument {
  const dir = join(peersDir, 'swagger');
  const read = (file: string): JsonObject => JSON.parse(readFileSync(join(dir, file), 'utf8')) as JsonObject;
  const base = read('swagger.template.json');
  const document = {
    openapi: base['openapi'] as string,
    paths: { ...(base['paths'] ?? {}) } as Record<string, Record<string, JsonObject>>,
    components: { schemas: { ...(base['components']?.['schemas'] ?? {}) }, parameters: { ...(base['components']?.['parameters'] ?? {}) } },
    'x-webhooks': { ...(base['x-webhooks'] ?? {}) } as Record<string, Record<string, JsonObject>>,
  };
  const parts = readdirSync(dir)
    .filter((file) => file.startsWith('swagger.template.') && file.endsWith('.json') && file !== 'swagger.template.json')
    .sort();
  for (const file of parts) {
    const part = read(file);
    mergeInto(document.paths, part['paths'], file, 'path');
    mergeInto(document.components.schemas, part['components']?.['schemas'], file, 'schema');
    mergeInto(document.components.parameters, part['components']?.['parameters'], file, 'parameter');
    mergeInto(document['x-webhooks'], part['x-webhooks'], file, 'webhook');
  }
  return document;
}

/** Adds `from`'s entries to `into`; a name two templates both define would make the merge ambiguous. */
function mergeInto(into: Record<string, unknown>, from: Record<string, unknown> | undefined, file: string, what: string): void {
  for (const [name, value] of Object.entries(from ?? {})) {
    if (name in into) throw new Error(`${file}: the ${what} ${name} is defined by another template too`);
    into[name] = value;
  }
}
