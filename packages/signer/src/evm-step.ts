// The one file of the chain contract the command loads: a constant, no imports (the package root would load its logger).
import { TRANSFER_WITH_AUTHORIZATION_TYPE } from '@gw/chain-api/eip3009-typed-data';
// ethers by subpath: its root (and its wallet) load the providers, which load `ws` and Node's network modules.
import { AbiCoder } from 'ethers/abi';
import { getAddress, getCreateAddress } from 'ethers/address';
import type { SigningKey } from 'ethers/crypto';
import { hashAuthorization, TypedDataEncoder, verifyAuthorization } from 'ethers/hash';
import { Transaction } from 'ethers/transaction';
import { dataSlice, isHexString } from 'ethers/utils';
import type { ReadStep } from './account-plan.js';
import { checkedStep, checkMoves, checkNonce, checkTo, timeOf, tokenCoin, type CheckedStep, type StepContext, type StepTransfer } from './account-step.js';
import { refuse } from './signer-error.js';
import { TOKEN_SWEEPER_CREATION_CODE } from './token-sweeper-code.js';

const TRANSFER = '0xa9059cbb'; // transfer(address,uint256)
const AGGREGATE3 = '0x82ad56cb'; // aggregate3((address,bool,bytes)[])
const TRANSFER_WITH_AUTHORIZATION = '0xe3ee160e'; // transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,uint8,bytes32,bytes32)
const TRANSFER_WITH_AUTHORIZATION_BYTES = '0xcf092995'; // transferWithAuthorization(address,address,uint256,uint256,uint256,bytes32,bytes)
/** The EIP-7702 sweeper's calls: `sweep()` and `sweep(address token)`; it sends its whole balance to the destination fixed at deployment. */
const SWEEP = '0x35faa416';
const SWEEP_TOKEN = '0x01681a62';

const abi = AbiCoder.defaultAbiCoder();

export const sameEvmAddress = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

function evmAddress(value: unknown, where: string): string {
  try {
    return getAddress(String(value));
  } catch {
    return refuse('plan_unreadable', `${where}: ${JSON.stringify(value)} is not an EVM address.`);
  }
}

/** What one call does, read from its calldata. */
interface Call {
  readonly target: string;
  readonly value: bigint;
  readonly data: string;
}

/**
 * Reads a call of the kinds a plan makes: an ERC-20 transfer, an EIP-3009 transferWithAuthorization,
 * a sweeper call on an address the same transaction delegates (EIP-7702). Anything else is refused.
 */
function readCall(
  call: Call,
  ctx: StepContext,
  delegated: ReadonlyMap<string, string>,
  where: string,
): { transfers: StepTransfer[]; lines: string[]; notes: string[]; sweeps?: boolean } {
  const selector = call.data.length >= 10 ? call.data.slice(0, 10).toLowerCase() : call.data;
  if (call.value !== 0n) refuse('unsupported', `${where}: a call that sends value with its data is not something a plan does.`);
  try {
    if (selector === TRANSFER) {
      const [to, amount] = abi.decode(['address', 'uint256'], dataSlice(call.data, 4)) as unknown as [string, bigint];
      const coin = tokenCoin(ctx, where, call.target);
      return {
        transfers: [{ to: getAddress(to), coin, units: amount, contract: call.target }],
        lines: [`token transfer (ERC-20) on ${call.target}`],
        notes: [],
      };
    }
    if (selector === TRANSFER_WITH_AUTHORIZATION || selector === TRANSFER_WITH_AUTHORIZATION_BYTES) {
      const types =
        selector === TRANSFER_WITH_AUTHORIZATION
          ? ['address', 'address', 'uint256', 'uint256', 'uint256', 'bytes32', 'uint8', 'bytes32', 'bytes32']
          : ['address', 'address', 'uint256', 'uint256', 'uint256', 'bytes32', 'bytes'];
      const [from, to, amount, , validBefore] = abi.decode(types, dataSlice(call.data, 4)) as unknown as [string, string, bigint, bigint, bigint];
      const coin = tokenCoin(ctx, where, call.target);
      return {
        transfers: [{ to: getAddress(to), coin, units: amount, contract: call.target }],
        lines: [`EIP-3009 transferWithAuthorization on ${call.target} from ${getAddress(from)}, valid before ${timeOf(validBefore)}`],
        notes: [],
      };
    }
  } catch (error) {
    if (error instanceof Error && error.name === 'SignerError') throw error;
    return refuse('plan_unreadable', `${where}: the call's data does not decode as its function (${selector}).`);
  }
  if ((selector === SWEEP && call.data.length === 10) || (selector === SWEEP_TOKEN && call.data.length === 74)) {
    const delegate = delegated.get(call.target.toLowerCase());
    const token = selector === SWEEP_TOKEN ? ` of token ${getAddress(dataSlice(call.data, 16, 36))}` : '';
    // An address delegated by an earlier plan is swept without a new authorization (it signs once):
    // what runs there is the code it delegated to then, which the signer cannot see offline.
    return {
      transfers: [],
      sweeps: true,
      lines: [
        delegate
          ? `sweep${token} on ${call.target}, delegated to ${delegate}: the sweeper sends its whole balance to the destination fixed at its deployment`
          : `sweep${token} on ${call.target}, delegated by an earlier authorization: the sweeper sends its whole balance to the destination fixed at its deployment`,
      ],
      notes: delegate
        ? []
        : [
            `${where}: ${call.target} was delegated before this plan; the gas account only pays for the call, what moves is decided by the code delegated there.`,
          ],
    };
  }
  return refuse('unsupported', `${where}: a call to ${call.target} with data ${selector}… is none the signer knows (ERC-20 transfer, EIP-3009, sweep).`);
}

