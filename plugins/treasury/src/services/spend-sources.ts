import type { AccountKey, ChainId, SpendInput } from '@gw/kernel';
import type { AddressPoolService } from '@gw/plugin-address-pool/contract';
import type { ReceivedOutput } from '@gw/plugin-watchers/contract';
import type { WalletService } from '@gw/plugin-wallets/contract';
import { treasuryErrors } from '../errors.js';

/** A received output with what signing it needs. */
export interface SourcedInput {
  readonly output: ReceivedOutput;
  readonly input: SpendInput;
  readonly walletId: string;
}

/**
 * Turns received outputs into spend inputs: each output's pool address gives its wallet binding
 * and index (address-pool), the binding gives the account key with its origin (wallets; replaced
 * keys too, so their addresses stay spendable).
 */
export class SpendSources {
  constructor(private readonly deps: { addressPoolService: AddressPoolService; walletsWallets: WalletService }) {}

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
