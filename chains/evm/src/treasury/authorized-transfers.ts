import {
  chainErrors,
  TRANSFER_WITH_AUTHORIZATION_TYPE,
  type AuthorizationDomain,
  type AuthorizationInspection,
  type AuthorizedTransfers,
  type ChainDefinition,
  type JsonRpcAnswer,
  type NetworkDefinition,
  type SettlementReceipt,
  type SettlementTransaction,
  type TransferAuthorization,
} from '@gw/chain-api';
import { AbiCoder, getAddress, isAddress, Signature, Transaction, TypedDataEncoder, recoverAddress } from 'ethers';
import { TRANSFER_TOPIC } from '../watcher.js';
import { balanceOfData, word } from './erc20.js';
import { eip3009Call, probeEip3009 } from './eip3009-probe.js';
import { quantity, type EvmRpc } from './evm-rpc.js';
import { readFeeMarket } from './fee-market.js';
import { transferWithAuthorizationData } from './plan-eip3009.js';
import { sendRawTransaction } from './send-raw-transaction.js';

/** A 65-byte ECDSA signature (r ‖ s ‖ v), hex: the only form EIP-3009's v, r, s submission takes. */
const SIGNATURE_PATTERN = /^0x[0-9a-fA-F]{130}$/;
/** 32 bytes, hex: an authorization nonce, a transaction hash. */
const BYTES32_PATTERN = /^0x[0-9a-fA-F]{64}$/;
/** `Error(string)`'s selector: how Solidity's `require(…, "reason")` reverts. */
const ERROR_STRING_SELECTOR = '0x08c379a0';
/** How long a token found without EIP-3009 stays so before it is probed again (a proxy such as USDC's may be upgraded). */
const UNAVAILABLE_TTL_MS = 10 * 60_000;
const TYPES = { TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPE };

/**
 * EIP-3009 authorized transfers of one EVM network's tokens (issue 41: x402's `exact` scheme), over
 * the account treasury's JSON-RPC. The domain is probed on chain (eip3009-probe.ts) and kept per
 * token for the process; every other answer is read fresh. Signing happens elsewhere: `settlement`
 * hands out the unsigned transaction and `send` takes it back signed.
 */
export class EvmAuthorizedTransfers implements AuthorizedTransfers {
  private readonly domains = new Map<string, { domain: AuthorizationDomain | undefined; until: number }>();

  constructor(
    private readonly rpc: EvmRpc,
    private readonly definition: ChainDefinition,
    private readonly network: NetworkDefinition,
  ) {}

  async domain(coin: string): Promise<AuthorizationDomain | undefined> {
    const contract = this.definition.coins.find((c) => c.id === coin)?.contracts?.[this.network.id];
    if (!contract || !isAddress(contract) || this.network.evmChainId === undefined) return undefined;
    const token = getAddress(contract);
    const cached = this.domains.get(token);
    if (cached && cached.until > Date.now()) return cached.domain;
    const chainId = BigInt(this.network.evmChainId);
    const probed = await probeEip3009(this.rpc, token, chainId);
    const domain = 'domain' in probed ? { name: probed.domain.name!, version: probed.domain.version!, chainId, verifyingContract: token } : undefined;
    this.domains.set(token, { domain, until: domain ? Number.POSITIVE_INFINITY : Date.now() + UNAVAILABLE_TTL_MS });
    return domain;
  }

  signer(domain: AuthorizationDomain, authorization: TransferAuthorization, signature: string): string | null {
    if (typeof signature !== 'string' || !SIGNATURE_PATTERN.test(signature)) return null;
    try {
      const digest = TypedDataEncoder.hash(typedDomain(domain), TYPES, message(authorization));
      return getAddress(recoverAddress(digest, Signature.from(signature)));
    } catch {
      return null;
    }
  }

