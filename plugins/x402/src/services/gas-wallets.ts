import { sql, sqlQuery, type AuthorizationDomain, type AuthorizedTransfers, type TransferAuthorization } from '@gw/kernel';
import { readHotGasKey } from '@gw/chain-evm';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { ReceivedOutputs } from '@gw/plugin-watchers/contract';
import { getAddress, Interface, Transaction, type Wallet } from 'ethers';
import type { Knex } from 'knex';
import type { X402Config } from '../config.js';
import type { X402Metrics } from '../metrics.js';
import type { X402Asset } from './x402-networks.js';

/** A gas wallet's standing on one network: the operator's status, the dashboard. */
export interface GasWalletView {
  readonly chain: string;
  readonly network: string;
  readonly address: string;
  /** What it holds now, wei; null when the network is not watched here or its node did not answer. */
  readonly balance_units: string | null;
  readonly spent_24h_units: string;
  readonly max_per_settlement_units: string;
  readonly max_per_day_units: string;
}

/**
 * A refusal of the gas wallet before anything is sent: a cap (`settlement`, `day`), no wallet for
 * the network, too little gas money, or a transaction it does not sign (`not_allowed`).
 */
export interface GasWalletRefusal {
  readonly refused: 'settlement_cap' | 'day_cap' | 'no_wallet' | 'gas_balance' | 'not_allowed';
  readonly message: string;
}

/** The node refused the signed settlement: nothing is recorded, its nonce is free again. */
export class GasWalletSendError extends Error {
  override readonly name = 'GasWalletSendError';
}

const SUBMISSION = new Interface([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
]);

const LABEL = 'x402 gas wallet';

type Settings = X402Config['gasWallets'][string][string];

/**
 * The settlement gas wallets (`plugins.x402.gasWallets`): custody of gas money only (ADR 0012).
 * Each signs one kind of transaction, the submission of a verified authorization into a pool
 * address, under its caps per settlement and per 24 hours (summed over `x402_settlements` of every
 * instance). Nonces are allocated under a PostgreSQL advisory lock per wallet, from the chain's
 * pending count and the settlements recorded, so several instances never reuse or skip one.
 */
export class GasWallets {
  // Keys read from their files (configuration, not state): one read per process and network.
  private readonly wallets = new Map<string, Wallet>();

  constructor(
    private readonly deps: {
      db: Knex;
      x402Config: X402Config;
      watchersOutputs: ReceivedOutputs;
      addressPoolService: AddressPoolService;
      x402Metrics: X402Metrics;
    },
  ) {}

  /** Reads every key file at start (a bad one stops the plugin; its content never in an error); warns of a file others may read. */
  checkKeys(warn: (message: string) => void): void {
    for (const { chain, network, wallet } of this.readKeys(warn)) this.wallets.set(`${chain}:${network}`, wallet);
  }

  /**
   * Reads every key file again and keeps nothing (readiness): throws as `checkKeys` does for a bad
   * one, warns of a file others may read. The keys this process signs with stay those read first,
   * so a key file changed under a running gateway never changes the signing address.
   */
  inspectKeys(warn: (message: string) => void): void {
    this.readKeys(warn);
  }

  private readKeys(warn: (message: string) => void): { chain: string; network: string; wallet: Wallet }[] {
    const configured = this.configured();
    if (configured.length === 0)
      warn('plugins.x402.settlement is gas_wallet but no gas wallet is configured (plugins.x402.gasWallets): nothing can be settled.');
    return configured.map(({ chain, network, settings }) => ({ chain, network, wallet: readHotGasKey(settings.privateKeyFile, { label: LABEL, warn }) }));
  }

  /** The wallet's address on the network (checksummed); undefined without one. */
  address(chain: string, network: string): string | undefined {
    const settings = this.settings(chain, network);
    return settings ? this.wallet(chain, network, settings).address : undefined;
  }

  /** Whether a settlement costing `spendUnits` at most would pass both caps now (verify's check; settle checks again under the lock). */
  async precheck(asset: X402Asset, spendUnits: bigint): Promise<GasWalletRefusal | undefined> {
    const settings = this.settings(asset.chain, asset.network);
    if (!settings) return noWallet(asset);
    const address = this.wallet(asset.chain, asset.network, settings).address;
    return (
      capRefusal(asset, settings, spendUnits, await this.spent24h(this.deps.db, asset.chain, asset.network, address)) ??
      (await balanceRefusal(asset.transfers, address, spendUnits))
    );
  }

