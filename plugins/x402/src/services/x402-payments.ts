import { type ChainRegistry, isAppError, networkFor, type TransferAuthorization } from '@gw/kernel';
import type { Logger } from 'pino';
import {
  type InvoiceService,
  type InvoiceView,
  isShort,
  liveUnits,
  statusesAccepting,
  statusesWhere,
  toleratedShortfall,
  type TransferState,
} from '@gw/plugin-invoices/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import { getAddress } from 'ethers';
import type { X402Config } from '../config.js';
import {
  type PaymentPayload,
  type PaymentRequired,
  type PaymentRequirements,
  type ResourceInfo,
  type SettleResponse,
  type VerifyResponse,
  X402_VERSION,
} from '../protocol/messages.js';
import { X402_REASONS, type X402Reason } from '../protocol/reasons.js';
import { parsePaymentPayload, parsePaymentRequirements } from '../protocol/schemas.js';
import type { ExternalFacilitator } from './external-facilitator.js';
import { GAS_WALLET_REFUSAL_MESSAGES, type GasWallets } from './gas-wallets.js';
import type { PaymentTarget } from './payment-target.js';
import type { X402Asset, X402Networks } from './x402-networks.js';
import type { VerifiedPayment, X402Settlements } from './x402-settlements.js';

/** Statuses in which an invoice takes a new payment at its address (not past its deadline): read off the lifecycle's table. */
const TAKING = statusesWhere({ pastDeadline: false }, statusesAccepting('payment_seen'));

/** The reference facilitators' block-time margin: an authorization must stay valid this long after it is checked. */
const VALID_BEFORE_MARGIN_SECONDS = 6n;

/** A refusal of a payment: the protocol's reason, what the node said (simulation) or the cap's message, the payer once known. */
interface Refusal {
  readonly refused: X402Reason;
  readonly message?: string;
  readonly payer?: string;
}

/** A verification's outcome: the protocol's answer, and the payment to settle when it is valid. */
export interface Verification {
  readonly response: VerifyResponse;
  /** Present exactly when `response.isValid`. */
  readonly payment?: VerifiedPayment;
}

const refusal = (refused: X402Reason, payer?: string, message?: string): Refusal => ({
  refused,
  ...(payer === undefined ? {} : { payer }),
  ...(message === undefined ? {} : { message }),
});

const sameAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/**
 * x402's `exact` scheme on EVM, for the invoices of this gateway (issue 41): what to ask for, and
 * the verification and settlement of a payer's signed EIP-3009 authorization. Settlement submits
 * `transferWithAuthorization` (the gas wallet, or the external facilitator); the invoice turns paid
 * only when the watchers see the transfer, never on a settlement's word. Times are the database's
 * clock (every instance agrees); amounts bigint base units.
 */
export class X402Payments {
  constructor(
    private readonly deps: {
      db: Knex;
      chains: ChainRegistry;
      logger: Logger;
      invoicesService: InvoiceService;
      tenancyProjects: ProjectService;
      x402Config: X402Config;
      x402Networks: X402Networks;
      x402GasWallets: GasWallets;
      x402Settlements: X402Settlements;
      x402ExternalFacilitator: ExternalFacilitator;
    },
  ) {}

  /**
   * What the invoice asks an x402 client for: one requirement (its coin on its network, `payTo` its
   * address, the amount still due, `maxTimeoutSeconds` the configured window), or undefined when
   * it cannot be paid this way (settlement off, a coin without EIP-3009 here, nothing due, an
   * invoice no longer accepting payments). `error` is "Payment required"; a caller answering a
   * refused payment replaces it with the reason.
   */
  async requirementsFor(invoice: InvoiceView, resource: ResourceInfo): Promise<PaymentRequired | undefined> {
    const offer = await this.offerOf(invoice, await this.now());
    if (!offer) return undefined;
    return { x402Version: X402_VERSION, error: 'Payment required', resource, accepts: [offer.requirements] };
  }