/** The sweeper the plan states (`sweeper_contract`), which every delegation it signs or carries must name. */
function statedSweeper(ctx: StepContext, delegate: string, where: string): void {
  const stated = ctx.plan.sweeper_contract;
  if (typeof stated !== 'string' || stated.length === 0)
    refuse('unsupported', `${where}: a delegation to ${delegate} in a plan that states no sweeper_contract; the signer delegates only to the plan's sweeper.`);
  if (!sameEvmAddress(delegate, evmAddress(stated, 'sweeper_contract')))
    refuse('plan_mismatch', `${where}: the delegation is to ${delegate}, not to the plan's sweeper ${getAddress(stated)}.`);
}

/**
 * A contract creation: signed only when it deploys the token sweeper, that is when its data is
 * exactly the signer's own copy of the sweeper's creation code followed by one ABI-encoded address
 * (the destination, which must be the plan's), from an operator account in a `sweeper_deployment`
 * plan. Returns the destination and the address the contract will have (CREATE: signer and nonce).
 */
function sweeperCreation(read: ReadStep, ctx: StepContext, tx: Transaction, signerAddress: string, where: string): { destination: string; contract: string } {
  if (ctx.plan.method !== 'sweeper_deployment')
    refuse(
      'unsupported',
      `${where}: a contract creation in a ${ctx.plan.method} plan; the signer deploys only the token sweeper, in a sweeper_deployment plan.`,
    );
  if (read.step.signer.kind !== 'operator') refuse('unsupported', `${where}: the sweeper is deployed from an operator account, not a deposit address.`);
  if (tx.type !== 2) refuse('unsupported', `${where}: a contract creation of type ${tx.type}.`);
  if (tx.value !== 0n) refuse('unsupported', `${where}: a contract creation that sends ${tx.value} ${ctx.chain.native.id}; the sweeper's takes none.`);
  const data = tx.data.toLowerCase();
  if (!data.startsWith(TOKEN_SWEEPER_CREATION_CODE))
    refuse('unsupported', `${where}: a contract creation whose code is not the token sweeper's (the only contract the signer deploys).`);
  const argument = data.slice(TOKEN_SWEEPER_CREATION_CODE.length);
  if (!/^0{24}[0-9a-f]{40}$/.test(argument))
    refuse(
      'unsupported',
      `${where}: the sweeper's creation code is followed by ${argument.length / 2} bytes, not by one ABI-encoded address (32 bytes) alone.`,
    );
  const destination = getAddress(`0x${argument.slice(24)}`);
  if (!sameEvmAddress(destination, ctx.plan.destination))
    refuse('plan_mismatch', `${where}: the sweeper would send to ${destination}; the plan's destination is ${ctx.plan.destination}.`);
  const contract = getCreateAddress({ from: signerAddress, nonce: tx.nonce });
  if (ctx.plan.sweeper_contract && !sameEvmAddress(contract, evmAddress(ctx.plan.sweeper_contract, 'sweeper_contract')))
    refuse('plan_mismatch', `${where}: the contract will be at ${contract}; the plan says ${ctx.plan.sweeper_contract}.`);
  return { destination, contract };
}

