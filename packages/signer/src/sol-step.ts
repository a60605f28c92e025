import { isOffCurveAddress, type Address } from '@solana/addresses';
import { getBase58Decoder, getBase58Encoder } from '@solana/codecs-strings';
import { getCompiledTransactionMessageDecoder, type CompiledTransactionMessage } from '@solana/transaction-messages';
import { sign } from '@ton/crypto';
import { sha256 } from 'ethers/crypto';
import { getBytes } from 'ethers/utils';
import type { ReadStep } from './account-plan.js';
import { checkedStep, checkMoves, checkTo, tokenCoin, type CheckedStep, type StepContext, type StepTransfer } from './account-step.js';
import { refuse } from './signer-error.js';

/**
 * Solana `sol-tx` steps (issue 43): the unsigned data is JSON `{"message": base64, "lifetime":
 * "blockhash", "last_valid_block_height": n}` or `{"message", "lifetime": "nonce", "nonce_account"}`
 * (packages/chain-api account-plan-file.ts). The message is decoded here, instruction by
 * instruction, and only what a payout does is signed: System `Transfer` from the signer,
 * `AdvanceNonceAccount` first in a nonce transaction, the Associated Token program's `Create` /
 * `CreateIdempotent` paid by the signer, and SPL Token `TransferChecked` from the signer's
 * associated account of a listed mint to the recipient's associated account. The signed form is
 * the wire transaction in base64 (one signature, the signer's, then the message bytes).
 */

const SYSTEM_PROGRAM = '11111111111111111111111111111111';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
const RECENT_BLOCKHASHES_SYSVAR = 'SysvarRecentB1ockHashes11111111111111111111';
const SYSTEM_TRANSFER = 2;
const SYSTEM_ADVANCE_NONCE = 4;
const TOKEN_TRANSFER_CHECKED = 12;
/** The base fee of one signature, lamports (the only fee a message without a compute-unit price pays). */
const SIGNATURE_FEE = 5_000n;

const base58 = getBase58Decoder();
const base58Bytes = getBase58Encoder();

/** The base58 address of an ed25519 public key. */
export function solAddressOf(publicKey: Uint8Array): string {
  return base58.decode(publicKey);
}

/** The associated token account of `owner` for `mint` (SPL Token): the program address of [owner, token program, mint] under the ATA program. */
export function associatedTokenAccount(owner: string, mint: string): string {
  const seeds = [owner, TOKEN_PROGRAM, mint].map((a) => Buffer.from(base58Bytes.encode(a)));
  for (let bump = 255; bump >= 0; bump--) {
    const hash = getBytes(
      sha256(Buffer.concat([...seeds, Buffer.from([bump]), Buffer.from(base58Bytes.encode(ASSOCIATED_TOKEN_PROGRAM)), Buffer.from('ProgramDerivedAddress')])),
    );
    const candidate = base58.decode(hash);
    if (isOffCurveAddress(candidate as Address)) return candidate;
  }
  return refuse('plan_unreadable', `no associated token account for ${owner} and ${mint}`);
}

interface SolData {
  readonly bytes: Uint8Array;
  readonly lifetime: 'blockhash' | 'nonce';
  readonly lastValidBlockHeight?: string;
  readonly nonceAccount?: string;
}

function dataOf(text: string, where: string): SolData {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return refuse('plan_unreadable', `${where}: unsigned.data is not the JSON of a sol-tx step.`);
  }
  if (typeof json['message'] !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(json['message'])) refuse('plan_unreadable', `${where}: message is not base64.`);
  const bytes = new Uint8Array(Buffer.from(json['message'] as string, 'base64'));
  if (json['lifetime'] === 'blockhash') {
    if (typeof json['last_valid_block_height'] !== 'string' || !/^[0-9]+$/.test(json['last_valid_block_height']))
      refuse('plan_unreadable', `${where}: a blockhash step names its last_valid_block_height.`);
    return { bytes, lifetime: 'blockhash', lastValidBlockHeight: json['last_valid_block_height'] as string };
  }
  if (json['lifetime'] === 'nonce') {
    if (typeof json['nonce_account'] !== 'string') refuse('plan_unreadable', `${where}: a nonce step names its nonce_account.`);
    return { bytes, lifetime: 'nonce', nonceAccount: json['nonce_account'] as string };
  }
  return refuse('plan_unreadable', `${where}: lifetime must be "blockhash" or "nonce".`);
}

