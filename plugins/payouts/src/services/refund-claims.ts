import { type Actor, type AuditLog, type ChainRegistry, hashToken, networkKindOf } from '@gw/kernel';
import type { InvoiceService } from '@gw/plugin-invoices/contract';
import type { ProjectService } from '@gw/plugin-tenancy/contract';
import type { Knex } from 'knex';
import type { ClaimInput, ClaimView, ItemView, RefundClaims } from '../contract.js';
import { payoutsErrors } from '../errors.js';
import { Item } from '../models/item.js';
import { itemAudit } from './audit.js';
import { claimProofMessage } from './claim-message.js';
import type { ItemStore } from './item-store.js';

/** Who claims: whoever holds the claim link, without an account (the link itself is never recorded). */
export const CLAIM_ACTOR: Actor = { actor: 'claim-link-holder', channel: 'claim_page' };

/**
 * The payer's side of a refund: read and claim by the token of the claim link, without an account.
 * A claim names an address of the invoice's coin and network (checked by the chain's library),
 * typed twice; above the claim-proof threshold it carries the chain's message signature of
 * {@link claimProofMessage} by that address (on chains whose adapter verifies one). A claim is made
 * once and cannot change: a second is `claim_already_made`, after approval or cancel `claim_closed`.
 */
export class RefundClaimsService implements RefundClaims {
  constructor(
    private readonly deps: {
      db: Knex;
      audit: AuditLog;
      chains: ChainRegistry;
      tenancyProjects: ProjectService;
      invoicesService: InvoiceService;
      payoutsStore: ItemStore;
    },
  ) {}

  async byToken(token: string): Promise<ClaimView> {
    const item = await this.itemOf(this.deps.db, token, false);
    const [project, invoice] = await Promise.all([
      this.deps.tenancyProjects.get(item.project_id),
      this.deps.invoicesService.get(item.project_id, item.invoice_id!),
    ]);
    return {
      item: await this.deps.payoutsStore.viewOf(this.deps.db, item),
      projectName: project.name,
      externalId: invoice.external_id,
      proofMessage: item.proof_message ?? claimProofMessage(item.id, invoice.external_id, item.address ?? ''),
      open: item.status === 'awaiting_claim',
    };
  }

  async claim(token: string, input: ClaimInput): Promise<ItemView> {
    const store = this.deps.payoutsStore;
    return this.deps.db.transaction(async (trx) => {
      const item = await this.itemOf(trx, token, true);
      if (item.status === 'claimed') throw payoutsErrors.claim_already_made();
      if (item.status !== 'awaiting_claim') throw payoutsErrors.claim_closed({ details: { status: item.status } });
      const address = input.address.trim();
      const adapter = this.deps.chains.get(item.chain);
      const network = networkKindOf(item.project_kind);
      if (!adapter.isValidAddress(address, network)) throw payoutsErrors.claim_address_invalid({ details: { coin: item.coin, network: item.network } });
      if (input.addressConfirmation.trim() !== address) throw payoutsErrors.claim_address_mismatch();
      const invoice = await this.deps.invoicesService.get(item.project_id, item.invoice_id!, trx);
      const message = claimProofMessage(item.id, invoice.external_id, address);
      const signature = input.signature?.trim() || undefined;
      // A chain without message signatures cannot prove anything: its claims carry none (`claim_requires_proof` is false there).
      if (item.claim_requires_proof && adapter.verifyAddressSignature) {
        if (signature === undefined) throw payoutsErrors.claim_proof_required({ details: { message } });
        if (!(await adapter.verifyAddressSignature({ address, network, message, signature })))
          throw payoutsErrors.claim_proof_invalid({ details: { message } });
      }
      const moved = await store.move(trx, item, 'claimed', { address, proof_message: message, proof_signature: signature ?? null });
      await this.deps.audit.record(itemAudit(CLAIM_ACTOR, 'claim', item, { address, proof: signature !== undefined }), trx);
      return store.viewOf(trx, moved);
    });
  }

  private async itemOf(db: Knex | Knex.Transaction, token: string, forUpdate: boolean): Promise<Item> {
    const query = Item.query(db).findOne({ claim_token_hash: hashToken(token), kind: 'refund' });
    if (forUpdate) query.forUpdate();
    const item = await query;
    if (!item) throw payoutsErrors.claim_not_found();
    return item;
  }
}
