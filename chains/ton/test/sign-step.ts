/**
 * Tests only: what an offline signer does with a TON step (format `ton-external`), kept pure and
 * small. It signs the payload's cell hash with the ed25519 secret key and wraps payload + signature
 * into the external-in message to the subwallet, with the StateInit when the step carries one.
 * A real signer also decodes the payload and checks it against the plan before signing.
 */
import { beginCell, Cell, external, loadStateInit, storeMessage } from '@ton/core';
import { sign } from '@ton/crypto';
import { Address } from '@ton/core';
import { decodeStepData } from '../src/treasury/ton-step-data.js';
import { v5r1SignedBody } from '../src/treasury/v5r1-request.js';

export function signTonStep(step: { readonly unsigned: { readonly data: string } }, secretKey: Buffer): string {
  const data = decodeStepData(step.unsigned.data);
  const signature = sign(data.payloadCell.hash(), secretKey);
  const init = data.state_init === null ? undefined : loadStateInit(Cell.fromBase64(data.state_init).beginParse());
  const message = external({ to: Address.parse(data.wallet), init, body: v5r1SignedBody(data.payloadCell, signature) });
  return beginCell().store(storeMessage(message)).endCell().toBoc().toString('base64');
}