  /**
   * The offered requirement the payload's `accepted` is (every field the gateway set, `extra`'s
   * `name` and `version` included; addresses in any case); undefined when it is none of them or
   * the payload is unreadable.
   */
  match(payload: unknown, offered: readonly PaymentRequirements[]): PaymentRequirements | undefined {
    const parsed = parsePaymentPayload(payload);
    if (!parsed.ok) return undefined;
    const accepted = parsed.value.accepted;
    return offered.find(
      (r) =>
        accepted.scheme === r.scheme &&
        accepted.network === r.network &&
        sameAddress(accepted.asset, r.asset) &&
        BigInt(accepted.amount) === BigInt(r.amount) &&
        sameAddress(accepted.payTo, r.payTo) &&
        accepted.maxTimeoutSeconds === r.maxTimeoutSeconds &&
        Object.entries(r.extra).every(([key, value]) => JSON.stringify(accepted.extra[key]) === JSON.stringify(value)),
    );
  }

  /**
   * Verifies `payload` against `requirements` for the invoice of `target`: shape and version,
   * scheme, network and asset, `payTo` the invoice's address, the amount, the validity window, the
   * signature, a nonce never used (on chain and in this gateway's settlements), the payer's balance,
   * a simulation of the submission, and (gas wallet) that the caps leave room. Never throws for a
   * bad payment: `{ isValid: false, invalidReason }` with the protocol's reason.
   */
  async verify(payload: unknown, requirements: PaymentRequirements, target: PaymentTarget): Promise<VerifyResponse> {
    return (await this.verification(payload, requirements, target)).response;
  }

  /**
   * Why a payment to an invoice that asks for nothing now (paid, settling, expired) is refused: the
   * replay of an authorization this gateway settled is `invalid_exact_evm_nonce_already_used`,
   * anything else `invalid_payment_requirements`.
   */
  async nothingDueReason(payload: unknown, target: PaymentTarget): Promise<string> {
    const parsed = parsePaymentPayload(payload);
    if (!parsed.ok) return parsed.reason;
    const invoice = await this.invoiceOf(target);
    const asset = invoice && (await this.assetOf(invoice));
    const { from, nonce } = parsed.value.payload.authorization;
    if (asset && (await this.deps.x402Settlements.known(asset, getAddress(from), nonce.toLowerCase()))) return X402_REASONS.nonceUsed;
    return X402_REASONS.requirements;
  }

  /**
   * `verify`, with the verified payment for `settleVerified` when it is valid: a caller that
   * answers a refusal itself (a payer URL, the MCP paywall, which must not run a tool for an
   * invalid payment) verifies once and settles what it verified, instead of `verify` then `settle`,
   * which would read the chain, simulate and (facilitator mode) ask `/verify` twice.
   */
  async verification(payload: unknown, requirements: PaymentRequirements, target: PaymentTarget): Promise<Verification> {
    const checked = await this.checkSafely(payload, requirements, target, X402_REASONS.verify);
    if ('refused' in checked) {
      return {
        response: {
          isValid: false,
          invalidReason: checked.refused,
          ...(checked.message === undefined ? {} : { invalidMessage: checked.message }),
          ...(checked.payer === undefined ? {} : { payer: checked.payer }),
        },
      };
    }
    return { response: { isValid: true, payer: checked.payer }, payment: checked };
  }

  /**
   * Verifies (as `verify`), then settles through `X402Settlements.settle`. Never throws for a bad
   * payment: `{ success: false, errorReason, transaction: '' }`. The same payload again while its
   * transaction is `submitted` or `pending` (the reference server retries after
   * `settlement_pending`) waits for that transaction's receipt again (`X402Settlements.resume`).
   */
  async settle(payload: unknown, requirements: PaymentRequirements, target: PaymentTarget): Promise<SettleResponse> {
    // A retry of a settlement sent and not finished (`settlement_pending`) waits for that transaction again, not refused as a replay.
    const resumed = await this.resumed(payload, requirements, target);
    if (resumed) return resumed;
    const checked = await this.checkSafely(payload, requirements, target, X402_REASONS.settle);
    if ('refused' in checked) {
      return {
        success: false,
        errorReason: checked.refused === X402_REASONS.verify ? X402_REASONS.settle : checked.refused,
        ...(checked.message === undefined ? {} : { errorMessage: checked.message }),
        ...(checked.payer === undefined ? {} : { payer: checked.payer }),
        transaction: '',
        network: requirements.network,
      };
    }
    return this.settleVerified(checked);
  }

