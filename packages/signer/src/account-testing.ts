/**
 * Test support for account plans (not exported from the package root): steps built with the chains'
 * own libraries the way a gateway builds them (ethers v6 transactions, tronweb's offline transaction
 * builder, @ton/ton's V5R1 wallet), from addresses derived by those libraries, not by the signer.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  accountPlanFile,
  TRANSFER_WITH_AUTHORIZATION_TYPE,
  type AccountPlanBuild,
  type AccountPlanFile,
  type AccountPlanFileStep,
  type AccountStep,
} from '@gw/chain-api';
import { deriveEd25519Path, keyPairFromSeed } from '@ton/crypto';
import { beginCell, internal, SendMode, toNano, type Address, type Cell } from '@ton/core';
import { WalletContractV5R1 } from '@ton/ton';
import { mnemonicToSeedSync } from '@scure/bip39';
import { AbiCoder, HDNodeWallet, Transaction, Wallet, id } from 'ethers';
import { TronWeb } from 'tronweb';
import { MNEMONIC, runSignerHere, type SignerRun } from './testing.js';

export const SEPOLIA_CHAIN_ID = 11155111;

/** The EVM account of the test mnemonic at `m/44'/60'/0'/0/<index>`, by ethers' own phrase derivation. */
export function evmWallet(index: number, mnemonic = MNEMONIC): HDNodeWallet {
  return HDNodeWallet.fromPhrase(mnemonic, undefined, `m/44'/60'/0'/0/${index}`);
}

/** Somebody else's EVM address. */
export const externalEvmAddress = (): string => Wallet.createRandom().address;

/** Deposit address `index` of the mnemonic as a step's signer: its address and its BIP 44 path. */
export const evmSigner = (index: number, mnemonic = MNEMONIC) => ({ address: evmWallet(index, mnemonic).address, path: `m/44'/60'/0'/0/${index}` });

/** Runs `gateway-signer sign` on `plan` (written to a file of its own) with the secret on stdin; the signed file comes on stdout. */
export function signAccountPlan(plan: AccountPlanFile, secret = MNEMONIC, flags: readonly string[] = []): Promise<SignerRun> {
  const path = join(mkdtempSync(join(tmpdir(), 'gateway-signer-plan-')), 'plan.json');
  writeFileSync(path, JSON.stringify(plan, null, 2));
  return runSignerHere(['sign', path, '--key-stdin', '--yes', '--out', '-', ...flags], secret);
}

export interface StepOptions {
  readonly id: string;
  readonly stage?: number;
  readonly kind?: 'transaction' | 'authorization';
  readonly signer: { address: string; path: string; kind?: 'deposit' | 'operator'; role?: 'gas' | 'funding' | 'staking' };
  readonly format: AccountPlanFileStep['unsigned']['format'];
  readonly data: string;
  readonly nonce: bigint | null;
  readonly to: string;
  readonly moves: Record<string, bigint>;
  readonly fee?: bigint;
}

export function step(options: StepOptions): AccountPlanFileStep {
  return {
    id: options.id,
    stage: options.stage ?? 1,
    kind: options.kind ?? (options.format.endsWith('authorization') ? 'authorization' : 'transaction'),
    description: `test step ${options.id}`,
    signer: {
      kind: options.signer.kind ?? 'deposit',
      ...(options.signer.role ? { role: options.signer.role } : {}),
      address: options.signer.address,
      path: options.signer.path,
    },
    unsigned: { format: options.format, data: options.data },
    nonce: options.nonce === null ? null : options.nonce.toString(),
    to: options.to,
    moves: Object.fromEntries(Object.entries(options.moves).map(([coin, units]) => [coin, units.toString()])),
    fee_units: (options.fee ?? 0n).toString(),
  };
}

/** A deposit address's EIP-3009 authorization step (`auth-<index>`, signed by the test mnemonic's address `index`) of the typed data `typed`, moving `moves` to `to`. */
export function eip3009Step(index: number, typed: object, to: string, moves: Record<string, bigint>): AccountPlanFileStep {
  return step({ id: `auth-${index}`, signer: evmSigner(index), format: 'evm-3009-authorization', data: JSON.stringify(typed), nonce: null, to, moves });
}

/** A treasury's build as the file of one round, written as the treasury plugin serves it (`accountPlanFile`), with the plan id `plan-<method>`. */
export function planFileOf(
  build: AccountPlanBuild,
  chain: string,
  network: string,
  round: 1 | 2 = 1,
  steps: readonly AccountStep[] = build.steps,
): AccountPlanFile {
  return accountPlanFile(
    {
      planId: `plan-${build.method}`,
      chain,
      network,
      coin: build.coin,
      method: build.method,
      round,
      destination: build.destination,
      movedUnits: build.movedUnits,
      feeUnits: build.feeUnits,
      context: build.context,
      createdAt: new Date(),
    },
    steps,
  );
}

export function accountPlan(
  fields: Pick<AccountPlanFile, 'chain' | 'network' | 'coin' | 'method' | 'destination'> & Partial<AccountPlanFile>,
  steps: readonly AccountPlanFileStep[],
): AccountPlanFile {
  return {
    format: 'gateway-treasury-account-plan',
    version: 1,
    plan_id: `plan-${randomBytes(4).toString('hex')}`,
    evm_chain_id: null,
    round: 1,
    moved_units: '0',
    fee_units: steps.reduce((sum, s) => sum + BigInt(s.fee_units), 0n).toString(),
    created_at: new Date(0).toISOString(),
    ...fields,
    steps,
  };
}

