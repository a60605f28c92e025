/**
 * Why `gateway-signer` refuses. Each refusal has a stable code (printed as
 * `gateway-signer: refused (<code>): <message>`), exits non-zero and writes nothing.
 *
 * - `usage`: the command line is wrong (exit 2).
 * - `plan_unreadable`: the plan file is not a `gateway-treasury-plan` or
 *   `gateway-treasury-account-plan` version 1, or its embedded transaction cannot be decoded.
 * - `plan_mismatch`: the embedded transaction disagrees with the plan's summary (an input, an
 *   output, an amount, the transaction id, a key the PSBT names).
 * - `fee_mismatch`: the inputs minus the outputs are not the plan's `fee_units`.
 * - `input_value_missing`: a PSBT input carries no `witnessUtxo`, so its value cannot be checked.
 * - `input_key_mismatch`: the key derived for an input does not pay the input's address.
 * - `signer_key_mismatch`: the key derived from the secret at an account plan step's path is not
 *   the step's signer address.
 * - `own_output_mismatch`: an output the plan calls own does not derive from the seed.
 * - `wrong_network`: an address, key or path belongs to another network than the plan's.
 * - `wrong_key`: the secret is not the key of the plan's account (another seed, passphrase or
 *   account), or not a key of this chain.
 * - `secret_unreadable`: no secret was given, or it is neither a BIP 39 mnemonic nor an account
 *   private key.
 * - `unsupported`: the transaction does something this signer does not sign (another sighash
 *   type, native tokens, certificates, …).
 * - `not_confirmed`: the operator did not confirm, or could not be asked.
 * - `not_a_challenge`: the text to sign is not the gateway's wallet-ownership challenge.
 * - `output_exists`: the signed file's path exists (a file or a link) and `--force` was not given.
 */
export type SignerErrorCode =
  | 'usage'
  | 'plan_unreadable'
  | 'plan_mismatch'
  | 'fee_mismatch'
  | 'input_value_missing'
  | 'input_key_mismatch'
  | 'signer_key_mismatch'
  | 'own_output_mismatch'
  | 'wrong_network'
  | 'wrong_key'
  | 'secret_unreadable'
  | 'unsupported'
  | 'not_confirmed'
  | 'not_a_challenge'
  | 'output_exists';

export class SignerError extends Error {
  constructor(
    readonly code: SignerErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SignerError';
  }
}

/** Throws a {@link SignerError}. */
export function refuse(code: SignerErrorCode, message: string): never {
  throw new SignerError(code, message);
}
