import {
  chainErrors,
  checkPayoutRequest,
  payoutPlanBuild,
  payoutRecipientsContext,
  payoutShortfall,
  ProviderError,
  treasuryChainErrors,
  type AccountPayoutRequest,
  type AccountPlanBuild,
  type AccountStep,
  type ChainDefinition,
  type NetworkDefinition,
  type StepSigner,
} from '@gw/chain-api';
import { getAddress } from 'ethers';
import { isEvmAddress } from '../adapter.js';
import { transferData } from './erc20.js';
import { quantity, toQuantity, type EvmRpc } from './evm-rpc.js';
import { readFeeMarket } from './fee-market.js';
import { depositSigner, formatUnits, operatorSigner, transactionStep } from './plan-steps.js';
import { readAccounts } from './read-accounts.js';

/**
 * EVM payout (`AccountTreasury.buildPayout`): one EIP-1559 transaction per recipient from the
 * sender (a pool address signed by its deposit key, or the operator's funding account), a native
 * transfer of the recipient's amount or an ERC-20 `transfer(recipient, units)`, at consecutive
 * nonces from the sender's pending nonce. Gas limits are the node's estimates per recipient (a
 * contract recipient's `receive` costs more than 21,000; a token's first credit of a holder more
 * than the later ones), a fifth added where above a plain transfer; fees at the plan's fee market.
 *
 * All steps are round 1, stage 0: one account's consecutive nonces need no stages, a node holds a
 * transaction whose nonce is ahead until the ones before it arrive, and the broadcaster sends a
 * stage's steps in plan order anyway.
 */
export async function planEvmPayout(
  rpc: EvmRpc,
  definition: ChainDefinition,
  network: NetworkDefinition,
  request: AccountPayoutRequest,
): Promise<AccountPlanBuild> {
  const operator = checkPayoutRequest(request, isEvmAddress, network.id);
  const coin = definition.coins.find((c) => c.id === request.coin);
  if (!coin) throw chainErrors.validation_error({ message: `${String(request.coin)} is not a coin of ${definition.id}.` });
  if (coin.contracts && !coin.contracts[network.id]) throw chainErrors.validation_error({ message: `${coin.id} has no contract on ${network.id}.` });
  const native = definition.coins.find((c) => !c.contracts)!;
  const token = coin.contracts ? getAddress(coin.contracts[network.id]!) : undefined;
  const senderAddress = operator ? operator.address : request.from.kind === 'deposit' ? request.from.source.address : '';
  if (!isEvmAddress(senderAddress)) throw chainErrors.validation_error({ message: `The sender ${senderAddress.slice(0, 80)} is not an EVM address.` });
  const sender = getAddress(senderAddress);
  const signer: StepSigner = operator
    ? operatorSigner(operator)
    : depositSigner(
        (request.from as { source: Parameters<typeof depositSigner>[0] }).source,
        definition.accountPath[network.kind === 'mainnet' ? 'mainnet' : 'testnet'],
      );
  const recipients = request.recipients.map((r) => ({ ...r, address: getAddress(r.address) }));

  const [fees, [account]] = await Promise.all([readFeeMarket(rpc), readAccounts(rpc, [sender], token ? [token] : [], { multicall3: network.multicall3 })]);
  const total = recipients.reduce((sum, r) => sum + r.units, 0n);
  const held = token ? (account!.tokens.get(token.toLowerCase()) ?? 0n) : account!.native;
  // The amounts first: a node refuses to estimate a transfer its sender cannot make.
  if (held < total) payoutShortfall(coin.id, total, held, sender);

  const estimates = await rpc.batch(
    'estimate',
    recipients.map(
      (r) =>
        [
          'eth_estimateGas',
          [token ? { from: sender, to: token, data: transferData(r.address, r.units) } : { from: sender, to: r.address, value: toQuantity(r.units) }],
        ] as [string, unknown[]],
    ),
    true,
  );
  const steps: AccountStep[] = recipients.map((r, i) => {
    const answer = estimates[i]!;
    if (answer.error) {
      if (token)
        throw treasuryChainErrors.treasury_method_unavailable({
          message: `The node says the ${coin.id} transfer to ${r.address} (recipient ${i}) would fail: ${answer.error.message ?? 'reverted'}.`,
        });
      throw new ProviderError('http_error', '', `eth_estimateGas: ${answer.error.message ?? 'JSON-RPC error'}`);
    }
    const estimate = quantity(answer, 'eth_estimateGas');
    const gasLimit = estimate > 21_000n ? (estimate * 6n) / 5n : estimate;
    const amount = `${formatUnits(r.units, coin.decimals)} ${coin.id}`;
    return transactionStep({
      id: `payout-${i}`,
      round: 1,
      stage: 0,
      description: token
        ? `Pay ${amount} (token ${token}) from ${sender} to ${r.address} (${r.reference})`
        : `Pay ${amount} from ${sender} to ${r.address} (${r.reference})`,
      signer,
      fees,
      tx: token
        ? { nonce: account!.nonce + BigInt(i), to: token, value: 0n, data: transferData(r.address, r.units), gasLimit }
        : { nonce: account!.nonce + BigInt(i), to: r.address, value: r.units, data: '0x', gasLimit },
      moves: { [coin.id]: r.units },
      beneficiary: r.address,
    });
  });
  const plan = payoutPlanBuild({
    coin: coin.id,
    recipients,
    steps,
    operator: operator !== undefined,
    context: {
      chainId: fees.chainId.toString(),
      maxFeePerGas: fees.maxFeePerGas.toString(),
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
      sender,
      ...(token ? { token } : {}),
      recipients: payoutRecipientsContext(request.recipients),
    },
  });
  const nativeNeeded = plan.feeUnits + (token ? 0n : total);
  if (account!.native < nativeNeeded) payoutShortfall(native.id, nativeNeeded, account!.native, sender);
  return plan;
}
