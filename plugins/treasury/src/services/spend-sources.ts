import type { AccountKey, ChainId, SpendInput } from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { ReceivedOutput } from '@gw/plugin-watchers/contract';
import type { WalletService } from '@gw/plugin-wallets/contract';
import { treasuryErrors } from '../errors.js';
import type { TreasuryNetwork } from './treasury-networks.js';

/** A received output with what signing it needs. */
export interface SourcedInput {
  readonly output: ReceivedOutput;
  readonly input: SpendInput;
  readonly walletId: string;
}

/**
 * Turns received outputs into spend inputs: each output's pool address gives its wallet binding
 * and index (address-pool), the binding gives the account key with its origin (wallets; replaced
 * keys too, so their addresses stay spendable). PSBT chains also get each input's previous
 * transaction from the providers: the PSBT carries it as `nonWitnessUtxo`, without which
 * `gateway-signer` and hardware wallets refuse to sign (the segwit input-amount attack).
 */
export class SpendSources {
  constructor(private readonly deps: { addressPoolService: AddressPoolService; walletsWallets: WalletService }) {}

  /** The inputs of a plan to build: keys and paths, and on PSBT chains each input's previous transaction. */
  async resolveForBuild(target: TreasuryNetwork, outputs: readonly ReceivedOutput[]): Promise<SourcedInput[]> {
    const sourced = await this.resolve(target.chain, outputs);
    if (target.treasury.unsignedFormat !== 'psbt') return sourced;
    const previous = await target.treasury.rawTransactions(outputs.map((o) => o.txHash));
    return sourced.map((s) => ({ ...s, input: { ...s.input, previousTransaction: previousOf(previous, s.output) } }));
  }

  /** Keys and paths of the outputs (what verifying a signed plan needs). */
  async resolve(chain: ChainId, outputs: readonly ReceivedOutput[]): Promise<SourcedInput[]> {
    const paths = await this.deps.addressPoolService.spendPaths(outputs.map((o) => o.poolAddressId));
    const keys = await this.deps.walletsWallets.accountKeys([...new Set([...paths.values()].map((p) => p.walletId))]);
    return outputs.map((output) => {
      const path = paths.get(output.poolAddressId);
      const wallet = path ? keys.get(path.walletId) : undefined;
      if (!path || !wallet || path.chain !== chain || path.address !== output.address) {
        throw treasuryErrors.treasury_output_unknown({
          message: `The output ${output.txHash}:${output.outputIndex} is at an address whose key the gateway cannot find.`,
          details: { tx_hash: output.txHash, output_index: output.outputIndex },
        });
      }
      const key: AccountKey = wallet.key;
      const input: SpendInput = {
        txHash: output.txHash,
        outputIndex: output.outputIndex,
        address: output.address,
        amountUnits: output.amountUnits,
        key,
        ...(key.origin ? { origin: key.origin } : {}),
        branch: path.branch,
        index: path.index,
      };
      return { output, input, walletId: path.walletId };
    });
  }
}

function previousOf(previous: ReadonlyMap<string, string>, output: ReceivedOutput): string {
  const hex = previous.get(output.txHash);
  if (hex === undefined) {
    throw treasuryErrors.treasury_previous_transaction_missing({
      message: `The provider does not have the transaction ${output.txHash} that made the output ${output.txHash}:${output.outputIndex}; a Bitcoin or Litecoin Core node needs -txindex=1, bcoin index-tx.`,
      details: { tx_hash: output.txHash },
    });
  }
  return hex;
}