  /**
   * Settles a payment `verification` found valid, without verifying it again (the settlement
   * itself still refuses a replay, and the gas wallet's caps under its lock). What changed on chain
   * since (the payer's balance spent, the authorization used by another) fails the mined
   * transaction, recorded `failed`. Never throws: `{ success: false, errorReason }`.
   */
  async settleVerified(payment: VerifiedPayment): Promise<SettleResponse> {
    try {
      // What the invoice still takes is read again under its lock in the settlement: another payer may have paid since the verification.
      return await this.deps.x402Settlements.settle(payment, async () => {
        const invoice = await this.invoiceOf(payment.target);
        return invoice ? this.dueUnits(invoice) : 0n;
      });
    } catch (error) {
      this.deps.logger.error({ err: error, invoiceId: payment.target.invoiceId }, 'x402: settlement failed unexpectedly');
      return { success: false, errorReason: X402_REASONS.settle, payer: payment.payer, transaction: '', network: payment.asset.caip };
    }
  }

  /** The settlement of exactly this payload still open, waited for again; undefined when there is none (or the payload is unreadable). */
  private async resumed(input: unknown, requirements: PaymentRequirements, target: PaymentTarget): Promise<SettleResponse | undefined> {
    try {
      const parsed = parsePaymentPayload(input);
      if (!parsed.ok) return undefined;
      const { accepted } = parsed.value;
      const { authorization, signature } = parsed.value.payload;
      const invoice = await this.invoiceOf(target);
      const asset = invoice && (await this.assetOf(invoice));
      if (!asset || accepted.network !== asset.caip || requirements.network !== asset.caip || !sameAddress(accepted.asset, asset.asset)) return undefined;
      return await this.deps.x402Settlements.resume({
        asset,
        target,
        payer: getAddress(authorization.from),
        authorization: {
          from: getAddress(authorization.from),
          to: getAddress(authorization.to),
          value: BigInt(authorization.value),
          validAfter: BigInt(authorization.validAfter),
          validBefore: BigInt(authorization.validBefore),
          nonce: authorization.nonce.toLowerCase(),
        },
        signature,
      });
    } catch (error) {
      this.deps.logger.warn({ err: error, invoiceId: target.invoiceId }, 'x402: an open settlement of the payment could not be looked up');
      return undefined;
    }
  }

  /** {@link check}, with an unexpected failure (a node down, a bug) logged and refused as `unexpected`. */
  private async checkSafely(
    payload: unknown,
    requirements: PaymentRequirements,
    target: PaymentTarget,
    unexpected: X402Reason,
  ): Promise<Refusal | VerifiedPayment> {
    try {
      return await this.check(payload, requirements, target);
    } catch (error) {
      this.deps.logger.error({ err: error, invoiceId: target.invoiceId }, 'x402: verification failed unexpectedly');
      return refusal(unexpected);
    }
  }