/** An unsigned EIP-1559 transaction of `wallet` as the gateway serializes it. */
export function evmTx(fields: { to: string; value?: bigint; data?: string; nonce: number; chainId?: number; gasLimit?: bigint; maxFeePerGas?: bigint }): {
  hex: string;
  fee: bigint;
} {
  const gasLimit = fields.gasLimit ?? 21_000n;
  const maxFeePerGas = fields.maxFeePerGas ?? 30_000_000_000n;
  const tx = Transaction.from({
    type: 2,
    chainId: fields.chainId ?? SEPOLIA_CHAIN_ID,
    nonce: fields.nonce,
    to: fields.to,
    value: fields.value ?? 0n,
    data: fields.data ?? '0x',
    gasLimit,
    maxFeePerGas,
    maxPriorityFeePerGas: 1_000_000_000n,
  });
  return { hex: tx.unsignedSerialized, fee: gasLimit * maxFeePerGas };
}

export const erc20Transfer = (to: string, amount: bigint): string =>
  id('transfer(address,uint256)').slice(0, 10) + AbiCoder.defaultAbiCoder().encode(['address', 'uint256'], [to, amount]).slice(2);

/** EIP-3009 typed data of a `transferWithAuthorization` (as USDC's domain: name, version, chain id, contract). */
export function transferWithAuthorization(fields: { token: string; from: string; to: string; value: bigint; chainId?: number; validBefore?: bigint }) {
  return {
    domain: { name: 'USD Coin', version: '2', chainId: fields.chainId ?? SEPOLIA_CHAIN_ID, verifyingContract: fields.token },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'version', type: 'string' },
        { name: 'chainId', type: 'uint256' },
        { name: 'verifyingContract', type: 'address' },
      ],
      TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPE,
    },
    message: {
      from: fields.from,
      to: fields.to,
      value: fields.value.toString(),
      validAfter: '0',
      validBefore: (fields.validBefore ?? BigInt(Math.floor(Date.now() / 1000) + 3600)).toString(),
      nonce: `0x${randomBytes(32).toString('hex')}`,
    },
  };
}

// TRON

/** A TronWeb instance for building and checking transactions offline (its host is never contacted: every build is given the block header). */
export const tronWeb = new TronWeb({ fullHost: 'http://127.0.0.1:9' });

/** The TRON account of the test mnemonic at `m/44'/195'/0'/0/<index>`, derived by tronweb. */
export function tronAccount(index: number, mnemonic = MNEMONIC): { address: string; privateKey: string } {
  const account = TronWeb.fromMnemonic(mnemonic, `m/44'/195'/0'/0/${index}`);
  return { address: account.address, privateKey: account.privateKey.replace(/^0x/, '') };
}

/** A recent block's reference, as `getCurrentRefBlockParams` answers it (recorded from a real node's block shape). */
export const blockHeader = (expiration = Date.now() + 60_000) => ({
  ref_block_bytes: '6d1e',
  ref_block_hash: '8c2d7f34a6b1e905',
  expiration,
  timestamp: expiration - 60_000,
});

export async function tronTrxTransfer(from: string, to: string, amount: number) {
  return tronWeb.transactionBuilder.sendTrx(to, amount, from, { blockHeader: blockHeader() });
}

export async function tronTrc20Transfer(from: string, contract: string, to: string, amount: bigint, feeLimit = 30_000_000) {
  const { transaction } = await tronWeb.transactionBuilder.triggerSmartContract(
    contract,
    'transfer(address,uint256)',
    { txLocal: true, feeLimit, blockHeader: blockHeader() } as never,
    [
      { type: 'address', value: to },
      { type: 'uint256', value: amount.toString() },
    ],
    from,
  );
  return transaction;
}

// TON

/** The ed25519 key of the test mnemonic's BIP 39 seed at SLIP-10 m/44'/607'/0' (by @ton/crypto's own derivation). */
export async function tonKey(mnemonic = MNEMONIC) {
  return keyPairFromSeed(await deriveEd25519Path(Buffer.from(mnemonicToSeedSync(mnemonic)), [44, 607, 0]));
}

export const TON_TESTNET_GLOBAL_ID = -3;

export function tonWallet(publicKey: Buffer, subwallet: number, globalId = TON_TESTNET_GLOBAL_ID) {
  return WalletContractV5R1.create({
    publicKey,
    walletId: { networkGlobalId: globalId, context: { walletVersion: 'v5r1', workchain: 0, subwalletNumber: subwallet } },
  });
}

/** The unsigned V5R1 signing payload @ton/ton would sign (captured through its external `signer`), in base64. */
export async function tonPayload(
  wallet: ReturnType<typeof tonWallet>,
  seqno: number,
  messages: Parameters<ReturnType<typeof tonWallet>['createTransfer']>[0]['messages'],
  sendMode = SendMode.PAY_GAS_SEPARATELY + SendMode.IGNORE_ERRORS,
  timeout = Math.floor(Date.now() / 1000) + 600,
): Promise<{ payload: string; timeout: number }> {
  let payload: Cell | undefined;
  await wallet.createTransfer({
    seqno,
    sendMode,
    timeout,
    messages,
    signer: async (cell: Cell) => {
      payload = cell;
      return Buffer.alloc(64);
    },
  });
  return { payload: payload!.toBoc().toString('base64'), timeout };
}

export function jettonTransferBody(amount: bigint, destination: Address, response: Address, forward = 1n): Cell {
  return beginCell()
    .storeUint(0x0f8a7ea5, 32)
    .storeUint(0, 64)
    .storeCoins(amount)
    .storeAddress(destination)
    .storeAddress(response)
    .storeMaybeRef(null)
    .storeCoins(forward)
    .storeMaybeRef(null)
    .endCell();
}

export { internal, toNano };
