/**
 * The methods of account plans, as lists for the places that check or offer them (the treasury's
 * inputs, the offline signer's reading of a plan file); a subpath export of its own so the signer
 * reads them without the rest of the package.
 */

/**
 * How a plan moves money on an account chain.
 * - `native`: each deposit address sends its native balance less its own fee (EVM, TRX, TON).
 * - `gas_top_up`: the gas address funds each token address exactly the gas its transfer needs
 *   (stage 1), then each address sends its tokens (stage 2). EVM.
 * - `eip7702`: each deposit address delegates once (round 1, an authorization) to the immutable
 *   sweeper contract, whose only act is sending its token balance to the destination fixed at its
 *   deployment; the gas address submits sweeps in batches (round 2). Deposit addresses never need
 *   gas. Only where the chain has EIP-7702 (`network.eip7702`).
 * - `eip3009`: each address signs a `transferWithAuthorization` (round 1); the gas address submits
 *   them in a batch (round 2). Tokens that implement EIP-3009 (USDC).
 * - `energy_burn`: TRON TRC-20 transfers paying energy by burning TRX, topped up from the funding
 *   account where an address lacks it.
 * - `energy_delegation`: TRON TRC-20 transfers whose energy the staking account delegates
 *   (`DelegateResource`) before and reclaims (`UnDelegateResource`) after, plus the bandwidth TRX.
 * - `jetton_batch`: TON jetton transfers from the V5R1 subwallets, with their forward amounts and
 *   gas topped up from the operator's gas subwallet first.
 */
export const ACCOUNT_SWEEP_METHODS = ['native', 'gas_top_up', 'eip7702', 'eip3009', 'energy_burn', 'energy_delegation', 'jetton_batch'] as const;
export type AccountSweepMethod = (typeof ACCOUNT_SWEEP_METHODS)[number];

/**
 * What an account plan does: a sweep by one of the {@link ACCOUNT_SWEEP_METHODS}, or an operator act
 * that moves no pool money: `activation` (TRON: TRX to new pool addresses), `sweeper_deployment`
 * (EVM: the gas account deploys the EIP-7702 token sweeper for a destination).
 */
export const ACCOUNT_PLAN_METHODS = [...ACCOUNT_SWEEP_METHODS, 'activation', 'sweeper_deployment', 'payout'] as const;
export type AccountPlanMethod = (typeof ACCOUNT_PLAN_METHODS)[number];
