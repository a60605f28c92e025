import type { TransferAuthorization } from '@gw/kernel';
import type { Knex } from 'knex';
import type { X402Config } from '../config.js';
import type { FacilitatorRequest, SettleResponse } from '../protocol/messages.js';
import type { ExternalFacilitator } from './external-facilitator.js';
import type { GasWallets } from './gas-wallets.js';
import type { PaymentTarget } from './payment-target.js';
import type { X402Asset } from './x402-networks.js';

/** A verified payment, ready to settle: what `X402Payments.verify` established. */
export interface VerifiedPayment {
  readonly asset: X402Asset;
  readonly target: PaymentTarget;
  readonly payer: string;
  readonly payTo: string;
  readonly authorization: TransferAuthorization;
  readonly signature: string;
  /** The simulation's gas (the gas wallet's limit is built from it). */
  readonly gasUnits: bigint;
  /** The request as an external facilitator is to be asked (payload and requirements as received). */
  readonly request: FacilitatorRequest;
}

/** A settlement as the operator's CLI and dashboard list it. */
export interface SettlementView {
  readonly id: string;
  readonly project_id: string;
  readonly invoice_id: string;
  readonly source: string;
  readonly chain: string;
  readonly network: string;
  readonly coin: string;
  readonly payer: string;
  readonly pay_to: string;
  readonly amount_units: string;
  readonly mode: string;
  readonly status: string;
  readonly tx_hash: string | null;
  readonly gas_address: string | null;
  readonly spend_units: string | null;
  readonly error_reason: string | null;
  readonly created_at_iso: string;
  readonly settled_at_iso: string | null;
}

/**
 * Settlement of verified payments (issue 41): one row per authorization in `x402_settlements`,
 * inserted first so that of two instances settling one authorization at once exactly one sends a
 * transaction (the other gets `invalid_exact_evm_nonce_already_used`); then the submission by the
 * gas wallet (`GasWallets.submit`, under its caps, nothing sent on a refusal) or the external
 * facilitator; then the wait for the receipt, up to `receiptWaitSeconds`.
 */
export class X402Settlements {
  constructor(private readonly deps: { db: Knex; x402Config: X402Config; x402GasWallets: GasWallets; x402ExternalFacilitator: ExternalFacilitator }) {}

  async settle(payment: VerifiedPayment): Promise<SettleResponse> {
    void payment;
    void this.deps;
    throw new Error('X402Settlements.settle: not built yet');
  }

  /** Whether this gateway recorded a settlement of the authorization (verify's replay check). */
  async known(asset: X402Asset, payer: string, nonce: string): Promise<boolean> {
    void asset;
    void payer;
    void nonce;
    throw new Error('X402Settlements.known: not built yet');
  }

  /** The latest settlements, newest first (operator reads). */
  async list(filter: { readonly projectId?: string; readonly status?: string; readonly limit: number }): Promise<SettlementView[]> {
    void filter;
    throw new Error('X402Settlements.list: not built yet');
  }
}
