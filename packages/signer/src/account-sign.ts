import type { AccountPlanFile, AccountSignedFile } from '@gw/chain-api';
import { getAddress } from 'ethers/address';
import { computeAddress } from 'ethers/transaction';
import { accountChainOf, checkAccountNetwork, type AccountChain } from './account-chains.js';
import { secp256k1KeyAt, solKeyAt, tonKeysAt, type AccountSecret } from './account-keys.js';
import { readAccountPlan } from './account-plan.js';
import { signerWho, type CheckedStep } from './account-step.js';
import { checkSolStep, solAddressOf } from './sol-step.js';
import { checkEvmStep, sameEvmAddress } from './evm-step.js';
import { refuse } from './signer-error.js';
import { checkTonStep, formatTon, parseTonAddress, sameTonAddress, v5r1Wallet } from './ton-step.js';
import { checkTronStep, normalTronAddress, tronAddressOf } from './tron-step.js';

/** An account plan after every step was decoded, checked against its summary and its signer's key. */
export interface CheckedAccountPlan {
  readonly plan: AccountPlanFile;
  readonly chain: AccountChain;
  readonly steps: readonly CheckedStep[];
  readonly notes: readonly string[];
  /** Whether an address is one of the plan's signers (derived from the secret and checked), by the chain's address equality. */
  readonly isOwn: (address: string) => string | null;
  /** Token contracts (jetton masters) the signer does not list, used by the plan and allowed by `--allow-unlisted-token`. */
  readonly unlistedTokens: readonly string[];
}

/** What the operator allows beyond the signer's own tables. */
export interface AccountSignOptions {
  /** Token contracts (TON: jetton masters) to sign for although the signer lists none for the plan's coin and network (`--allow-unlisted-token`). */
  readonly allowUnlistedTokens?: readonly string[];
}

const FAMILY_FORMATS = {
  evm: ['evm-tx', 'evm-7702-authorization', 'evm-3009-authorization'],
  tron: ['tron-tx'],
  ton: ['ton-external'],
  sol: ['sol-tx'],
} as const;

/**
 * Checks an account plan (the parsed JSON of a `gateway-treasury-account-plan`) against the secret:
 * for each step, derives the signer's key at its path and checks it is the step's signer address,
 * then decodes the step's unsigned data and checks it against the summary. Refuses the whole plan
 * at the first step that fails: nothing of it is signed.
 */
export function checkAccountPlan(value: unknown, secret: AccountSecret, options: AccountSignOptions = {}): CheckedAccountPlan {
  const { plan, steps, movedUnits } = readAccountPlan(value);
  const chain = accountChainOf(plan.chain);
  const same =
    chain.family === 'evm'
      ? sameEvmAddress
      : chain.family === 'ton'
        ? sameTonAddress
        : chain.family === 'sol'
          ? (a: string, b: string) => a === b
          : (a: string, b: string) => normalTronAddress(a) !== null && normalTronAddress(a) === normalTronAddress(b);
  const unlistedUsed = new Set<string>();
  const { notes, tonGlobalId } = checkAccountNetwork(chain, plan.network, plan.evm_chain_id);
  const testnet = chain.networks[plan.network]?.kind === 'testnet';
  const own: { address: string; stepId: string; path: string }[] = [];
  const checked = steps.map((read): CheckedStep => {
    const where = `step ${read.step.id}`;
    const ctx = { plan, chain, where, sameAddress: same, allowUnlistedTokens: options.allowUnlistedTokens ?? [], unlistedUsed };
    const { signer } = read.step;
    if (!(FAMILY_FORMATS[chain.family] as readonly string[]).includes(read.step.unsigned.format)) {
      refuse('plan_unreadable', `${where}: ${read.step.unsigned.format} is not a format of ${chain.name}.`);
    }
    const who = signerWho(read);
    const mismatch = (derived: string): never =>
      refuse(
        'signer_key_mismatch',
        `${where}: the secret's key at ${signer.path} is ${derived}, not the step's signer ${signer.address} (another seed, passphrase or path).`,
      );
    let step: Omit<CheckedStep, 'signer'>;
    let address: string;
    let keyOrigin: string | undefined;
    if (chain.family === 'evm') {
      const key = secp256k1KeyAt(secret, signer.path, 60, where);
      address = getAddress(computeAddress(key.publicKey));
      if (!sameEvmAddress(address, signer.address)) mismatch(address);
      step = checkEvmStep(read, ctx, key, address);
    } else if (chain.family === 'tron') {
      const key = secp256k1KeyAt(secret, signer.path, 195, where);
      address = tronAddressOf(key);
      if (normalTronAddress(signer.address) !== address) mismatch(address);
      step = checkTronStep(read, ctx, key, address);
    } else if (chain.family === 'sol') {
      const key = solKeyAt(secret, signer.path, where);
      address = solAddressOf(key.publicKey);
      if (address !== signer.address) mismatch(address);
      step = checkSolStep(read, ctx, key, address);
    } else {
      const { subwallet, keys } = tonKeysAt(secret, signer.path, where);
      const wallets = keys.map((key) => ({ key, address: v5r1Wallet(key.publicKey, tonGlobalId!, subwallet).address }));
      const stated = parseTonAddress(signer.address);
      const match = stated ? wallets.find((w) => w.address.equals(stated)) : undefined;
      if (!match) return mismatch(wallets.map((w) => `${formatTon(w.address, testnet)} (${w.key.origin})`).join(' or ') || 'none');
      address = formatTon(match.address, testnet);
      keyOrigin = match.key.origin;
      step = checkTonStep(read, ctx, match.key, subwallet, tonGlobalId!, testnet);
    }
    own.push({ address, stepId: read.step.id, path: signer.path });
    return { ...step, signer: { address, path: signer.path, who, ...(keyOrigin ? { keyOrigin } : {}) } };
  });
  const isOwn = (address: string): string | null => {
    const found = own.find((o) => same(o.address, address));
    return found ? `the signer of step ${found.stepId}, ${found.path}` : null;
  };
  // The plan's total against its steps, where every step fixes its amount.
  const total = checked.flatMap((s) => s.transfers).filter((t) => t.coin === plan.coin && !isOwn(t.to));
  if (total.every((t) => t.units !== null)) {
    const sum = total.reduce((acc, t) => acc + t.units!, 0n);
    if (total.length > 0 && sum !== movedUnits)
      notes.push(`The plan says it moves ${movedUnits} ${plan.coin}; its steps send ${sum} to addresses not of this plan's signers.`);
  }
  return { plan, chain, steps: checked, notes, isOwn, unlistedTokens: [...unlistedUsed] };
}

/** Signs every checked step, in order: the signed file of the round. */
export function signAccountPlan(checked: CheckedAccountPlan): AccountSignedFile {
  const { plan } = checked;
  return {
    format: 'gateway-treasury-account-signed',
    version: 1,
    plan_id: plan.plan_id,
    chain: plan.chain,
    network: plan.network,
    round: plan.round,
    signed: checked.steps.map((step) => ({ id: step.id, signed: step.sign() })),
  };
}
