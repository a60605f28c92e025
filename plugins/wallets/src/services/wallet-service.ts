import {
  newId,
  networkKindOf,
  type AccountKey,
  type AuditLog,
  type ChainId,
  type ChainRegistry,
  type Cradle,
  type NetworkKind,
  type VerificationStandard,
} from '@gw/kernel';
import type { Actor, ProjectService } from '@gw/plugin-tenancy';
import type { Knex } from 'knex';
import { walletsErrors } from '../errors.js';
import { WalletBinding } from '../models/wallet-binding.js';
import { createChallenge, keyFingerprint } from './challenge.js';

/** A binding as the CLI and services show it (never anything secret: keys are public). */
export interface WalletView {
  readonly id: string;
  readonly project_id: string;
  readonly chain: ChainId;
  readonly network: NetworkKind;
  /** The key as the operator registered it. */
  readonly xpub: string;
  readonly canonical_key: string;
  readonly key_fingerprint: string;
  readonly state: 'pending' | 'verified';
  readonly verification_standard: VerificationStandard;
  readonly derivation_path_prefix: string;
  readonly bound_at_iso: string;
  readonly verified_at_iso: string | null;
  readonly challenge_expires_at_iso: string | null;
}

/** What `register` returns: the binding and the challenge the index-0 key must sign. */
export interface RegisterResult {
  readonly wallet: WalletView;
  readonly challenge: {
    readonly message: string;
    readonly expires_at_iso: string;
    /** Address of receive index 0, whose key must sign `message`. */
    readonly sign_with_address: string;
    readonly sign_with_path: string;
  };
}

/** A verified binding, ready for derivation (the address pool and invoices use it). */
export interface VerifiedWallet {
  readonly id: string;
  readonly projectId: string;
  readonly chain: ChainId;
  readonly key: AccountKey;
  readonly verificationStandard: VerificationStandard;
}

export interface WalletsConfig {
  /** Lifetime of an ownership challenge in seconds (default 24 h). */
  readonly challengeTtlSeconds: number;
}

/**
 * Wallet bindings per (project, chain): registration with an ownership challenge, verification of
 * the signature by receive index 0, listing, and the guard invoices use (`requireVerifiedWallet`).
 */
