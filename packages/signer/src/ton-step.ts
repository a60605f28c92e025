import { Address, beginCell, Cell, contractAddress, external, loadOutList, storeMessage, type Slice, type StateInit } from '@ton/core';
import { sign } from '@ton/crypto';
import type { ReadStep } from './account-plan.js';
import { checkedStep, checkMoves, checkNonce, checkTo, timeOf, tokenCoin, type CheckedStep, type StepContext, type StepTransfer } from './account-step.js';
import { refuse } from './signer-error.js';

/**
 * The V5R1 (W5) wallet code, as `@ton/ton`'s `WalletContractV5R1` and the wallet apps deploy it
 * (ton-blockchain/wallet-contract-v5 build, commit 4fab977); `ton-step.test.ts` checks that the
 * addresses computed here are `@ton/ton`'s.
 */
const V5R1_CODE = Cell.fromBoc(
  Buffer.from(
    'b5ee9c7241021401000281000114ff00f4a413f4bcf2c80b01020120020d020148030402dcd020d749c120915b8f6320d70b1f2082106578746ebd21821073696e74bdb0925f03e082106578746eba8eb48020d72101d074d721fa4030fa44f828fa443058bd915be0ed44d0810141d721f4058307f40e6fa1319130e18040d721707fdb3ce03120d749810280b99130e070e2100f020120050c020120060902016e07080019adce76a2684020eb90eb85ffc00019af1df6a2684010eb90eb858fc00201480a0b0017b325fb51341c75c875c2c7e00011b262fb513435c280200019be5f0f6a2684080a0eb90fa02c0102f20e011e20d70b1f82107369676ebaf2e08a7f0f01e68ef0eda2edfb218308d722028308d723208020d721d31fd31fd31fed44d0d200d31f20d31fd3ffd70a000af90140ccf9109a28945f0adb31e1f2c087df02b35007b0f2d0845125baf2e0855036baf2e086f823bbf2d0882292f800de01a47fc8ca00cb1f01cf16c9ed542092f80fde70db3cd81003f6eda2edfb02f404216e926c218e4c0221d73930709421c700b38e2d01d72820761e436c20d749c008f2e09320d74ac002f2e09320d71d06c712c2005230b0f2d089d74cd7393001a4e86c128407bbf2e093d74ac000f2e093ed55e2d20001c000915be0ebd72c08142091709601d72c081c12e25210b1e30f20d74a111213009601fa4001fa44f828fa443058baf2e091ed44d0810141d718f405049d7fc8ca0040048307f453f2e08b8e14038307f45bf2e08c22d70a00216e01b3b0f2d090e2c85003cf1612f400c9ed54007230d72c08248e2d21f2e092d200ed44d0d2005113baf2d08f54503091319c01810140d721d70a00f2e08ee2c8ca0058cf16c9ed5493f2c08de20010935bdb31e1d74cd0b4d6c35e',
    'hex',
  ),
)[0]!;

const AUTH_SIGNED_EXTERNAL = 0x7369676e;
const JETTON_TRANSFER = 0x0f8a7ea5;
const TEXT_COMMENT = 0;

/** The V5R1 wallet id of a subwallet: the client context (workchain 0, version v5r1) XOR the network's global id. */
export function v5r1WalletId(globalId: number, subwallet: number): number {
  const context = beginCell().storeUint(1, 1).storeInt(0, 8).storeUint(0, 8).storeUint(subwallet, 15).endCell().beginParse().loadInt(32);
  return globalId ^ context;
}

/** The V5R1 wallet of `publicKey` at `subwallet` on the network of `globalId`: its address and state init. */
export function v5r1Wallet(publicKey: Buffer, globalId: number, subwallet: number): { address: Address; init: StateInit } {
  const data = beginCell()
    .storeUint(1, 1) // signature auth allowed
    .storeUint(0, 32) // seqno
    .storeInt(v5r1WalletId(globalId, subwallet), 32)
    .storeBuffer(publicKey, 32)
    .storeBit(0) // no extensions
    .endCell();
  const init = { code: V5R1_CODE, data };
  return { address: contractAddress(0, init), init };
}

