import CSL from '@emurgo/cardano-serialization-lib-nodejs';
import { treasuryChainErrors } from '@gw/chain-api';

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

function unreadable(why: string, cause?: unknown): never {
  throw treasuryChainErrors.treasury_signed_unreadable({
    message: `The signed file is not a Cardano transaction: ${why}.`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Reads what a signer gives back, in the forms Cardano tools write:
 * - a complete signed transaction, CBOR in hex (CSL, `gateway-signer`, most wallets' export);
 * - cardano-cli's text envelope of one (`{"type": "Tx ConwayEra", "cborHex": "84…"}`);
 * - a bare transaction witness set in hex, the answer of a CIP-30 wallet's `signTx`: it is put
 *   together with the plan's own body bytes.
 * The body's bytes are kept exactly as sent (`FixedTransaction`): its hash is the transaction id
 * the signatures cover, and re-encoding would change it.
 */
export function readSignedTransaction(signed: string, planBody: Uint8Array): CSL.FixedTransaction {
  let hex = signed.trim();
  if (hex.startsWith('{')) {
    let envelope: unknown;
    try {
      envelope = JSON.parse(hex);
    } catch (cause) {
      return unreadable('not JSON', cause);
    }
    const cbor = (envelope as { cborHex?: unknown } | null)?.cborHex;
    if (typeof cbor !== 'string') unreadable('a JSON file without cborHex');
    hex = (cbor as string).trim();
  }
  if (!HEX.test(hex)) unreadable('expected CBOR in hex');
  try {
    return CSL.FixedTransaction.from_hex(hex);
  } catch (transactionError) {
    try {
      CSL.TransactionWitnessSet.from_hex(hex);
      return CSL.FixedTransaction.new(planBody, Buffer.from(hex, 'hex'), true);
    } catch {
      return unreadable('neither a transaction nor a witness set', transactionError);
    }
  }
}
