import { Address, beginCell, Cell, external, loadMessage, storeMessage, storeStateInit, type Message } from '@ton/core';
import { signVerify } from '@ton/crypto';
import { treasuryChainErrors, type AccountStep, type NetworkKind, type VerifiedStep } from '@gw/chain-api';
import { tonWalletAddress } from '../derive.js';
import { decodeStepData } from './ton-step-data.js';
import { signatureOver } from './signed-payload.js';

/**
 * Checks that `signed` (an external-in message BOC, base64) is exactly `step` signed by the one key:
 * addressed to the step's subwallet, carrying the StateInit the step planned (and only then), with
 * a body that is the step's signing payload followed by an ed25519 signature of the payload's hash
 * that verifies under the public key the subwallet's address commits to. Returns the message
 * re-serialized canonically; its cell hash (hex) is the txid toncenter finds its transaction by.
 */
export function verifySignedExternal(step: AccountStep, signed: string, network: NetworkKind): VerifiedStep {
  if (step.unsigned.format !== 'ton-external') throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id} is not a TON external.` });
  const data = decodeStepData(step.unsigned.data);
  const publicKey = Buffer.from(data.public_key, 'hex');
  const wallet = tonWalletAddress(publicKey, network, data.subwallet);
  const signer = step.signer.kind === 'deposit' ? step.signer.address : step.signer.account.address;
  if (!wallet.equals(Address.parse(data.wallet)) || !wallet.equals(Address.parse(signer))) {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: its subwallet is not ${signer} of the plan's key.` });
  }
  if (step.signer.kind === 'deposit' && step.signer.key.canonical !== data.public_key) {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: the public key is not the source's key.` });
  }

  let message: Message;
  try {
    const text = signed.trim();
    if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new Error('not base64');
    message = loadMessage(Cell.fromBase64(text).beginParse());
  } catch (cause) {
    throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: not a TON message BOC (base64).`, cause });
  }
  if (message.info.type !== 'external-in') throw treasuryChainErrors.treasury_signed_unreadable({ message: `Step ${step.id}: not an external-in message.` });
  if (!message.info.dest.equals(wallet)) {
    throw treasuryChainErrors.treasury_signed_mismatch({ message: `Step ${step.id}: the external is addressed to another wallet.` });
  }
  const plannedInit = data.state_init === null ? null : Cell.fromBase64(data.state_init);
  const givenInit = message.init ? beginCell().store(storeStateInit(message.init)).endCell() : null;
  if ((plannedInit === null) !== (givenInit === null) || (plannedInit && givenInit && !plannedInit.hash().equals(givenInit.hash()))) {
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: plannedInit
        ? `Step ${step.id}: the external must carry the StateInit that deploys the subwallet, as planned.`
        : `Step ${step.id}: the external carries a StateInit the plan did not.`,
    });
  }

  const payload = data.payloadCell;
  const signature = signatureOver(message.body, payload);
  if (!signature) {
    throw treasuryChainErrors.treasury_signed_mismatch({
      message: `Step ${step.id}: the signed request differs from the plan (a message, amount, seqno or validity).`,
    });
  }
  if (!signVerify(payload.hash(), signature, publicKey)) {
    throw treasuryChainErrors.treasury_signed_incomplete({ message: `Step ${step.id}: the signature is not by the subwallet's key.` });
  }

  const canonical = beginCell()
    .store(storeMessage(external({ to: wallet, init: message.init ?? undefined, body: message.body })))
    .endCell();
  return { kind: 'transaction', stepId: step.id, tx: { txid: canonical.hash().toString('hex'), hex: canonical.toBoc().toString('hex') } };
}
