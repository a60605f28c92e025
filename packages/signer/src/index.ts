export { runSigner, USAGE } from './cli.js';
export { SignerError, type SignerErrorCode } from './signer-error.js';
export type { SignerIo } from './terminal.js';