export function parseTonAddress(text: string): Address | null {
  try {
    return Address.parse(text);
  } catch {
    return null;
  }
}

export const sameTonAddress = (a: string, b: string): boolean => {
  const x = parseTonAddress(a);
  const y = parseTonAddress(b);
  return x !== null && y !== null && x.equals(y);
};

/** User-friendly, url-safe, non-bounceable (as chains/ton writes addresses); testOnly on test networks. */
export function formatTon(address: Address, testnet: boolean): string {
  return address.toString({ urlSafe: true, bounceable: false, testOnly: testnet });
}

/** What a `ton-external` step's JSON data states about its jetton transfer: the jetton master and the sending subwallet's jetton wallet under it. */
interface StatedJetton {
  readonly master: string;
  readonly wallet: string;
}

/**
 * The unsigned V5R1 payload of a `ton-external` step: a BOC in base64, or JSON `{"payload"|"boc"|"body": base64,
 * "subwallet": n, "jetton_master"?: address, "jetton_wallet"?: address}`.
 */
function payloadOf(data: string, where: string): { cell: Cell; subwallet: number | null; jetton: StatedJetton | null } {
  let boc = data;
  let subwallet: number | null = null;
  let jetton: StatedJetton | null = null;
  if (data.trimStart().startsWith('{')) {
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return refuse('plan_unreadable', `${where}: unsigned.data is neither a BOC nor JSON.`);
    }
    const text = json['payload'] ?? json['boc'] ?? json['body'];
    if (typeof text !== 'string') refuse('plan_unreadable', `${where}: unsigned.data's JSON must carry the payload BOC (base64) in "payload".`);
    boc = text;
    if (json['subwallet'] !== undefined) {
      if (typeof json['subwallet'] !== 'number' || !Number.isInteger(json['subwallet']))
        refuse('plan_unreadable', `${where}: subwallet must be a whole number.`);
      subwallet = json['subwallet'];
    }
    const master = json['jetton_master'];
    const wallet = json['jetton_wallet'];
    if (master !== undefined || wallet !== undefined) {
      if (typeof master !== 'string' || parseTonAddress(master) === null || typeof wallet !== 'string' || parseTonAddress(wallet) === null)
        refuse('plan_unreadable', `${where}: jetton_master and jetton_wallet must both be TON addresses.`);
      jetton = { master, wallet };
    }
  }
  try {
    const cells = Cell.fromBoc(Buffer.from(boc, 'base64'));
    if (cells.length !== 1) throw new Error('roots');
    return { cell: cells[0]!, subwallet, jetton };
  } catch {
    return refuse('plan_unreadable', `${where}: the payload is not a BOC of one cell (base64).`);
  }
}

/**
 * What one out message does. Every message's TON is a native transfer to where the message goes
 * (its value, or the whole balance under mode 128), whatever its body: a jetton transfer also pays
 * TON to its jetton wallet, and the jetton wallet returns the excess to `response_destination`.
 */