/** Reads, checks and prepares the signing of an `evm-tx` step: an unsigned EIP-1559 (type 2) or EIP-7702 (type 4) transaction. */
function evmTransaction(read: ReadStep, ctx: StepContext, key: SigningKey, signerAddress: string, where: string): Omit<CheckedStep, 'signer'> {
  const hex = read.step.unsigned.data;
  let tx: Transaction;
  try {
    if (!isHexString(hex)) throw new Error('not hex');
    tx = Transaction.from(hex);
  } catch {
    return refuse('plan_unreadable', `${where}: unsigned.data is not a serialized EVM transaction.`);
  }
  if (tx.signature !== null) refuse('plan_unreadable', `${where}: the transaction is already signed.`);
  if (tx.type !== 2 && tx.type !== 4)
    refuse('unsupported', `${where}: transaction type ${tx.type}; the signer signs EIP-1559 (2) and EIP-7702 (4) transactions.`);
  if (tx.unsignedSerialized.toLowerCase() !== hex.toLowerCase()) refuse('plan_unreadable', `${where}: the transaction is not in its canonical encoding.`);
  if (tx.chainId !== BigInt(ctx.plan.evm_chain_id ?? -1))
    refuse('wrong_network', `${where}: the transaction is for chain id ${tx.chainId}; the plan is for ${ctx.plan.evm_chain_id}.`);
  if (tx.accessList && tx.accessList.length > 0) refuse('unsupported', `${where}: the transaction carries an access list.`);
  checkNonce(read, BigInt(tx.nonce), where);
  const maxFee = tx.gasLimit * (tx.maxFeePerGas ?? 0n);
  if (maxFee !== read.feeUnits)
    refuse('fee_mismatch', `${where}: the summary says a fee of at most ${read.feeUnits}; gas limit × max fee per gas is ${maxFee}.`);

  const details = [
    `chain id ${tx.chainId}, nonce ${tx.nonce}, type ${tx.type}`,
    `gas limit ${tx.gasLimit} × max fee ${tx.maxFeePerGas} wei (priority ${tx.maxPriorityFeePerGas}) = at most ${maxFee} wei`,
  ];
  const notes: string[] = [];
  if (tx.to === null) {
    const { destination, contract } = sweeperCreation(read, ctx, tx, signerAddress, where);
    checkMoves(read, [], where);
    checkTo(read, [contract], sameEvmAddress, where);
    details.push(
      `creates a contract at ${contract} (the address of ${signerAddress} at nonce ${tx.nonce})`,
      `its code: the token sweeper (${(TOKEN_SWEEPER_CREATION_CODE.length - 2) / 2} bytes of creation code, equal to the signer's own copy) with destination ${destination}`,
    );
    return checkedStep(read, {
      transfers: [],
      details,
      notes: [`${where}: the sweeper's destination is fixed for good; use ${contract} as the sweeper of eip7702 plans to ${destination} once this is mined.`],
      feeUnits: maxFee,
      sweeperDeployment: { destination, contract },
      sign: () => {
        const signed = tx.clone();
        signed.signature = key.sign(tx.unsignedHash);
        return signed.serialized;
      },
    });
  }
  const delegated = new Map<string, string>();
  for (const [i, auth] of (tx.authorizationList ?? []).entries()) {
    // Carried, not signed here: who signed each is recovered and shown.
    const authority = recoverAuthority(auth);
    if (authority === null) refuse('plan_unreadable', `${where}: carried authorization #${i} has no valid signature.`);
    if (auth.chainId !== tx.chainId) refuse('wrong_network', `${where}: carried authorization #${i} is for chain id ${auth.chainId}, not ${tx.chainId}.`);
    statedSweeper(ctx, getAddress(auth.address), `${where}: carried authorization #${i}`);
    delegated.set(authority.toLowerCase(), getAddress(auth.address));
    details.push(`carries the EIP-7702 authorization of ${authority} (nonce ${auth.nonce}) delegating to ${getAddress(auth.address)}`);
  }

  const transfers: StepTransfer[] = [];
  // A sweeper call moves the whole token balance, which the transaction does not fix: not compared with the summary.
  const unfixed = new Set<string>();
  const target = getAddress(tx.to);
  const candidates = [target];
  if (tx.data === '0x') {
    if (tx.type === 4) refuse('unsupported', `${where}: an EIP-7702 transaction without a call.`);
    transfers.push({ to: target, coin: ctx.chain.native.id, units: tx.value });
  } else {
    if (tx.value !== 0n) refuse('unsupported', `${where}: a transaction that sends ${ctx.chain.native.id} with a call.`);
    const selector = tx.data.slice(0, 10).toLowerCase();
    let calls: Call[];
    if (selector === AGGREGATE3) {
      let decoded: [string, boolean, string][];
      try {
        [decoded] = abi.decode(['(address,bool,bytes)[]'], dataSlice(tx.data, 4)) as unknown as [[string, boolean, string][]];
      } catch {
        return refuse('plan_unreadable', `${where}: the Multicall3 aggregate3 call does not decode.`);
      }
      details.push(`Multicall3 aggregate3 on ${target}, ${decoded.length} calls:`);
      calls = decoded.map(([callTarget, allowFailure, data]) => {
        if (allowFailure) notes.push(`${where}: a call to ${getAddress(callTarget)} may fail without failing the batch (allowFailure).`);
        return { target: getAddress(callTarget), value: 0n, data };
      });
    } else calls = [{ target, value: 0n, data: tx.data }];
    calls.forEach((call, i) => {
      const read = readCall(call, ctx, delegated, `${where}${calls.length > 1 || selector === AGGREGATE3 ? ` call #${i}` : ''}`);
      transfers.push(...read.transfers);
      details.push(...read.lines.map((line) => (selector === AGGREGATE3 ? `  #${i} ${line}` : line)));
      notes.push(...read.notes);
      if (read.sweeps) unfixed.add(ctx.plan.coin);
      candidates.push(call.target);
    });
  }
  candidates.push(...transfers.map((t) => t.to));
  // A sweep sends to the destination fixed in the sweeper, which the calldata does not name: the plan's destination is where it goes.
  if (unfixed.size > 0) candidates.push(ctx.plan.destination);
  checkMoves(read, transfers, where, unfixed);
  checkTo(read, candidates, sameEvmAddress, where);
  return checkedStep(read, {
    transfers,
    details,
    notes,
    feeUnits: maxFee,
    sign: () => {
      const signed = tx.clone();
      signed.signature = key.sign(tx.unsignedHash);
      return signed.serialized;
    },
  });
}

function recoverAuthority(auth: NonNullable<Transaction['authorizationList']>[number]): string | null {
  try {
    // keccak256(0x05 || rlp([chain_id, address, nonce])), recovered by ethers.
    return getAddress(verifyAuthorization({ address: auth.address, nonce: auth.nonce, chainId: auth.chainId }, auth.signature));
  } catch {
    return null;
  }
}

function jsonOf(read: ReadStep, where: string): Record<string, unknown> {
  try {
    const value = JSON.parse(read.step.unsigned.data) as unknown;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // refused below
  }
  return refuse('plan_unreadable', `${where}: unsigned.data must be a JSON object.`);
}

function integer(value: unknown, where: string): bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === 'string' && /^(?:0|[1-9]\d{0,77}|0x[0-9a-fA-F]{1,64})$/.test(value)) return BigInt(value);
  return refuse('plan_unreadable', `${where} must be a whole number.`);
}

