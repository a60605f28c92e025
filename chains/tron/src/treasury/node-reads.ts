import type { ProviderPool } from '@gw/chain-api';
import { hexAddress, trc20TransferData } from './offline-transaction.js';
import {
  parseAccount,
  parseAccountResource,
  parseBroadcast,
  parseChainParameters,
  parseConstantCall,
  parseNowBlock,
  parseTransactionInfo,
  postTreasury,
  type ChainPrices,
  type NodeAccount,
  type NodeAccountResource,
  type NodeBlockRef,
  type NodeBroadcast,
  type NodeConstantCall,
  type NodeTransactionInfo,
} from './node-answers.js';

/**
 * The treasury's reads and sends through the watcher's provider pool (java-tron HTTP API,
 * TronGrid). Each call is one pool run: a provider that fails or answers malformed is passed over
 * for the next.
 */
export class TronNodeReads {
  constructor(private readonly providers: ProviderPool) {}

  /** The account at `address`; undefined when it does not exist on chain (`getaccount` answers `{}`). */
  account(address: string): Promise<NodeAccount | undefined> {
    return this.providers.run('treasury.account', async (http) =>
      parseAccount(await postTreasury(http, '/wallet/getaccount', { address: hexAddress(address) }), `getaccount ${address}`),
    );
  }

  resource(address: string): Promise<NodeAccountResource> {
    return this.providers.run('treasury.resource', async (http) =>
      parseAccountResource(await postTreasury(http, '/wallet/getaccountresource', { address: hexAddress(address) }), `getaccountresource ${address}`),
    );
  }

  /** `balanceOf(address)` of a TRC-20 contract, in its base units. */
  tokenBalance(address: string, contract: string): Promise<bigint> {
    return this.providers.run('treasury.tokenBalance', async (http) => {
      const call = await this.constant(http, address, contract, 'balanceOf(address)', hexAddress(address).slice(2).padStart(64, '0'));
      if (call.reverted !== undefined) throw new Error(`balanceOf ${address} on ${contract}: ${call.reverted}`);
      const word = call.constantResult[0] ?? '';
      return word === '' ? 0n : BigInt(`0x${word}`);
    });
  }

  /** Runs `transfer(to, amount)` from `from` without sending it: the energy it would use (`energy_used`, penalty included). */
  simulateTransfer(from: string, contract: string, to: string, amount: bigint): Promise<NodeConstantCall> {
    return this.providers.run('treasury.estimateEnergy', (http) =>
      this.constant(http, from, contract, 'transfer(address,uint256)', trc20TransferData(to, amount).slice(8)),
    );
  }

  prices(): Promise<ChainPrices> {
    return this.providers.run('treasury.prices', async (http) =>
      parseChainParameters(await postTreasury(http, '/wallet/getchainparameters', {}), 'getchainparameters'),
    );
  }

  nowBlock(): Promise<NodeBlockRef> {
    return this.providers.run('treasury.nowBlock', async (http) => parseNowBlock(await postTreasury(http, '/wallet/getnowblock', {}), 'getnowblock'));
  }

  transactionInfo(txid: string): Promise<NodeTransactionInfo | undefined> {
    return this.providers.run('treasury.transactionInfo', async (http) =>
      parseTransactionInfo(await postTreasury(http, '/wallet/gettransactioninfobyid', { value: txid }), `gettransactioninfobyid ${txid}`),
    );
  }

  /** Sends a signed protobuf transaction (hex) through `/wallet/broadcasthex`; the node's verdict, refused or not. */
  broadcastHex(hex: string): Promise<NodeBroadcast> {
    return this.providers.run('treasury.broadcast', async (http) =>
      parseBroadcast(await postTreasury(http, '/wallet/broadcasthex', { transaction: hex }), 'broadcasthex'),
    );
  }

  private async constant(
    http: Parameters<Parameters<ProviderPool['run']>[1]>[0],
    owner: string,
    contract: string,
    selector: string,
    parameter: string,
  ): Promise<NodeConstantCall> {
    const answer = await postTreasury(http, '/wallet/triggerconstantcontract', {
      owner_address: hexAddress(owner),
      contract_address: hexAddress(contract),
      function_selector: selector,
      parameter,
    });
    return parseConstantCall(answer, `triggerconstantcontract ${selector} ${owner}`);
  }
}