function readMessage(
  body: Cell,
  ctx: StepContext,
  dest: Address,
  value: bigint | null,
  jetton: StatedJetton | null,
  testnet: boolean,
  where: string,
): { transfers: StepTransfer[]; line: string; jettonWallet: boolean } {
  const slice = body.beginParse();
  const destText = formatTon(dest, testnet);
  const tonText = value === null ? 'the whole balance of the wallet' : `${value} nanoton`;
  const native: StepTransfer = { to: destText, coin: ctx.chain.native.id, units: value };
  if (slice.remainingBits === 0 && slice.remainingRefs === 0) return { transfers: [native], line: `${tonText} to ${destText}`, jettonWallet: false };
  const op = slice.remainingBits >= 32 ? slice.loadUint(32) : -1;
  if (op === TEXT_COMMENT) {
    let comment: string;
    try {
      comment = slice.loadStringTail();
    } catch {
      return refuse('plan_unreadable', `${where}: a text comment that does not decode.`);
    }
    return { transfers: [native], line: `${tonText} to ${destText}, comment ${JSON.stringify(comment)}`, jettonWallet: false };
  }
  if (op === JETTON_TRANSFER) {
    let amount: bigint, to: Address, response: Address | null, forward: bigint;
    try {
      slice.loadUintBig(64); // query id
      amount = slice.loadCoins();
      to = slice.loadAddress();
      response = slice.loadMaybeAddress();
      if (slice.loadMaybeRef() !== null) refuse('unsupported', `${where}: a jetton transfer with a custom payload.`);
      forward = slice.loadCoins();
    } catch (error) {
      if (error instanceof Error && error.name === 'SignerError') throw error;
      return refuse('plan_unreadable', `${where}: a jetton transfer body that does not decode.`);
    }
    // A jetton wallet's address is computed from its master's wallet code, which differs between
    // jettons and is not in the plan: the plan states it (and its master), and the review shows it
    // as stated, EXTERNAL, with the TON it receives.
    if (jetton === null)
      refuse(
        'unsupported',
        `${where}: a jetton transfer whose step does not state its jetton_master and jetton_wallet; the signer cannot tell where the TON it carries goes.`,
      );
    if (!ctx.sameAddress(jetton.wallet, destText))
      refuse('plan_mismatch', `${where}: the jetton transfer goes to ${destText}; the step states the jetton wallet ${jetton.wallet}.`);
    const coin = tokenCoin(ctx, where, jetton.master);
    const recipient = formatTon(to, testnet);
    const transfers: StepTransfer[] = [
      { to: recipient, coin, units: amount, contract: destText },
      { ...native, role: `attached to the jetton wallet of master ${jetton.master} (as the plan states; not computable offline)` },
    ];
    if (response !== null) {
      transfers.push({
        to: formatTon(response, testnet),
        coin: ctx.chain.native.id,
        units: value,
        upTo: true,
        role: 'the excess the jetton wallet returns (response_destination)',
      });
    }
    return {
      transfers,
      jettonWallet: true,
      line:
        `jetton transfer of ${amount} units to ${recipient} through the jetton wallet ${destText} (stated for master ${jetton.master}), ` +
        `carrying ${tonText} for its fees, ${forward} forwarded, excess to ${response ? formatTon(response, testnet) : 'nobody'}`,
    };
  }
  return refuse('unsupported', `${where}: a message body with op 0x${op.toString(16)}; the signer signs plain transfers, comments and jetton transfers.`);
}

/** The modes a wallet message may have: pay fees separately (1), ignore errors (2), carry the remaining inbound value (64) or the whole balance (128). */
const ALLOWED_MODE_BITS = 1 | 2 | 64 | 128;

/**
 * Reads a `ton-external` step: the V5R1 signing payload (`auth_signed_external` op, wallet id,
 * valid until, seqno, the out actions; the signature is appended to it), whose cell hash the
 * subwallet's key signs.
 */