/** An `evm-7702-authorization` step: `{chainId, address, nonce}`, signed over keccak256(0x05 || rlp([chainId, address, nonce])). */
function evm7702(read: ReadStep, ctx: StepContext, key: SigningKey, where: string): Omit<CheckedStep, 'signer'> {
  const json = jsonOf(read, where);
  const chainId = integer(json['chainId'], `${where}: chainId`);
  const nonce = integer(json['nonce'], `${where}: nonce`);
  const address = evmAddress(json['address'], `${where}: address`);
  if (Object.keys(json).some((k) => !['chainId', 'address', 'nonce'].includes(k)))
    refuse('plan_unreadable', `${where}: the authorization has fields beyond chainId, address and nonce.`);
  // Chain id 0 would let the delegation be used on every chain.
  if (chainId !== BigInt(ctx.plan.evm_chain_id ?? -1))
    refuse('wrong_network', `${where}: the authorization is for chain id ${chainId}; the plan is for ${ctx.plan.evm_chain_id}.`);
  checkNonce(read, nonce, where);
  statedSweeper(ctx, address, where);
  checkTo(read, [address], sameEvmAddress, where);
  return checkedStep(read, {
    transfers: [],
    details: [
      `EIP-7702 authorization: delegates this address to contract ${address} (chain id ${chainId}, nonce ${nonce})`,
      `  the plan's sweeper; the signer cannot read the chain: check it is the address it showed when it signed the sweeper's deployment`,
    ],
    notes: [
      `${where}: the delegated code runs as this address until it is replaced; the sweeper's only act is sending its token balance to the destination fixed at its deployment. Check that ${address} is the sweeper you deployed.`,
    ],
    feeUnits: null,
    sign: () => key.sign(hashAuthorization({ address, nonce, chainId })).serialized,
  });
}

