import { CLI_ACTOR, defineCommand, ulidFlag } from '@gw/kernel';
import type { CliCommand, CliFlag, NetworkKind } from '@gw/kernel';
import { PREVIEW_MAX_COUNT, previewWallet } from './services/wallet-preview.js';

const projectFlag = ulidFlag('Project');
// Not a `choices` list: an unknown or disabled chain is reported by the chain registry as
// validation_error, the same answer every other entry point gives.
const chainFlag: CliFlag = {
  type: 'string',
  required: true,
  description: 'Chain id of an enabled chain (config chains.enabled; by default btc, eth, tron, ada, polygon, bsc, ton).',
};
const xpubFlag: CliFlag = {
  type: 'string',
  required: true,
  description:
    'Account-level public key: BTC xpub/zpub (tpub/vpub on testnets), EVM/TRON account xpub, Cardano acct_xvk or hex, TON ed25519 public key (hex or base64).',
};

/** Operator CLI commands of the wallets plugin. */
export const walletsCommands: CliCommand[] = [
  defineCommand(['chains'], {
    noun: 'wallet',
    verb: 'preview',
    summary: 'Derive the first N receive addresses of a key (index, path, address) to compare with the wallet software.',
    needsDatabase: false,
    flags: {
      chain: chainFlag,
      xpub: xpubFlag,
      network: {
        type: 'string',
        choices: ['mainnet', 'testnet'],
        description: 'Network kind of the key (default mainnet; testnet for testnet and sandbox projects).',
      },
      count: {
        type: 'string',
        description: `How many addresses, 1 to ${PREVIEW_MAX_COUNT} (default 10).`,
        validate: (v) =>
          /^\d+$/.test(v) && Number(v) >= 1 && Number(v) <= PREVIEW_MAX_COUNT ? undefined : `must be an integer from 1 to ${PREVIEW_MAX_COUNT}`,
      },
    },
    run: async ({ flags, deps }) =>
      previewWallet(deps.chains, {
        chain: String(flags['chain']),
        xpub: String(flags['xpub']),
        network: (flags['network'] ?? 'mainnet') as NetworkKind,
        count: flags['count'] === undefined ? 10 : Number(flags['count']),
      }),
  }),
  defineCommand(['walletsWallets'], {
    noun: 'wallet',
    verb: 'register',
    summary: "Bind an account key to a project's chain (pending) and print the ownership challenge to sign with receive index 0.",
    flags: {
      project: projectFlag,
      chain: chainFlag,
      xpub: xpubFlag,
      replace: { type: 'boolean', description: 'Replace a verified binding (the new key must be verified again before invoices can use it).' },
    },
    help:
      'Sign challenge.message with the key of challenge.sign_with_address (BTC: BIP-322 or BIP-137; EVM: personal_sign; ' +
      'TRON: signMessageV2; Cardano: CIP-30 signData JSON {signature,key}; TON: TON Connect signData JSON), then run "wallet verify". ' +
      'The challenge expires after 24 hours; registering again issues a fresh one.',
    run: async ({ flags, deps }) =>
      deps.walletsWallets.register(
        { projectId: String(flags['project']), chain: String(flags['chain']), xpub: String(flags['xpub']), replace: flags['replace'] === true },
        CLI_ACTOR,
      ),
  }),
  defineCommand(['walletsWallets'], {
    noun: 'wallet',
    verb: 'verify',
    summary: 'Complete the ownership challenge with the signature made by receive index 0.',
    flags: {
      project: projectFlag,
      chain: chainFlag,
      signature: { type: 'string', required: true, description: "The signature in the chain's standard format (see wallet register --help)." },
    },
    run: async ({ flags, deps }) => ({
      wallet: await deps.walletsWallets.verify(
        { projectId: String(flags['project']), chain: String(flags['chain']), signature: String(flags['signature']) },
        CLI_ACTOR,
      ),
    }),
  }),
  defineCommand(['walletsWallets'], {
    noun: 'wallet',
    verb: 'list',
    summary: "List a project's wallet bindings and their verification state.",
    flags: { project: projectFlag },
    run: async ({ flags, deps }) => deps.walletsWallets.list(String(flags['project'])),
  }),
];