  /**
   * Inside `trx` (which holds the settlement's row): takes the wallet's lock, allocates its nonce,
   * builds the submission, checks the caps, signs and sends it, and records gas address, nonce,
   * spend and hash on the settlement row `settlementId`. A refusal sends nothing and records
   * nothing; a node refusing the transaction throws `GasWalletSendError` (the caller rolls back).
   */
  async submit(
    trx: Knex.Transaction,
    asset: X402Asset,
    settlementId: string,
    authorization: TransferAuthorization,
    signature: string,
    gasUnits: bigint,
  ): Promise<{ txHash: string } | GasWalletRefusal> {
    const settings = this.settings(asset.chain, asset.network);
    if (!settings) return noWallet(asset);
    const wallet = this.wallet(asset.chain, asset.network, settings);
    const address = wallet.address;
    const refusal = await this.poolRefusal(trx, asset.chain, address, authorization.to);
    if (refusal) return refusal;

    // One settler per wallet at a time, across instances: the nonce and the daily sum are read and taken under it.
    await sqlQuery(trx, sql`select pg_advisory_xact_lock(hashtextextended(${lockName(asset, address)}, 0))`);
    const [chainNonce, [recorded]] = await Promise.all([
      asset.transfers.pendingNonce(address),
      sqlQuery<{ next: string | null }>(
        trx,
        sql`select (max(gas_nonce) + 1)::text as next from x402_settlements
             where chain = ${asset.chain} and network = ${asset.network} and gas_address = ${address.toLowerCase()}
               and gas_nonce is not null and status <> 'failed' and created_at > now() - interval '1 hour'`,
      ),
    ]);
    // A provider behind a load balancer may not count a settlement another instance sent a moment ago; the rows do.
    const nonce = maxOf(chainNonce, recorded?.next ? BigInt(recorded.next) : 0n);
    const built = await asset.transfers.settlement(asset.domain, authorization, signature, { address, nonce, gasUnits });
    let tx: Transaction;
    try {
      tx = Transaction.from(built.unsigned);
    } catch {
      return { refused: 'not_allowed', message: 'The chain built no EVM transaction for the settlement.' };
    }
    const notTheSubmission = submissionRefusal(tx, asset.domain, authorization, nonce);
    if (notTheSubmission) return { refused: 'not_allowed', message: `The gas wallet signs only the settlement of this authorization: ${notTheSubmission}.` };
    const spend = maxOf(built.maxSpendUnits, tx.gasLimit * (tx.maxFeePerGas ?? tx.gasPrice ?? 0n));
    const capped =
      capRefusal(asset, settings, spend, await this.spent24h(trx, asset.chain, asset.network, address)) ??
      (await balanceRefusal(asset.transfers, address, spend));
    if (capped) return capped;

    tx.signature = wallet.signingKey.sign(tx.unsignedHash);
    const txHash = tx.hash!;
    await sqlQuery(
      trx,
      sql`update x402_settlements set gas_address = ${address.toLowerCase()}, gas_nonce = ${nonce.toString()}::numeric,
                 spend_units = ${spend.toString()}::numeric, tx_hash = ${txHash.toLowerCase()}
           where id = ${settlementId}`,
    );
    try {
      await asset.transfers.send(tx.serialized);
    } catch (error) {
      throw new GasWalletSendError(`The node refused the settlement ${txHash}: ${(error as Error).message}`);
    }
    this.deps.x402Metrics.gasSigned(asset, spend);
    return { txHash: txHash.toLowerCase() };
  }

  /** Every configured wallet's standing (none unless settlement is `gas_wallet`: the wallets are unused otherwise). */
  async views(): Promise<GasWalletView[]> {
    if (this.deps.x402Config.settlement !== 'gas_wallet') return [];
    return Promise.all(
      this.configured().map(async ({ chain, network, settings }) => {
        const address = this.wallet(chain, network, settings).address;
        const transfers = this.deps.watchersOutputs.accountTreasuryOf(chain, network)?.authorizedTransfers;
        const [balance, spent] = await Promise.all([
          transfers ? transfers.nativeBalance(address).catch(() => null) : null,
          this.spent24h(this.deps.db, chain, network, address),
        ]);
        return {
          chain,
          network,
          address,
          balance_units: balance === null ? null : balance.toString(),
          spent_24h_units: spent.toString(),
          max_per_settlement_units: settings.maxPerSettlementUnits,
          max_per_day_units: settings.maxPerDayUnits,
        };
      }),
    );
  }

  /** What the wallet signed for (gas limit × max fee) in the last 24 hours, every instance's settlements summed. */
  private async spent24h(db: Knex | Knex.Transaction, chain: string, network: string, address: string): Promise<bigint> {
    const [row] = await sqlQuery<{ spent: string }>(
      db,
      sql`select coalesce(sum(spend_units), 0)::text as spent from x402_settlements
           where chain = ${chain} and network = ${network} and gas_address = ${address.toLowerCase()}
             and created_at > now() - interval '24 hours'`,
    );
    return BigInt(row!.spent);
  }

