import type { AuthorizationDomain, TransferAuthorization } from '@gw/kernel';
import type { Knex } from 'knex';
import type { X402Config } from '../config.js';
import type { X402Asset } from './x402-networks.js';

/** A gas wallet's standing on one network: the operator's status, the dashboard. */
export interface GasWalletView {
  readonly chain: string;
  readonly network: string;
  readonly address: string;
  readonly balance_units: string;
  readonly spent_24h_units: string;
  readonly max_per_settlement_units: string;
  readonly max_per_day_units: string;
}

/** A refusal of the gas wallet before anything is sent: a cap (`settlement`, `day`) or no wallet for the network. */
export interface GasWalletRefusal {
  readonly refused: 'settlement_cap' | 'day_cap' | 'no_wallet' | 'gas_balance';
  readonly message: string;
}

/**
 * The settlement gas wallets (`plugins.x402.gasWallets`): custody of gas money only. Each signs one
 * kind of transaction, the submission of a verified authorization into a pool address, under its
 * caps per settlement and per 24 hours (summed over `x402_settlements` of every instance). Nonces
 * are allocated under a PostgreSQL advisory lock per wallet, from the chain's pending count and
 * the settlements recorded, so several instances never reuse or skip one.
 */
export class GasWallets {
  constructor(private readonly deps: { db: Knex; x402Config: X402Config }) {}

  /** Reads every key file at start (a bad one stops the plugin; its content never in an error). */
  checkKeys(warn: (message: string) => void): void {
    void warn;
    void this.deps;
    throw new Error('GasWallets.checkKeys: not built yet');
  }

  /** The wallet's address on the network; undefined without one. */
  address(chain: string, network: string): string | undefined {
    void chain;
    void network;
    throw new Error('GasWallets.address: not built yet');
  }

  /** Whether a settlement costing `spendUnits` at most would pass both caps now (verify's check; settle checks again under the lock). */
  async precheck(asset: X402Asset, spendUnits: bigint): Promise<GasWalletRefusal | undefined> {
    void asset;
    void spendUnits;
    throw new Error('GasWallets.precheck: not built yet');
  }

  /**
   * Inside `trx` (which holds the settlement's row): takes the wallet's lock, allocates its nonce,
   * builds the submission, checks the caps, signs and sends it, and records gas address, nonce,
   * spend and hash on the settlement row `settlementId`. A refusal sends nothing.
   */
  async submit(
    trx: Knex.Transaction,
    asset: X402Asset,
    settlementId: string,
    authorization: TransferAuthorization,
    signature: string,
    gasUnits: bigint,
  ): Promise<{ txHash: string } | GasWalletRefusal> {
    void trx;
    void asset;
    void settlementId;
    void authorization;
    void signature;
    void gasUnits;
    throw new Error('GasWallets.submit: not built yet');
  }

  /** Every configured wallet's standing. */
  async views(): Promise<GasWalletView[]> {
    throw new Error('GasWallets.views: not built yet');
  }
}

export type { AuthorizationDomain };