  async inspect(domain: AuthorizationDomain, authorization: TransferAuthorization, signature: string, submitter: string): Promise<AuthorizationInspection> {
    const token = this.tokenOf(domain);
    const from = address(authorization.from, 'from');
    const sender = address(submitter, 'submitter');
    const nonce = message(authorization).nonce;
    const submission = submissionData(authorization, signature);
    const call = { from: sender, to: token, data: submission ?? '0x' };
    const stateCall = eip3009Call(token, 'authorizationState', [from, nonce]);
    const calls: [string, unknown[]][] = [
      stateCall,
      ['eth_call', [{ to: token, data: balanceOfData(from) }, 'latest']],
      ...(submission
        ? ([
            ['eth_call', [call, 'latest']],
            ['eth_estimateGas', [call, 'latest']],
          ] as [string, unknown[]][])
        : []),
    ];
    const [state, balance, simulated, estimate] = await this.rpc.batch('authorization_inspect', calls, true);
    const nonceUsed = word32(state, 'authorizationState') !== 0n;
    const balanceUnits = word32(balance, 'balanceOf');
    if (!submission) return { nonceUsed, balanceUnits, simulation: { ok: false, reason: 'the signature is not a 65-byte ECDSA signature' } };
    const failed = simulated!.error ?? estimate!.error;
    if (failed) {
      // The batch's reads can span a block: another submission of this authorization may have
      // landed after the nonce was read unused, and failed the simulation. The nonce, read again,
      // says so.
      const usedSince = !nonceUsed && word32((await this.rpc.batch('authorization_inspect', [stateCall], true))[0], 'authorizationState') !== 0n;
      return { nonceUsed: nonceUsed || usedSince, balanceUnits, simulation: { ok: false, reason: revertReason(failed) } };
    }
    const gasUnits = quantity(estimate, 'eth_estimateGas');
    return { nonceUsed, balanceUnits, simulation: { ok: true, gasUnits } };
  }