  /**
   * A pool address receives payments, so the gas key must not be one (it would spend them), and a
   * settlement pays into one (the invoice's address) or is not one this wallet signs. Asked at each
   * settlement: pools grow.
   */
  private async poolRefusal(trx: Knex.Transaction, chain: string, gasAddress: string, payTo: string): Promise<GasWalletRefusal | undefined> {
    const forms = (address: string) => [getAddress(address), address.toLowerCase()];
    const found = new Set(
      (await this.deps.addressPoolService.lookupAddresses(chain, [...forms(gasAddress), ...forms(payTo)], trx)).map((ref) => ref.address.toLowerCase()),
    );
    if (found.has(gasAddress.toLowerCase())) {
      return { refused: 'not_allowed', message: `The gas wallet ${gasAddress} is a pool address that receives payments; it signs nothing.` };
    }
    if (!found.has(payTo.toLowerCase())) {
      return { refused: 'not_allowed', message: `The gas wallet settles only into the operator's pool addresses; ${getAddress(payTo)} is none.` };
    }
    return undefined;
  }

  private configured(): { chain: string; network: string; settings: Settings }[] {
    return Object.entries(this.deps.x402Config.gasWallets).flatMap(([chain, networks]) =>
      Object.entries(networks).map(([network, settings]) => ({ chain, network, settings })),
    );
  }

  private settings(chain: string, network: string): Settings | undefined {
    return this.deps.x402Config.gasWallets[chain]?.[network];
  }

  private wallet(chain: string, network: string, settings: Settings): Wallet {
    const key = `${chain}:${network}`;
    let wallet = this.wallets.get(key);
    if (!wallet) {
      wallet = readHotGasKey(settings.privateKeyFile, { label: LABEL });
      this.wallets.set(key, wallet);
    }
    return wallet;
  }
}

function lockName(asset: X402Asset, address: string): string {
  return `x402:gas:${asset.chain}:${asset.network}:${address.toLowerCase()}`;
}

function noWallet(asset: X402Asset): GasWalletRefusal {
  return { refused: 'no_wallet', message: `No gas wallet is configured for ${asset.chain} ${asset.network} (plugins.x402.gasWallets).` };
}

function capRefusal(asset: X402Asset, settings: Settings, spend: bigint, spent: bigint): GasWalletRefusal | undefined {
  const where = `plugins.x402.gasWallets.${asset.chain}.${asset.network}`;
  const perSettlement = BigInt(settings.maxPerSettlementUnits);
  if (spend > perSettlement) {
    return {
      refused: 'settlement_cap',
      message: `The settlement may spend ${spend} wei of gas, above the gas wallet's cap of ${perSettlement} per settlement (${where}.maxPerSettlementUnits).`,
    };
  }
  const perDay = BigInt(settings.maxPerDayUnits);
  if (spent + spend > perDay) {
    return {
      refused: 'day_cap',
      message: `The gas wallet signed for ${spent} wei in the last 24 hours; ${spend} more is above its cap of ${perDay} per day (${where}.maxPerDayUnits).`,
    };
  }
  return undefined;
}

async function balanceRefusal(transfers: AuthorizedTransfers, address: string, spend: bigint): Promise<GasWalletRefusal | undefined> {
  const balance = await transfers.nativeBalance(address);
  if (balance >= spend) return undefined;
  return { refused: 'gas_balance', message: `The gas wallet ${address} holds ${balance} wei, less than the ${spend} the settlement may spend.` };
}

/** Why `tx` is not the submission of `authorization` to the domain's token at `nonce`; undefined when it is. */
function submissionRefusal(tx: Transaction, domain: AuthorizationDomain, authorization: TransferAuthorization, nonce: bigint): string | undefined {
  if (tx.signature) return 'the transaction is signed already';
  if (tx.chainId !== domain.chainId) return `it is for chain ${tx.chainId}`;
  if (!tx.to || tx.to.toLowerCase() !== domain.verifyingContract.toLowerCase()) return 'it is not sent to the token';
  if (tx.value !== 0n) return 'it moves native coin';
  if (BigInt(tx.nonce) !== nonce) return 'it is not at the allocated nonce';
  let args;
  try {
    args = SUBMISSION.decodeFunctionData('transferWithAuthorization', tx.data);
  } catch {
    return 'it is no transferWithAuthorization';
  }
  const same =
    String(args[0]).toLowerCase() === authorization.from.toLowerCase() &&
    String(args[1]).toLowerCase() === authorization.to.toLowerCase() &&
    args[2] === authorization.value &&
    args[3] === authorization.validAfter &&
    args[4] === authorization.validBefore &&
    String(args[5]).toLowerCase() === authorization.nonce.toLowerCase();
  return same ? undefined : 'its arguments are another authorization';
}

function maxOf(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
