import type { ChainRegistry } from '@gw/kernel';
import type { Logger } from 'pino';
import type { InvoiceService, InvoiceView } from '@gw/plugin-invoices/contract';
import type { Knex } from 'knex';
import type { X402Config } from '../config.js';
import type { PaymentRequired, PaymentRequirements, ResourceInfo, SettleResponse, VerifyResponse } from '../protocol/messages.js';
import type { GasWallets } from './gas-wallets.js';
import type { PaymentTarget } from './payment-target.js';
import type { X402Networks } from './x402-networks.js';
import type { X402Settlements } from './x402-settlements.js';

/**
 * x402's `exact` scheme on EVM, for the invoices of this gateway (issue 41): what to ask for, and
 * the verification and settlement of a payer's signed EIP-3009 authorization. Settlement submits
 * `transferWithAuthorization` (the gas wallet, or the external facilitator); the invoice turns paid
 * only when the watchers see the transfer, never on a settlement's word.
 */
export class X402Payments {
  constructor(
    private readonly deps: {
      db: Knex;
      chains: ChainRegistry;
      logger: Logger;
      invoicesService: InvoiceService;
      x402Config: X402Config;
      x402Networks: X402Networks;
      x402GasWallets: GasWallets;
      x402Settlements: X402Settlements;
    },
  ) {}

  /**
   * What the invoice asks an x402 client for: one requirement (its coin on its network, `payTo` its
   * address, the amount still due, `maxTimeoutSeconds` the configured window), or undefined when
   * it cannot be paid this way (settlement off, a coin without EIP-3009 here, nothing due, an
   * invoice no longer accepting payments).
   */
  async requirementsFor(invoice: InvoiceView, resource: ResourceInfo): Promise<PaymentRequired | undefined> {
    void invoice;
    void resource;
    void this.deps;
    throw new Error('X402Payments.requirementsFor: not built yet');
  }

  /**
   * The offered requirement the payload's `accepted` is (every field the gateway set, `extra`'s
   * `name` and `version` included); undefined when it is none of them.
   */
  match(payload: unknown, offered: readonly PaymentRequirements[]): PaymentRequirements | undefined {
    void payload;
    void offered;
    throw new Error('X402Payments.match: not built yet');
  }

  /**
   * Verifies `payload` against `requirements` for the invoice of `target`: shape and version,
   * scheme, network and asset, `payTo` the invoice's address, the amount, the validity window, the
   * signature, a nonce never used (on chain and in this gateway's settlements), the payer's balance,
   * a simulation of the submission, and (gas wallet) that the caps leave room. Never throws for a
   * bad payment: `{ isValid: false, invalidReason }` with the protocol's reason.
   */
  async verify(payload: unknown, requirements: PaymentRequirements, target: PaymentTarget): Promise<VerifyResponse> {
    void payload;
    void requirements;
    void target;
    throw new Error('X402Payments.verify: not built yet');
  }

  /**
   * Verifies (as `verify`), then settles through `X402Settlements.settle`. Never throws for a bad
   * payment: `{ success: false, errorReason, transaction: '' }`.
   */
  async settle(payload: unknown, requirements: PaymentRequirements, target: PaymentTarget): Promise<SettleResponse> {
    void payload;
    void requirements;
    void target;
    throw new Error('X402Payments.settle: not built yet');
  }
}