  /** The design's checks in order (DESIGN41 "Verification"); the first failure wins. */
  private async check(input: unknown, requirementsInput: PaymentRequirements, target: PaymentTarget): Promise<Refusal | VerifiedPayment> {
    const parsed = parsePaymentPayload(input);
    if (!parsed.ok) return refusal(parsed.reason);
    const payload = parsed.value;
    const { accepted } = payload;
    const { authorization, signature } = payload.payload;
    const payer = getAddress(authorization.from);
    const requirementsParsed = parsePaymentRequirements(requirementsInput);
    if (!requirementsParsed.ok) return refusal(X402_REASONS.requirements, payer);
    const requirements = requirementsParsed.value;

    if (accepted.scheme !== 'exact' || requirements.scheme !== 'exact') return refusal(X402_REASONS.scheme, payer);
    if (accepted.network !== requirements.network) return refusal(X402_REASONS.networkMismatch, payer);
    if (!this.deps.x402Networks.settles(requirements.network)) return refusal(X402_REASONS.network, payer);

    // `accepted` must be the requirement offered.
    if (!sameAddress(accepted.asset, requirements.asset)) return refusal(X402_REASONS.requirements, payer);
    if (BigInt(accepted.amount) !== BigInt(requirements.amount)) return refusal(X402_REASONS.value, payer);
    if (!sameAddress(accepted.payTo, requirements.payTo)) return refusal(X402_REASONS.recipient, payer);

    // The requirement must be what the gateway offers for the target now.
    const now = await this.now();
    const invoice = await this.invoiceOf(target);
    const offer = invoice && (await this.offerOf(invoice, now));
    if (!offer) {
      // An invoice paid by this very authorization asks nothing more: its replay is told so.
      const asset = invoice && (await this.assetOf(invoice));
      if (asset && (await this.deps.x402Settlements.known(asset, payer, authorization.nonce))) return refusal(X402_REASONS.nonceUsed, payer);
      return refusal(X402_REASONS.requirements, payer);
    }
    const offered = offer.requirements;
    if (
      offered.network !== requirements.network ||
      !sameAddress(offered.asset, requirements.asset) ||
      BigInt(offered.amount) !== BigInt(requirements.amount) ||
      !sameAddress(offered.payTo, requirements.payTo)
    ) {
      return refusal(X402_REASONS.requirements, payer);
    }

    if (!sameAddress(authorization.to, requirements.payTo)) return refusal(X402_REASONS.recipient, payer);
    const transfer: TransferAuthorization = {
      from: payer,
      to: getAddress(authorization.to),
      value: BigInt(authorization.value),
      validAfter: BigInt(authorization.validAfter),
      validBefore: BigInt(authorization.validBefore),
      nonce: authorization.nonce.toLowerCase(),
    };
    if (transfer.validBefore < now + VALID_BEFORE_MARGIN_SECONDS) return refusal(X402_REASONS.validBefore, payer);
    if (transfer.validAfter > now) return refusal(X402_REASONS.validAfter, payer);
    if (transfer.value !== BigInt(requirements.amount)) return refusal(X402_REASONS.value, payer);

    const { asset } = offer;
    const signer = asset.transfers.signer(asset.domain, transfer, signature);
    if (signer === null || !sameAddress(signer, payer)) return refusal(X402_REASONS.signature, payer);

    if (await this.deps.x402Settlements.known(asset, payer, transfer.nonce)) return refusal(X402_REASONS.nonceUsed, payer);
    const gasAddress = this.deps.x402Config.settlement === 'gas_wallet' ? this.deps.x402GasWallets.address(asset.chain, asset.network) : undefined;
    if (this.deps.x402Config.settlement === 'gas_wallet' && gasAddress === undefined) {
      return refusal(X402_REASONS.verify, payer, GAS_WALLET_REFUSAL_MESSAGES.no_wallet);
    }
    // In facilitator mode anyone may submit; the invoice's own address stands in for the facilitator's signer.
    const inspection = await asset.transfers.inspect(asset.domain, transfer, signature, gasAddress ?? getAddress(requirements.payTo));
    if (inspection.nonceUsed) return refusal(X402_REASONS.nonceUsed, payer);
    if (inspection.balanceUnits < transfer.value) return refusal(X402_REASONS.balance, payer);
    if (!inspection.simulation.ok) {
      this.deps.logger.info({ invoiceId: target.invoiceId, payer, detail: inspection.simulation.reason }, 'x402: the submission would fail');
      return refusal(X402_REASONS.simulation, payer, 'The transfer of this authorization would fail on chain.');
    }
    const gasUnits = inspection.simulation.gasUnits;

    const verified: VerifiedPayment = {
      asset,
      target,
      payer,
      payTo: getAddress(requirements.payTo),
      authorization: transfer,
      signature,
      gasUnits,
      request: { x402Version: X402_VERSION, paymentPayload: payload as PaymentPayload, paymentRequirements: requirements },
    };

    if (gasAddress !== undefined) {
      // The spend only depends on the gas limit and this network's fees: any nonce prices it.
      const submission = await asset.transfers.settlement(asset.domain, transfer, signature, { address: gasAddress, nonce: 0n, gasUnits });
      const capped = await this.deps.x402GasWallets.precheck(asset, submission.maxSpendUnits);
      if (capped) {
        this.deps.logger.info(
          { invoiceId: target.invoiceId, payer, refused: capped.refused, detail: capped.message },
          'x402: the gas wallet would refuse the settlement',
        );
        return refusal(X402_REASONS.verify, payer, GAS_WALLET_REFUSAL_MESSAGES[capped.refused]);
      }
    } else {
      const external = await this.deps.x402ExternalFacilitator.verify(verified.request);
      if (!external.isValid) {
        this.deps.logger.info({ invoiceId: target.invoiceId, payer, detail: external.invalidMessage }, 'x402: the external facilitator refused the payment');
        return refusal((external.invalidReason ?? X402_REASONS.verify) as X402Reason, payer, 'The facilitator refused the payment.');
      }
    }
    return verified;
  }