export class WalletService {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      chains: ChainRegistry;
      logger: Cradle['logger'];
      tenancyProjects: ProjectService;
      walletsConfig: WalletsConfig;
    },
  ) {}

  /**
   * Validates the key for the project's network kind (400 `invalid_xpub_format`, 422
   * `wallet_kind_mismatch`, unknown chain 400 `validation_error`) and binds it as pending with a
   * fresh challenge. A pending binding is replaced; a verified one only with `replace`.
   */
  async register(input: { projectId: string; chain: string; xpub: string; replace?: boolean }, actor: Actor): Promise<RegisterResult> {
    const project = await this.deps.tenancyProjects.get(input.projectId);
    const adapter = this.deps.chains.get(input.chain as ChainId);
    const chain = adapter.definition.id;
    const network = networkKindOf(project.kind);
    const key = adapter.parseAccountKey(input.xpub, network);
    const signer = adapter.deriveAddress(key, 0);
    const fingerprint = keyFingerprint(chain, key.canonical);
    return this.deps.db.transaction(async (trx) => {
      await lockBinding(trx, project.id, chain);
      const current = await WalletBinding.query(trx).findOne({ project_id: project.id, chain, superseded_at: null });
      if (current?.state === 'verified' && !input.replace) {
        throw walletsErrors.wallet_exists({ details: { chain, key_fingerprint: current.key_fingerprint } });
      }
      const now = new Date();
      if (current) await WalletBinding.query(trx).patchAndFetchById(current.id, { superseded_at: now });
      const challenge = createChallenge({ projectId: project.id, chain, fingerprint, now, ttlSeconds: this.deps.walletsConfig.challengeTtlSeconds });
      const binding = await WalletBinding.query(trx).insertAndFetch({
        id: newId(),
        project_id: project.id,
        chain,
        network_kind: network,
        account_key_input: key.input,
        account_key_canonical: key.canonical,
        key_fingerprint: fingerprint,
        state: 'pending',
        challenge_message: challenge.message,
        challenge_nonce: challenge.nonce,
        challenge_expires_at: challenge.expiresAt,
        bound_at: now,
        verified_at: null,
        superseded_at: null,
      });
      await this.deps.audit.record(
        {
          ...actor,
          action: current ? 'wallet.replace' : 'wallet.register',
          projectId: project.id,
          target: `wallet:${binding.id}`,
          details: { chain, network, key_fingerprint: fingerprint, replaced: current ? { id: current.id, state: current.state, key_fingerprint: current.key_fingerprint } : null },
        },
        trx,
      );
      return {
        wallet: this.view(binding),
        challenge: { message: challenge.message, expires_at_iso: challenge.expiresAt.toISOString(), sign_with_address: signer.address, sign_with_path: signer.path },
      };
    });
  }

  /**
   * Checks `signature` over the stored challenge with the chain's standard message signing by
   * receive index 0. Expired challenge → 409 `wallet_challenge_expired`, wrong signature → 422
   * `wallet_signature_rejected`, unparseable signature → 400 `validation_error`; nothing changes
   * on failure.
   */
  async verify(input: { projectId: string; chain: string; signature: string }, actor: Actor): Promise<WalletView> {
    await this.deps.tenancyProjects.get(input.projectId);
    const adapter = this.deps.chains.get(input.chain as ChainId);
    const chain = adapter.definition.id;
    return this.deps.db.transaction(async (trx) => {
      await lockBinding(trx, input.projectId, chain);
      const binding = await WalletBinding.query(trx).findOne({ project_id: input.projectId, chain, superseded_at: null });
      if (!binding) throw walletsErrors.wallet_not_bound({ message: `No wallet is registered for chain ${chain}; run "wallet register" first.` });
      if (binding.state === 'verified') throw walletsErrors.wallet_already_verified();
      if (new Date(binding.challenge_expires_at).getTime() <= Date.now()) {
        throw walletsErrors.wallet_challenge_expired({ details: { expired_at_iso: new Date(binding.challenge_expires_at).toISOString() } });
      }
      const ok = await adapter.verifyOwnership({ key: accountKeyOf(binding), message: binding.challenge_message, signature: input.signature.trim() });
      if (!ok) {
        this.deps.logger.warn({ projectId: input.projectId, chain, walletId: binding.id }, 'wallet ownership signature rejected');
        throw walletsErrors.wallet_signature_rejected();
      }
      const verified = await WalletBinding.query(trx).patchAndFetchById(binding.id, { state: 'verified', verified_at: new Date() });
      await this.deps.audit.record(
        { ...actor, action: 'wallet.verify', projectId: input.projectId, target: `wallet:${binding.id}`, details: { chain, key_fingerprint: binding.key_fingerprint } },
        trx,
      );
      return this.view(verified);
    });
  }

  /** The project's current bindings, in chain order of the composition. */
  async list(projectId: string): Promise<WalletView[]> {
    await this.deps.tenancyProjects.get(projectId);
    const rows = await WalletBinding.query(this.deps.db).where({ project_id: projectId }).whereNull('superseded_at');
    const order = this.deps.chains.list().map((a) => a.definition.id as string);
    return rows.sort((a, b) => order.indexOf(a.chain) - order.indexOf(b.chain)).map((row) => this.view(row));
  }

  /**
   * The verified wallet invoices derive from. Throws 422 `wallet_not_bound` when the project has
   * no binding for `chain` and 409 `xpub_not_verified` while the challenge is pending.
   */
  async requireVerifiedWallet(projectId: string, chain: ChainId, trx?: Knex.Transaction): Promise<VerifiedWallet> {
    const binding = await WalletBinding.query(trx ?? this.deps.db).findOne({ project_id: projectId, chain, superseded_at: null });
    if (!binding) throw walletsErrors.wallet_not_bound({ details: { chain } });
    if (binding.state !== 'verified') throw walletsErrors.xpub_not_verified({ details: { chain } });
    return this.verifiedWallet(binding);
  }

  /** Every current verified binding, optionally of one project and/or chain (the pool's work list). */
  async listVerified(filter: { projectId?: string; chain?: ChainId } = {}): Promise<VerifiedWallet[]> {
    const query = WalletBinding.query(this.deps.db).where({ state: 'verified' }).whereNull('superseded_at').orderBy('id');
    if (filter.projectId) query.where('project_id', filter.projectId);
    if (filter.chain) query.where('chain', filter.chain);
    return (await query).filter((row) => this.deps.chains.has(row.chain)).map((row) => this.verifiedWallet(row));
  }

  private verifiedWallet(binding: WalletBinding): VerifiedWallet {
    const adapter = this.deps.chains.get(binding.chain);
    return {
      id: binding.id,
      projectId: binding.project_id,
      chain: binding.chain,
      key: accountKeyOf(binding),
      verificationStandard: adapter.definition.verificationStandard,
    };
  }

  private view(binding: WalletBinding): WalletView {
    const definition = this.deps.chains.get(binding.chain).definition;
    return {
      id: binding.id,
      project_id: binding.project_id,
      chain: binding.chain,
      network: binding.network_kind,
      xpub: binding.account_key_input,
      canonical_key: binding.account_key_canonical,
      key_fingerprint: binding.key_fingerprint,
      state: binding.state,
      verification_standard: definition.verificationStandard,
      derivation_path_prefix: definition.accountPath[binding.network_kind],
      bound_at_iso: new Date(binding.bound_at).toISOString(),
      verified_at_iso: binding.verified_at ? new Date(binding.verified_at).toISOString() : null,
      challenge_expires_at_iso: binding.state === 'pending' ? new Date(binding.challenge_expires_at).toISOString() : null,
    };
  }
}

function accountKeyOf(binding: WalletBinding): AccountKey {
  return { chain: binding.chain, network: binding.network_kind, input: binding.account_key_input, canonical: binding.account_key_canonical };
}

/**
 * Serialises writes to one (project, chain) binding across every gateway instance. A transaction
 * advisory lock: concurrent registrations of the same chain queue up instead of racing on the
 * one-current-binding unique index.
 */
async function lockBinding(trx: Knex.Transaction, projectId: string, chain: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`wallets:${projectId}:${chain}`]);
}