  async settlement(
    domain: AuthorizationDomain,
    authorization: TransferAuthorization,
    signature: string,
    submitter: { readonly address: string; readonly nonce: bigint; readonly gasUnits: bigint },
  ): Promise<SettlementTransaction> {
    const token = this.tokenOf(domain);
    address(submitter.address, 'submitter');
    const data = submissionData(authorization, signature);
    if (!data) throw chainErrors.validation_error({ message: 'The signature is not a 65-byte ECDSA signature.' });
    if (submitter.gasUnits <= 0n || submitter.nonce < 0n)
      throw chainErrors.validation_error({ message: 'A settlement needs a positive gas figure and a nonce.' });
    const fees = await readFeeMarket(this.rpc);
    // A quarter more than the simulation used: the state may move between the simulation and the block.
    const gasLimit = (submitter.gasUnits * 5n + 3n) / 4n;
    const tx = Transaction.from({
      type: 2,
      chainId: domain.chainId,
      nonce: Number(submitter.nonce),
      to: token,
      value: 0n,
      data,
      gasLimit,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    return { unsigned: tx.unsignedSerialized, maxSpendUnits: gasLimit * fees.maxFeePerGas, gasLimit, nonce: submitter.nonce };
  }

  async pendingNonce(account: string): Promise<bigint> {
    const [nonce] = await this.rpc.batch('nonces', [['eth_getTransactionCount', [address(account, 'address'), 'pending']]]);
    return quantity(nonce, 'eth_getTransactionCount');
  }

  async minedNonce(account: string): Promise<bigint> {
    const [nonce] = await this.rpc.batch('nonces', [['eth_getTransactionCount', [address(account, 'address'), 'latest']]]);
    return quantity(nonce, 'eth_getTransactionCount');
  }

  async transactionKnown(txHash: string): Promise<boolean> {
    const tx = await this.rpc.call('transaction', 'eth_getTransactionByHash', [transactionHash(txHash)]);
    return tx !== null && tx !== undefined;
  }

  async nativeBalance(account: string): Promise<bigint> {
    const [balance] = await this.rpc.batch('balances', [['eth_getBalance', [address(account, 'address'), 'latest']]]);
    return quantity(balance, 'eth_getBalance');
  }

  async send(signed: string): Promise<string> {
    let tx: Transaction;
    try {
      tx = Transaction.from(signed);
    } catch {
      throw chainErrors.validation_error({ message: 'Not a signed EVM transaction.' });
    }
    if (!tx.signature || !tx.hash) throw chainErrors.validation_error({ message: 'The transaction is not signed.' });
    if (tx.chainId !== BigInt(this.network.evmChainId ?? -1))
      throw chainErrors.validation_error({ message: `The transaction is for chain ${tx.chainId}, not ${this.network.id}.` });
    return sendRawTransaction(this.rpc, tx.serialized, tx.hash);
  }

  async receipt(txHash: string, authorization: TransferAuthorization, domain: AuthorizationDomain): Promise<SettlementReceipt | null> {
    const hash = transactionHash(txHash);
    const token = this.tokenOf(domain).toLowerCase();
    const mined = (await this.rpc.call('receipt', 'eth_getTransactionReceipt', [hash])) as {
      blockNumber?: string | null;
      status?: string;
      logs?: { address?: string; topics?: string[]; data?: string }[];
    } | null;
    if (!mined?.blockNumber) return null;
    const topics = [TRANSFER_TOPIC, topicOf(authorization.from), topicOf(authorization.to)];
    const value = `0x${word(authorization.value)}`;
    const transferLogged = (mined.logs ?? []).some(
      (log) =>
        log.address?.toLowerCase() === token &&
        log.topics?.length === 3 &&
        log.topics.every((topic, i) => topic.toLowerCase() === topics[i]) &&
        log.data?.toLowerCase() === value,
    );
    return { success: mined.status === '0x1', blockNumber: BigInt(mined.blockNumber), transferLogged };
  }

  /** The domain's token, checked to be of this network. */
  private tokenOf(domain: AuthorizationDomain): string {
    if (this.network.evmChainId === undefined || domain.chainId !== BigInt(this.network.evmChainId))
      throw chainErrors.validation_error({ message: `The domain is of chain ${domain.chainId}, not ${this.network.id}.` });
    return address(domain.verifyingContract, 'verifyingContract');
  }
}

function typedDomain(domain: AuthorizationDomain) {
  return { name: domain.name, version: domain.version, chainId: domain.chainId, verifyingContract: getAddress(domain.verifyingContract) };
}

/** The typed-data message of an authorization, checked field by field (throws `validation_error`). */
function message(authorization: TransferAuthorization) {
  for (const field of ['value', 'validAfter', 'validBefore'] as const) {
    const n = authorization[field];
    if (typeof n !== 'bigint' || n < 0n || n >= 1n << 256n) throw chainErrors.validation_error({ message: `The authorization's ${field} is not a uint256.` });
  }
  if (typeof authorization.nonce !== 'string' || !BYTES32_PATTERN.test(authorization.nonce))
    throw chainErrors.validation_error({ message: "The authorization's nonce is not 32 bytes (0x and 64 hex digits)." });
  return {
    from: address(authorization.from, 'from'),
    to: address(authorization.to, 'to'),
    value: authorization.value,
    validAfter: authorization.validAfter,
    validBefore: authorization.validBefore,
    nonce: authorization.nonce.toLowerCase(),
  };
}

/** The `transferWithAuthorization` calldata; undefined when the signature is not a 65-byte signature ethers accepts. */
function submissionData(authorization: TransferAuthorization, signature: string): string | undefined {
  const fields = message(authorization);
  if (typeof signature !== 'string' || !SIGNATURE_PATTERN.test(signature)) return undefined;
  let parsed: Signature;
  try {
    parsed = Signature.from(signature);
  } catch {
    return undefined;
  }
  return transferWithAuthorizationData(
    {
      ...fields,
      value: fields.value.toString(),
      validAfter: fields.validAfter.toString(),
      validBefore: fields.validBefore.toString(),
    },
    parsed,
  );
}

/** A transaction hash, lowercase (throws `validation_error`). */
function transactionHash(txHash: string): string {
  if (typeof txHash !== 'string' || !BYTES32_PATTERN.test(txHash))
    throw chainErrors.validation_error({ message: 'Not a transaction hash (0x and 64 hex digits).' });
  return txHash.toLowerCase();
}

function address(value: string, what: string): string {
  if (typeof value !== 'string' || !isAddress(value) || !value.startsWith('0x'))
    throw chainErrors.validation_error({ message: `The ${what} is not an EVM address: ${String(value).slice(0, 80)}.` });
  return getAddress(value);
}

const topicOf = (account: string): string => `0x${word(BigInt(account))}`;

/** A 32-byte word an `eth_call` answered; a node's error here is the provider failing, not the payer's doing. */
function word32(answer: JsonRpcAnswer | undefined, what: string): bigint {
  if (answer?.error) throw new Error(`The node refused ${what}: ${answer.error.message ?? 'JSON-RPC error'}`);
  return quantity(answer, what);
}

/** The revert text: `Error(string)`'s when the node passed the revert data, else the node's message. */
export function revertReason(error: NonNullable<JsonRpcAnswer['error']>): string {
  const data = (error as { data?: unknown }).data;
  const hex = typeof data === 'string' ? data : typeof (data as { data?: unknown })?.data === 'string' ? (data as { data: string }).data : undefined;
  if (hex?.toLowerCase().startsWith(ERROR_STRING_SELECTOR)) {
    try {
      return AbiCoder.defaultAbiCoder().decode(['string'], `0x${hex.slice(10)}`)[0] as string;
    } catch {
      // not a well-formed Error(string): the node's message says more
    }
  }
  return error.message ?? 'the simulation reverted';
}