export function checkTonStep(
  read: ReadStep,
  ctx: StepContext,
  key: { publicKey: Buffer; secretKey: Buffer },
  subwallet: number,
  globalId: number,
  testnet: boolean,
): Omit<CheckedStep, 'signer'> {
  const where = ctx.where;
  const { cell, subwallet: stated, jetton } = payloadOf(read.step.unsigned.data, where);
  if (stated !== null && stated !== subwallet)
    refuse('plan_mismatch', `${where}: unsigned.data names subwallet ${stated}; the signer's path is subwallet ${subwallet}.`);
  const slice: Slice = cell.beginParse();
  let walletId: number, validUntil: number, seqno: number, actionsCell: Cell | null, extended: boolean;
  try {
    if (slice.loadUint(32) !== AUTH_SIGNED_EXTERNAL) refuse('unsupported', `${where}: the payload is not a V5R1 signed external request.`);
    walletId = slice.loadInt(32);
    validUntil = slice.loadUint(32);
    seqno = slice.loadUint(32);
    actionsCell = slice.loadMaybeRef();
    extended = slice.loadBit();
  } catch (error) {
    if (error instanceof Error && error.name === 'SignerError') throw error;
    return refuse('plan_unreadable', `${where}: the payload is not a V5R1 signing payload.`);
  }
  if (extended) refuse('unsupported', `${where}: extended actions (extensions, signature modes) are not something a plan does.`);
  if (slice.remainingBits !== 0 || slice.remainingRefs !== 0) refuse('plan_unreadable', `${where}: the payload has data after its actions.`);
  if (walletId !== v5r1WalletId(globalId, subwallet)) {
    refuse('wrong_network', `${where}: the payload's wallet id is not subwallet ${subwallet} on ${ctx.plan.network} (another network or subwallet).`);
  }
  checkNonce(read, BigInt(seqno), where, 'seqno');
  let actions;
  try {
    actions = actionsCell ? loadOutList(actionsCell.beginParse()) : [];
  } catch {
    return refuse('plan_unreadable', `${where}: the payload's out actions do not decode.`);
  }
  if (actions.length === 0) refuse('unsupported', `${where}: the payload sends no message.`);
  const transfers: StepTransfer[] = [];
  const details = [`V5R1 subwallet ${subwallet}, seqno ${seqno}, valid until ${timeOf(BigInt(validUntil))}`];
  const unfixed = new Set<string>();
  const notes: string[] = [];
  for (const [i, action] of actions.entries()) {
    if (action.type !== 'sendMsg') refuse('unsupported', `${where}: out action ${action.type}; the signer signs messages only.`);
    const { info, body, init } = action.outMsg;
    if (info.type !== 'internal') refuse('unsupported', `${where}: an external out message.`);
    if (init) refuse('unsupported', `${where}: a message that deploys a contract.`);
    if (info.value.other && info.value.other.size > 0) refuse('unsupported', `${where}: a message carrying extra currencies.`);
    if ((action.mode & ~ALLOWED_MODE_BITS) !== 0) refuse('unsupported', `${where}: send mode ${action.mode} (it may destroy the wallet).`);
    const wholeBalance = (action.mode & 128) !== 0;
    const message = readMessage(body, ctx, info.dest, wholeBalance ? null : info.value.coins, jetton, testnet, `${where} message #${i}`);
    // The whole balance may go to the plan's destination (a native sweep) or to the jetton wallet the step states (a jetton sweep's gas).
    if (wholeBalance && !message.jettonWallet && !ctx.sameAddress(message.transfers[0]!.to, ctx.plan.destination))
      refuse(
        'plan_mismatch',
        `${where} message #${i}: sends the whole balance (mode ${action.mode}) to ${message.transfers[0]!.to}, which is not the plan's destination.`,
      );
    if (wholeBalance && !message.jettonWallet) unfixed.add(ctx.chain.native.id);
    transfers.push(...message.transfers);
    details.push(`  #${i} ${message.line} (mode ${action.mode}${info.bounce ? ', bounceable' : ''})`);
  }
  if (validUntil * 1000 <= Date.now()) notes.push(`${where}: the request expired at ${timeOf(BigInt(validUntil))}; the wallet will refuse it.`);
  checkMoves(read, transfers, where, unfixed);
  checkTo(
    read,
    transfers.flatMap((t) => [t.to, ...(t.contract ? [t.contract] : [])]),
    sameTonAddress,
    where,
  );
  const wallet = v5r1Wallet(key.publicKey, globalId, subwallet);
  return checkedStep(read, {
    transfers,
    details,
    notes,
    feeUnits: null,
    sign: () => {
      const signature = sign(cell.hash(), key.secretKey);
      const body = beginCell().storeSlice(cell.beginParse()).storeBuffer(signature).endCell();
      const message = external({ to: wallet.address, ...(seqno === 0 ? { init: wallet.init } : {}), body });
      return beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64');
    },
  });
}
