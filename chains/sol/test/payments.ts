/**
 * What a payer's wallet does, for the tests: Solana Pay transfers (System `Transfer`, SPL
 * `TransferChecked`) with the references appended as read-only accounts, exactly as
 * `@solana/pay`'s `createTransfer` builds them, signed with kit and executed by the local ledger.
 */
import {
  AccountRole,
  appendTransactionMessageInstructions,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  none,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  some,
  address,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type Transaction,
} from '@solana/kit';
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, getTransferSolInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstructionAsync,
  getMintEncoder,
  getMintToInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import nacl from 'tweetnacl';
import type { LiteSvmLedger } from './litesvm-rpc.js';

export const LAMPORTS_PER_SOL = 1_000_000_000n;

/** A funded key pair (what a payer's wallet holds). */
export async function fundedSigner(ledger: LiteSvmLedger, lamports = 10n * LAMPORTS_PER_SOL): Promise<KeyPairSigner> {
  const signer = await generateKeyPairSigner();
  ledger.svm.airdrop(signer.address, lamports as never);
  return signer;
}

/** A transaction of `instructions` paid and signed by `payer`, with the ledger's latest blockhash. */
export async function transaction(ledger: LiteSvmLedger, payer: KeyPairSigner, instructions: readonly Instruction[]): Promise<Transaction> {
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: ledger.latestBlockhash() as Blockhash, lastValidBlockHeight: BigInt(ledger.confirmedSlot + 150) },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  return signTransactionMessageWithSigners(message);
}

/** `ix` with `references` appended as read-only, non-signer accounts (Solana Pay). */
export function withReferences<T extends Instruction>(ix: T, references: readonly string[]): T {
  return { ...ix, accounts: [...(ix.accounts ?? []), ...references.map((r) => ({ address: address(r), role: AccountRole.READONLY }))] };
}

/** A Solana Pay SOL payment: System `Transfer` from `payer` to `recipient`, carrying `references`. */
export async function solPayment(
  ledger: LiteSvmLedger,
  payer: KeyPairSigner,
  recipient: string,
  lamports: bigint,
  references: readonly string[] = [],
): Promise<Transaction> {
  return transaction(ledger, payer, [
    withReferences(getTransferSolInstruction({ source: payer, destination: address(recipient), amount: lamports }), references),
  ]);
}

/**
 * Installs an SPL mint at `mint` (an address nobody holds the key of, Circle's devnet USDC in the
 * tests) with `authority` as mint authority: the ledger's account, as the real mint's data is laid out.
 */
export function installMint(ledger: LiteSvmLedger, mint: string, authority: Address, decimals: number): void {
  const data = new Uint8Array(getMintEncoder().encode({ mintAuthority: some(authority), supply: 0n, decimals, isInitialized: true, freezeAuthority: none() }));
  ledger.svm.setAccount({
    address: address(mint),
    data,
    executable: false,
    lamports: 1_461_600n as never,
    programAddress: TOKEN_PROGRAM_ADDRESS,
    space: BigInt(data.length),
  } as never);
}

/** The associated token account of `owner` for `mint`. */
export async function ata(owner: string, mint: string): Promise<Address> {
  return (await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
}

/** Creates `owner`'s associated token account (paid by `payer`) and mints `amount` into it. */
export async function mintTo(ledger: LiteSvmLedger, authority: KeyPairSigner, mint: string, owner: string, amount: bigint): Promise<Address> {
  const account = await ata(owner, mint);
  const create = await getCreateAssociatedTokenIdempotentInstructionAsync({ payer: authority, owner: address(owner), mint: address(mint) });
  const mintTo = getMintToInstruction({ mint: address(mint), token: account, mintAuthority: authority, amount });
  ledger.send(await transaction(ledger, authority, [create, mintTo]));
  return account;
}

/** Creates `owner`'s associated token account for `mint`, paid by `payer`. */
export async function createAta(ledger: LiteSvmLedger, payer: KeyPairSigner, mint: string, owner: string): Promise<Address> {
  ledger.send(
    await transaction(ledger, payer, [await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: address(owner), mint: address(mint) })]),
  );
  return ata(owner, mint);
}

/**
 * A Solana Pay token payment: `TransferChecked` from the payer's associated account to
 * `destination` (the recipient's associated account, unless given), carrying `references`; the
 * wallet creates the recipient's account first when it is missing, as Phantom does.
 */
export async function tokenPayment(
  ledger: LiteSvmLedger,
  payer: KeyPairSigner,
  mint: string,
  recipient: string,
  amount: bigint,
  decimals: number,
  references: readonly string[] = [],
  destination?: Address,
): Promise<Transaction> {
  const source = await ata(payer.address, mint);
  const instructions: Instruction[] = [];
  if (destination === undefined) {
    instructions.push(await getCreateAssociatedTokenIdempotentInstructionAsync({ payer, owner: address(recipient), mint: address(mint) }));
    destination = await ata(recipient, mint);
  }
  instructions.push(
    withReferences(getTransferCheckedInstruction({ source, mint: address(mint), destination, authority: payer, amount, decimals }), references),
  );
  return transaction(ledger, payer, instructions);
}

/** A fresh address nobody is watched at (a stranger, a mint). */
export async function freshAddress(): Promise<string> {
  return (await generateKeyPairSigner()).address;
}

/**
 * A merchant's wallet as Phantom holds it: its address, and `signMessage` of a text's UTF-8 bytes
 * (tweetnacl, ed25519), base58-encoded as dapps send it.
 */
export function merchantWallet(): { address: string; signMessage(message: string): string } {
  const keys = nacl.sign.keyPair();
  const base58 = getBase58Decoder();
  return { address: base58.decode(keys.publicKey), signMessage: (message) => base58.decode(nacl.sign.detached(Buffer.from(message, 'utf8'), keys.secretKey)) };
}

/**
 * A durable nonce account whose authority is `authority` (System `CreateAccount` of 80 bytes,
 * rent-exempt, then `InitializeNonceAccount`), paid by `payer`: what `solana create-nonce-account` makes.
 */
export async function createNonceAccount(ledger: LiteSvmLedger, payer: KeyPairSigner, authority: string): Promise<string> {
  const account = await generateKeyPairSigner();
  const create = getCreateAccountInstruction({
    payer,
    newAccount: account,
    lamports: ledger.svm.minimumBalanceForRentExemption(80n),
    space: 80,
    programAddress: SYSTEM_PROGRAM_ADDRESS,
  });
  const init = getInitializeNonceAccountInstruction({ nonceAccount: account.address, nonceAuthority: address(authority) });
  ledger.send(await transaction(ledger, payer, [create, init]));
  return account.address;
}
