import { isStorePolicy, type BtcpayPolicy } from '../credentials/permissions.js';
import { btcpayErrors } from '../errors.js';
import type { AuthorizeRequest } from './authorize-request.js';
import { PERMISSION_DESCRIPTIONS } from './permission-descriptions.js';

/** The requested permissions this gateway may grant, and those it never grants (server administration). */
export interface RequestedSplit {
  readonly grantable: readonly BtcpayPolicy[];
  readonly refused: readonly BtcpayPolicy[];
}

/** Splits the request's permissions into those that may be granted and those refused. */
export function splitRequested(request: AuthorizeRequest): RequestedSplit {
  return {
    grantable: request.permissions.filter((p) => PERMISSION_DESCRIPTIONS[p].use !== 'refused'),
    refused: request.permissions.filter((p) => PERMISSION_DESCRIPTIONS[p].use === 'refused'),
  };
}

/**
 * Whether the request can be approved at all: a strict request for a permission this gateway never
 * grants cannot (the application insists on all of them), as BTCPay refuses a strict request for a
 * server permission to a user who is not a server administrator. The reason, or undefined.
 */
export function whyNotGrantable(request: AuthorizeRequest): string | undefined {
  const { grantable, refused } = splitRequested(request);
  if (request.strict && refused.length > 0)
    return `The application insists on ${refused.map((p) => `“${PERMISSION_DESCRIPTIONS[p].title}” (${p})`).join(', ')}, which this gateway gives to no API key: it cannot be approved here.`;
  if (request.permissions.length === 0) return 'The application asks for no permission: a key without one can do nothing here.';
  if (grantable.length === 0) return 'Every permission the application asks for is one this gateway gives to no API key.';
  return undefined;
}

/** What the person chose on the approval page. */
export interface ApprovalChoice {
  /** The permissions they kept (with `strict`, every grantable one). */
  readonly policies: readonly BtcpayPolicy[];
  /** The projects the store permissions bind to: the one picked (`selectiveStores`), else every project of the operator. */
  readonly storeIds: readonly string[];
}

/**
 * The permission strings of the key to create: each store permission bound to each chosen project
 * (`policy:<projectId>`, as BTCPay writes a store-bound permission), the others as they are.
 * @throws AppError 400 `btcpay_authorize_choice_invalid` when nothing is chosen, or store
 *   permissions are chosen without a project to bind them to.
 */
export function grantedPermissions(choice: ApprovalChoice): string[] {
  if (choice.policies.length === 0) throw btcpayErrors.btcpay_authorize_choice_invalid({ message: 'Keep at least one permission to approve the request.' });
  const store = choice.policies.filter(isStorePolicy);
  if (store.length > 0 && choice.storeIds.length === 0)
    throw btcpayErrors.btcpay_authorize_choice_invalid({ message: 'The store permissions need a project to apply to: create a project first, or pick one.' });
  return choice.policies.flatMap((policy) => (isStorePolicy(policy) ? choice.storeIds.map((storeId) => `${policy}:${storeId}`) : [policy]));
}