  /** The target's invoice; undefined when the project has no such invoice. */
  private async invoiceOf(target: PaymentTarget): Promise<InvoiceView | undefined> {
    try {
      return await this.deps.invoicesService.get(target.projectId, target.invoiceId);
    } catch (error) {
      if (isAppError(error) && error.status === 404) return undefined;
      throw error;
    }
  }

  /** The requirement the gateway offers for the invoice at `now` (Unix seconds), with its asset; undefined when none. */
  private async offerOf(invoice: InvoiceView, now: bigint): Promise<{ asset: X402Asset; requirements: PaymentRequirements } | undefined> {
    const { x402Config } = this.deps;
    if (x402Config.settlement === 'off') return undefined;
    if (!TAKING.includes(invoice.status) || BigInt(invoice.expires_at) <= now) return undefined;
    const asset = await this.assetOf(invoice);
    if (!asset) return undefined;
    const due = await this.dueUnits(invoice);
    if (due <= 0n) return undefined;
    return {
      asset,
      requirements: {
        scheme: 'exact',
        network: asset.caip,
        asset: asset.asset,
        amount: due.toString(),
        payTo: getAddress(invoice.address),
        maxTimeoutSeconds: x402Config.maxTimeoutSeconds,
        extra: { name: asset.domain.name, version: asset.domain.version },
      },
    };
  }

  /** The x402 asset of the invoice's coin on its network; undefined when it has none here. */
  private async assetOf(invoice: InvoiceView): Promise<X402Asset | undefined> {
    const network = await this.networkOf(invoice);
    return network ? this.deps.x402Networks.asset(invoice.coin, network) : undefined;
  }

  /** The gateway's id of the network the invoice's address is on (its project's kind); undefined for sandbox projects and disabled chains. */
  private async networkOf(invoice: InvoiceView): Promise<string | undefined> {
    const kind = (await this.deps.tenancyProjects.kinds([invoice.project_id])).get(invoice.project_id);
    if (kind === undefined || kind === 'sandbox') return undefined;
    const [chain] = this.deps.chains.list().filter((adapter) => adapter.definition.coins.some((coin) => coin.id === invoice.coin));
    return chain && networkFor(chain.definition, kind).id;
  }

  /**
   * What is still due: the amount less the live transfers (every one of them, not only the view's
   * latest) and less the x402 settlements on their way whose transaction the watchers have not
   * recorded yet (`X402Settlements.inFlightUnits`); nothing once that total settles the invoice
   * (its tolerance, matching mode `any`).
   */
  private async dueUnits(invoice: InvoiceView): Promise<bigint> {
    let transactions: readonly { readonly status: string; readonly amount_units: string; readonly tx_hash: string }[] = invoice.transactions;
    if (invoice.transactions_total > invoice.transactions.length) {
      const all: { status: string; amount_units: string; tx_hash: string }[] = [];
      let cursor: string | undefined;
      do {
        const page = await this.deps.invoicesService.transactions(invoice.project_id, invoice.id, { limit: 100, ...(cursor ? { cursor } : {}) });
        all.push(...page.items);
        cursor = page.next_cursor;
      } while (cursor);
      transactions = all;
    }
    const inFlight = await this.deps.x402Settlements.inFlightUnits(
      invoice.id,
      transactions.map((tx) => tx.tx_hash),
    );
    const live =
      liveUnits({
        transfers: transactions.map((tx) => ({ status: tx.status, amountUnits: BigInt(tx.amount_units) }) as TransferState),
      }) + inFlight;
    const amountUnits = BigInt(invoice.amount_crypto_units);
    const toleranceUnits = toleratedShortfall(amountUnits, invoice.underpayment_tolerance);
    if (live > 0n && !isShort({ liveUnits: live, amountUnits, matchingMode: invoice.matching_mode, toleranceUnits })) return 0n;
    return amountUnits > live ? amountUnits - live : 0n;
  }

  /** The database's clock, Unix seconds (every instance reads the same). */
  private async now(): Promise<bigint> {
    const result = await this.deps.db.raw<{ rows: { now: string }[] }>('select floor(extract(epoch from clock_timestamp()))::bigint::text as now');
    return BigInt(result.rows[0]!.now);
  }
}
