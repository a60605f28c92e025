import { internal, SendMode, type Address } from '@ton/core';
import {
  payoutPlanBuild,
  payoutRecipientsContext,
  payoutShortfall,
  type AccountPlanBuild,
  type AccountStep,
  type PayoutRecipient,
  type StepSigner,
} from '@gw/chain-api';
import { formatTonAddress } from '../derive.js';
import { planRequest } from './external-step.js';
import { jettonTransferBody } from './jetton-transfer.js';
import { tonText, type TonPlanContext } from './plan-context.js';
import {
  JETTON_EXTERNAL_FEE,
  JETTON_FORWARD_TON_AMOUNT,
  JETTON_TRANSFER_FEE,
  JETTON_TRANSFER_VALUE,
  TON_TRANSFER_DEPLOY_FEE,
  TON_TRANSFER_FEE,
} from './ton-fees.js';
import type { WalletState } from './wallet-states.js';

/** The sending subwallet of a payout: its number, who signs for it and what it holds. */
export interface PayoutSender {
  readonly subwallet: number;
  readonly signer: StepSigner;
  readonly state: WalletState;
}

/** A recipient with its parsed address and the bounce flag its friendly form asks for (raw forms bounce). */
export interface ParsedRecipient extends PayoutRecipient {
  readonly parsed: Address;
  readonly bounce: boolean;
}

/**
 * TON payout (`AccountTreasury.buildPayout`): one V5R1 external of the sender subwallet per
 * recipient, seqnos consecutive from the wallet's. Native: a message of exactly the recipient's
 * amount, fees paid apart (mode 1 + 2). Jetton: a TEP-74 `transfer` of the amount to the sender's
 * jetton wallet carrying `JETTON_TRANSFER_VALUE`, the excess back to the sender, 1 nanoton forwarded
 * so the recipient's wallet is notified.
 *
 * Step i is stage i, not all stage 0: a V5R1 wallet accepts only the external of its current seqno
 * (toncenter answers any other "cannot apply external message"), so the external of seqno n + 1 can
 * be sent only once that of n has landed; the existing jetton batch stages its chunked top-ups of one
 * wallet the same way. One external of up to 255 messages would land at once, but then a step would
 * pay many recipients, and a payout's steps are one per recipient so each item's outcome is its own.
 */
export async function buildPayoutPlan(
  ctx: TonPlanContext,
  coin: string,
  sender: PayoutSender,
  recipients: readonly ParsedRecipient[],
  jetton: { readonly master: Address } | undefined,
  operator: boolean,
): Promise<AccountPlanBuild> {
  const senderText = formatTonAddress(sender.state.address, ctx.network);
  const total = recipients.reduce((sum, r) => sum + r.units, 0n);
  if (jetton) {
    if (sender.state.jettons < total) payoutShortfall(coin, total, sender.state.jettons, senderText);
  }
  const feeOf = (i: number): bigint => (jetton ? JETTON_TRANSFER_FEE : i === 0 && !sender.state.deployed ? TON_TRANSFER_DEPLOY_FEE : TON_TRANSFER_FEE);
  // What the wallet must hold: a jetton transfer carries its value and pays its external before the excess comes back.
  const tonNeeded = jetton
    ? BigInt(recipients.length) * (JETTON_TRANSFER_VALUE + JETTON_EXTERNAL_FEE)
    : recipients.reduce((sum, r, i) => sum + r.units + feeOf(i), 0n);
  if (sender.state.ton < tonNeeded || sender.state.status === 'frozen') payoutShortfall(ctx.nativeCoin, tonNeeded, sender.state.ton, senderText);

  const jettonWallet = jetton ? sender.state.jettonWallet! : undefined;
  const steps: AccountStep[] = [];
  for (const [i, r] of recipients.entries()) {
    const message = jettonWallet
      ? internal({
          to: jettonWallet,
          value: JETTON_TRANSFER_VALUE,
          bounce: true,
          body: jettonTransferBody({
            queryId: BigInt(i),
            amount: r.units,
            destination: r.parsed,
            responseDestination: sender.state.address,
            forwardTonAmount: JETTON_FORWARD_TON_AMOUNT,
          }),
        })
      : internal({ to: r.parsed, value: r.units, bounce: r.bounce });
    const external = await planRequest(
      ctx,
      sender,
      i,
      [{ message, mode: SendMode.PAY_GAS_SEPARATELY }],
      jettonWallet ? { master: formatTonAddress(jetton!.master, ctx.network), wallet: formatTonAddress(jettonWallet, ctx.network) } : undefined,
    );
    steps.push({
      id: `payout-${i}`,
      round: 1,
      stage: i,
      description: jettonWallet
        ? `Pay ${r.units} ${coin} base units from ${senderText} to ${r.address} (${r.reference}) through its jetton wallet ${formatTonAddress(jettonWallet, ctx.network)}`
        : `Pay ${tonText(r.units)} from ${senderText} to ${r.address} (${r.reference})`,
      signer: sender.signer,
      kind: 'transaction',
      ...external,
      moves: { [coin]: r.units },
      feeUnits: feeOf(i),
      to: r.address,
    });
  }
  return payoutPlanBuild({
    coin,
    recipients,
    steps,
    operator,
    context: {
      valid_until: ctx.validUntil,
      sender: senderText,
      recipients: payoutRecipientsContext(recipients),
      ...(jettonWallet ? { jetton_wallet: formatTonAddress(jettonWallet, ctx.network), jetton_transfer_value: JETTON_TRANSFER_VALUE.toString() } : {}),
    },
  });
}
