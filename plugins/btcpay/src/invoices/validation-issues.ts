import type { AppError } from '@gw/kernel';
import { btcpayErrors } from '../errors.js';

/** One entry of BTCPay's 422 answer: the JSON path of the field and what is wrong with it. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/** 422 `btcpay_validation_failed` carrying `issues`, which the Greenfield error format answers as BTCPay's `[{ path, message }]` list. */
export function validationFailed(issues: readonly ValidationIssue[]): AppError {
  return btcpayErrors.btcpay_validation_failed({ message: issues[0]?.message ?? 'The request is invalid.', details: { errors: issues } });
}
