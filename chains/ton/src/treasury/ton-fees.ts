/**
 * The TON amounts a sweep plans with, in nanotons. TON fees depend on the work done (gas, message
 * sizes) under the network's config, not on a market price, so fixed budgets measured on real
 * contract code (the emulator of `@ton/sandbox`, basechain prices) serve; each budget is above
 * what was measured (see the figures beside each), and what a budget overshoots returns or stays
 * visible (below).
 */

/**
 * A V5R1 subwallet's external that sends its whole balance (mode 128): import, gas (4,939 units)
 * and the forward fee of the one message. Measured 0.0028 TON for a deployed wallet, 0.0059 TON
 * when the external also deploys it (the StateInit's import fee). Only an estimate: mode 128 takes
 * the real fee out of the balance, so nothing is stranded whatever it comes to.
 */
export const TON_TRANSFER_FEE = 3_500_000n;
export const TON_TRANSFER_DEPLOY_FEE = 6_500_000n;

/**
 * The TON a jetton transfer message carries to the subwallet's jetton wallet: that wallet's gas,
 * the internal transfer to the destination's jetton wallet (its deployment when the destination has
 * none yet), `JETTON_FORWARD_TON_AMOUNT` and the notification. What is not used comes back to the
 * `response_destination` as excess. TEP-74 wallets (USDT included) ask for about 0.05 TON.
 */
export const JETTON_TRANSFER_VALUE = 50_000_000n;

/**
 * forward_ton_amount of each jetton transfer: 1 nanoton, so the destination's wallet gets a
 * `transfer_notification` (exchanges and watchers, this gateway's included, credit jettons by it).
 */
export const JETTON_FORWARD_TON_AMOUNT = 1n;

/** Budget for the subwallet's own external that sends the jetton transfer (measured 0.0032 TON, 0.0060 TON deploying). */
export const JETTON_EXTERNAL_FEE = 10_000_000n;

/**
 * TON a jetton transfer really consumes (the subwallet's external, the two jetton wallets' gas and
 * forwards, the notification, the excess message back): measured 0.031 TON, and 0.041 TON when the
 * destination's jetton wallet is created (it keeps 0.01 TON for its storage). For quotes and
 * dust; the excess of what the transfer carries returns to the gas subwallet.
 */
export const JETTON_TRANSFER_FEE = 45_000_000n;

/**
 * The gas subwallet's top-up external: a base (measured 0.0028 TON, 0.0059 TON when it deploys
 * the gas subwallet) plus each message's forward fee (0.0004 TON) and gas (about 0.0003 TON).
 */
export const TOP_UP_EXTERNAL_BASE_FEE = 6_500_000n;
export const TOP_UP_PER_MESSAGE_FEE = 1_000_000n;

/** Messages in one V5R1 external (its out-action list holds at most 255). */
export const V5R1_MAX_MESSAGES = 255;

/**
 * How long a signed external stays valid: signing is offline (a seed kept away from the network),
 * so a week; seqno, not the time, keeps an external from being replayed.
 */
export const VALID_FOR_SECONDS = 7 * 24 * 3600;