const u32 = (data: Uint8Array, at: number): number => new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(at, true);
const u64 = (data: Uint8Array, at: number): bigint => new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(at, true);

/** `1.250000000 SOL (1250000000 lamports)`. */
function sol(units: bigint): string {
  const digits = units.toString().padStart(10, '0');
  return `${digits.slice(0, -9)}.${digits.slice(-9)} SOL (${units} lamports)`;
}

export function checkSolStep(read: ReadStep, ctx: StepContext, key: { publicKey: Buffer; secretKey: Buffer }, signer: string): Omit<CheckedStep, 'signer'> {
  const where = ctx.where;
  const data = dataOf(read.step.unsigned.data, where);
  if (data.bytes[0] !== undefined && (data.bytes[0] & 0x80) !== 0) refuse('unsupported', `${where}: a versioned message; the signer signs legacy messages.`);
  let message: CompiledTransactionMessage;
  try {
    message = getCompiledTransactionMessageDecoder().decode(data.bytes) as CompiledTransactionMessage;
  } catch {
    return refuse('plan_unreadable', `${where}: the message does not decode.`);
  }
  if (message.version !== 'legacy' || !('instructions' in message)) refuse('unsupported', `${where}: a versioned message; the signer signs legacy messages.`);
  const keys = message.staticAccounts as readonly string[];
  if (message.header.numSignerAccounts !== 1 || keys[0] !== signer)
    refuse(
      'plan_mismatch',
      `${where}: the message's fee payer and only signer must be ${signer}; it is ${keys[0] ?? 'nobody'} with ${message.header.numSignerAccounts} signers.`,
    );
  const blockhash = 'lifetimeToken' in message ? String(message.lifetimeToken) : '';
  const account = (ix: (typeof message.instructions)[number], n: number): string => {
    const index = ix.accountIndices?.[n];
    const found = index === undefined ? undefined : keys[index];
    if (found === undefined) refuse('plan_unreadable', `${where}: an instruction lacks its account #${n}.`);
    return found;
  };

  const transfers: StepTransfer[] = [];
  const details: string[] = [`fee payer ${signer} (the signer)`];
  const parties: { address: string; what: string }[] = [];
  const notes: string[] = [];
  const created = new Map<string, { owner: string; mint: string }>();
  // The base fee; the rent of a token account created is not a fee and is noted with the account.
  const feeUnits = SIGNATURE_FEE;
  if (data.lifetime === 'blockhash') {
    details.push(`recent blockhash ${blockhash}: lands only until block height ${data.lastValidBlockHeight} (about 60 to 90 s after the plan was made)`);
  }
  message.instructions.forEach((ix, i) => {
    const program = keys[ix.programAddressIndex];
    const bytes = new Uint8Array(ix.data ?? []);
    const at = `${where} instruction #${i}`;
    if (program === SYSTEM_PROGRAM && bytes.length >= 4 && u32(bytes, 0) === SYSTEM_ADVANCE_NONCE) {
      if (i !== 0 || data.lifetime !== 'nonce') refuse('plan_mismatch', `${at}: AdvanceNonceAccount outside the first instruction of a nonce step.`);
      if (account(ix, 0) !== data.nonceAccount)
        refuse('plan_mismatch', `${at}: it advances ${account(ix, 0)}, not the step's nonce account ${data.nonceAccount}.`);
      if (account(ix, 1) !== RECENT_BLOCKHASHES_SYSVAR || account(ix, 2) !== signer)
        refuse('plan_mismatch', `${at}: the nonce authority must be the signer ${signer}.`);
      details.push(`durable nonce ${blockhash} of the nonce account ${data.nonceAccount} (authority: the signer): lands until the nonce advances`);
      return;
    }
    if (program === SYSTEM_PROGRAM && bytes.length === 12 && u32(bytes, 0) === SYSTEM_TRANSFER) {
      if (account(ix, 0) !== signer) refuse('plan_mismatch', `${at}: a SOL transfer from ${account(ix, 0)}, not from the signer.`);
      const units = u64(bytes, 4);
      const to = account(ix, 1);
      if (ctx.plan.coin !== ctx.chain.native.id) refuse('plan_mismatch', `${at}: it sends SOL; the plan moves ${ctx.plan.coin}.`);
      transfers.push({ to, coin: ctx.chain.native.id, units });
      details.push(`#${i} System transfer of ${sol(units)} to ${to}`);
      return;
    }
    if (program === ASSOCIATED_TOKEN_PROGRAM && (bytes.length === 0 || (bytes.length === 1 && (bytes[0] === 0 || bytes[0] === 1)))) {
      const [payer, ata, owner, mint, system, token] = [0, 1, 2, 3, 4, 5].map((n) => account(ix, n));
      if (payer !== signer) refuse('plan_mismatch', `${at}: the token account's rent is paid by ${payer}, not the signer.`);
      if (system !== SYSTEM_PROGRAM || token !== TOKEN_PROGRAM) refuse('unsupported', `${at}: a token account of another token program.`);
      if (associatedTokenAccount(owner!, mint!) !== ata) refuse('plan_mismatch', `${at}: ${ata} is not the associated token account of ${owner} for ${mint}.`);
      created.set(ata!, { owner: owner!, mint: mint! });
      parties.push({
        address: owner!,
        what: `gets its token account ${ata} for mint ${mint}, created by this step (rent, about 0.00204 SOL, paid by the signer)`,
      });
      details.push(`#${i} creates ${owner}'s associated token account ${ata} for mint ${mint}${bytes[0] === 1 ? ' (if missing)' : ''}`);
      return;
    }
    if (program === TOKEN_PROGRAM && bytes.length === 10 && bytes[0] === TOKEN_TRANSFER_CHECKED) {
      const [source, mint, destination, authority] = [0, 1, 2, 3].map((n) => account(ix, n));
      if ((ix.accountIndices?.length ?? 0) !== 4) refuse('unsupported', `${at}: a multisignature token transfer.`);
      if (authority !== signer) refuse('plan_mismatch', `${at}: the token transfer's authority is ${authority}, not the signer.`);
      if (source !== associatedTokenAccount(signer, mint!)) refuse('plan_mismatch', `${at}: it spends ${source}, not the signer's associated token account.`);
      const coin = tokenCoin(ctx, at, mint!);
      // The recipient is the owner of the destination account: the step's `to` when the destination is its associated account.
      const owner = created.get(destination!)?.owner ?? read.step.to;
      if (associatedTokenAccount(owner, mint!) !== destination)
        refuse('plan_mismatch', `${at}: the destination ${destination} is not the associated token account of ${owner} for the mint.`);
      const units = u64(bytes, 1);
      transfers.push({ to: owner, coin, units, contract: mint! });
      details.push(`#${i} token transfer of ${units} ${coin} base units (mint ${mint}, ${bytes[9]} decimals) to ${owner}'s token account ${destination}`);
      return;
    }
    refuse(
      'unsupported',
      `${at}: an instruction of ${program} the signer does not sign (a payout only transfers, creates token accounts, advances its nonce).`,
    );
  });
  if (data.lifetime === 'nonce' && !details.some((d) => d.startsWith('durable nonce')))
    refuse('plan_mismatch', `${where}: a nonce step must begin with AdvanceNonceAccount of ${data.nonceAccount}.`);
  checkMoves(read, transfers, where);
  checkTo(
    read,
    transfers.map((t) => t.to),
    ctx.sameAddress,
    where,
  );
  const signature = (): string => {
    const signed = sign(Buffer.from(data.bytes), key.secretKey);
    return Buffer.concat([Buffer.from([1]), signed, Buffer.from(data.bytes)]).toString('base64');
  };
  return checkedStep(read, { transfers, parties, details, notes, feeUnits, sign: signature });
}