/** An `evm-3009-authorization` step: EIP-712 typed data `{domain, types, message}` of `TransferWithAuthorization`. */
function evm3009(read: ReadStep, ctx: StepContext, key: SigningKey, signerAddress: string, where: string): Omit<CheckedStep, 'signer'> {
  const json = jsonOf(read, where);
  const domain = json['domain'] as Record<string, unknown>;
  const types = json['types'] as Record<string, unknown>;
  const message = json['message'] as Record<string, unknown>;
  if (typeof domain !== 'object' || domain === null || typeof types !== 'object' || types === null || typeof message !== 'object' || message === null) {
    refuse('plan_unreadable', `${where}: the typed data must have domain, types and message.`);
  }
  const primary = Object.keys(types).filter((name) => name !== 'EIP712Domain');
  if (
    primary.length !== 1 ||
    primary[0] !== 'TransferWithAuthorization' ||
    JSON.stringify(types['TransferWithAuthorization']) !== JSON.stringify(TRANSFER_WITH_AUTHORIZATION_TYPE)
  ) {
    refuse('unsupported', `${where}: the typed data is not EIP-3009 TransferWithAuthorization(from, to, value, validAfter, validBefore, nonce).`);
  }
  const chainId = integer(domain['chainId'], `${where}: domain.chainId`);
  if (chainId !== BigInt(ctx.plan.evm_chain_id ?? -1))
    refuse('wrong_network', `${where}: the typed data is for chain id ${chainId}; the plan is for ${ctx.plan.evm_chain_id}.`);
  const contract = evmAddress(domain['verifyingContract'], `${where}: domain.verifyingContract`);
  const from = evmAddress(message['from'], `${where}: message.from`);
  const to = evmAddress(message['to'], `${where}: message.to`);
  const value = integer(message['value'], `${where}: message.value`);
  const validAfter = integer(message['validAfter'], `${where}: message.validAfter`);
  const validBefore = integer(message['validBefore'], `${where}: message.validBefore`);
  if (typeof message['nonce'] !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(message['nonce']))
    refuse('plan_unreadable', `${where}: message.nonce must be 32 bytes of hex.`);
  if (!sameEvmAddress(from, signerAddress)) refuse('plan_mismatch', `${where}: the authorization moves tokens of ${from}, not of its signer ${signerAddress}.`);
  if (read.nonce !== null && read.nonce !== BigInt(message['nonce'])) refuse('plan_mismatch', `${where}: the summary's nonce is not the authorization's.`);
  const unknown = Object.keys(domain).filter((k) => !['name', 'version', 'chainId', 'verifyingContract', 'salt'].includes(k));
  if (unknown.length > 0) refuse('plan_unreadable', `${where}: the EIP-712 domain has fields ${unknown.join(', ')}, which are not EIP-712's.`);
  const domainFields = domain;
  const typedTypes = { TransferWithAuthorization: TRANSFER_WITH_AUTHORIZATION_TYPE };
  const typedMessage = { from, to, value, validAfter, validBefore, nonce: message['nonce'] };
  let hash: string;
  try {
    hash = TypedDataEncoder.hash(domainFields, typedTypes, typedMessage);
  } catch {
    return refuse('plan_unreadable', `${where}: the typed data does not encode (EIP-712).`);
  }
  const transfers: StepTransfer[] = [{ to, coin: tokenCoin(ctx, where, contract), units: value, contract }];
  checkMoves(read, transfers, where);
  checkTo(read, [to], sameEvmAddress, where);
  const now = BigInt(Math.floor(Date.now() / 1000));
  return checkedStep(read, {
    transfers,
    details: [
      `EIP-3009 transferWithAuthorization of token ${contract} (${String(domain['name'] ?? '?')} version ${String(domain['version'] ?? '?')}, chain id ${chainId})`,
      `from ${from}, valid after ${timeOf(validAfter)}, before ${timeOf(validBefore)}, nonce ${message['nonce']}`,
    ],
    notes: validBefore <= now ? [`${where}: the authorization expired at ${timeOf(validBefore)}; the token will refuse it.`] : [],
    feeUnits: null,
    sign: () => key.sign(hash).serialized,
  });
}

/** Reads an EVM step (`evm-tx`, `evm-7702-authorization`, `evm-3009-authorization`) after its signer's key was checked. */
export function checkEvmStep(read: ReadStep, ctx: StepContext, key: SigningKey, signerAddress: string): Omit<CheckedStep, 'signer'> {
  const where = ctx.where;
  switch (read.step.unsigned.format) {
    case 'evm-tx':
      return evmTransaction(read, ctx, key, signerAddress, where);
    case 'evm-7702-authorization':
      return evm7702(read, ctx, key, where);
    case 'evm-3009-authorization':
      return evm3009(read, ctx, key, signerAddress, where);
    default:
      return refuse('plan_unreadable', `${where}: ${read.step.unsigned.format} is no EVM format.`);
  }
}
