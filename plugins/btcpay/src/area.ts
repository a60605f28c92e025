import {
  withDeps,
  type Authenticator,
  type CliCommand,
  type Contribution,
  type Declared,
  type ErrorFormat,
  type JobDefinition,
  type Migration,
  type RouteDefinition,
  type UserAccessEnder,
} from '@gw/kernel';
import type { BtcpayConfig } from './config.js';

/**
 * One area of the Greenfield-compatible API (credentials, authorization, invoices, webhooks,
 * refunds): what it adds to the plugin. `index.ts` joins the areas into the one plugin definition,
 * so each area's wiring lives beside its code.
 */
export interface BtcpayArea {
  /** Services it registers (names start with `btcpay`). */
  readonly services?: (config: BtcpayConfig) => Record<string, unknown>;
  readonly routes?: Declared<readonly RouteDefinition[]>;
  readonly errorFormats?: Declared<readonly ErrorFormat[]>;
  readonly authenticators?: Declared<Record<string, Authenticator>>;
  readonly contributes?: readonly Contribution<any>[];
  readonly jobs?: Declared<readonly JobDefinition[]>;
  /** What ends with a user's access (the keys they approved). */
  readonly userAccessEnders?: Declared<readonly UserAccessEnder[]>;
  readonly cli?: readonly CliCommand[];
  /** Its migrations, named `000N_btcpay_<what>` after 0001 (the plugin's first). */
  readonly migrations?: readonly Migration[];
}

/** The parts of `areas` of one kind as one declared part: the union of their services, their items in order. */
export function joinParts<T>(parts: readonly (Declared<readonly T[]> | undefined)[]): Declared<readonly T[]> {
  const given = parts.filter((part): part is Declared<readonly T[]> => part !== undefined);
  return withDeps([...new Set(given.flatMap((part) => part.deps))], (deps) => given.flatMap((part) => part.create(deps as never)));
}

/** The authenticators of `areas` as one declared part. */
export function joinRecords<T>(parts: readonly (Declared<Record<string, T>> | undefined)[]): Declared<Record<string, T>> {
  const given = parts.filter((part): part is Declared<Record<string, T>> => part !== undefined);
  return withDeps([...new Set(given.flatMap((part) => part.deps))], (deps) => Object.assign({}, ...given.map((part) => part.create(deps as never))));
}
