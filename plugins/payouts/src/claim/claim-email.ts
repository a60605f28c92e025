import { AppError, sql, sqlQuery, withDeps, type JobDefinition, type JobQueue } from '@gw/kernel';
import { formatDecimal } from '@gw/plugin-checkout/contract';
import type { Knex } from 'knex';
import type { PayoutsConfig } from '../config.js';
import { claimText } from './claim-i18n.js';
import { claimCoinFacts } from './claim-page.js';

/** `payouts.claim-email`: mails a new refund's claim link to the payer (`email` of the create request). */
export const CLAIM_EMAIL_JOB = 'payouts.claim-email';

/** The job's data: the refund (its address and link are read when the job runs; the token is never in the queue). */
export interface ClaimEmailData {
  readonly itemId: string;
}

/**
 * Enqueues the claim e-mail of a refund created with `email`, in the transaction that creates it:
 * the mail goes out if and only if the refund is committed. Nothing when `plugins.payouts.claimEmail`
 * is false.
 */
export async function enqueueClaimEmail(
  deps: { readonly jobs: JobQueue; readonly payoutsConfig: PayoutsConfig },
  trx: Knex.Transaction,
  itemId: string,
): Promise<void> {
  if (deps.payoutsConfig.claimEmail === false) return;
  await deps.jobs.sendInTransaction(trx, CLAIM_EMAIL_JOB, { itemId } satisfies ClaimEmailData);
}

/** The token at the end of a claim link. */
function tokenOf(claimUrl: string): string {
  return new URL(claimUrl).pathname.split('/').pop() ?? '';
}

/**
 * Sends claim e-mails through the oauth plugin's mailer (one SMTP configuration for the
 * installation; without the oauth plugin nothing is mailed). A refund claimed, cancelled or gone by the time the job runs gets no mail; a
 * failed send is retried.
 */
export const claimEmailJobs = withDeps(['db', 'payoutsItems', 'payoutsClaims', 'chains', 'oauthMailer?', 'logger'], (deps): JobDefinition<ClaimEmailData>[] => [
  {
    name: CLAIM_EMAIL_JOB,
    queue: { retryLimit: 5, retryDelay: 60, retryBackoff: true, retentionSeconds: 86_400, deleteAfterSeconds: 3600 },
    handler: async (jobs) => {
      for (const { data } of jobs) {
        const [row] = await sqlQuery<{ project_id: string; claim_email: string | null }>(
          deps.db,
          sql`select project_id, claim_email from payouts_items where id = ${data.itemId} and kind = 'refund'`,
        );
        if (!row?.claim_email) continue;
        const item = await deps.payoutsItems.get(row.project_id, 'refund', data.itemId);
        // Claimed or cancelled meanwhile: the link shows nothing to claim any more.
        if (item.claim_url === null) continue;
        let view;
        try {
          view = await deps.payoutsClaims.byToken(tokenOf(item.claim_url));
        } catch (error) {
          if (error instanceof AppError && error.status === 404) continue;
          throw error;
        }
        if (!view.open) continue;
        const facts = claimCoinFacts(deps.chains, item);
        const values = {
          name: view.projectName,
          amount: formatDecimal('en', item.amount),
          symbol: facts.symbol,
          network: facts.networkName,
          invoice: view.externalId,
          url: item.claim_url,
        };
        const sent = await deps.oauthMailer?.sendMessage(row.claim_email, claimText('en', 'email_subject', values), claimText('en', 'email_text', values));
        if (!sent) deps.logger.warn({ refund_id: item.id }, 'payouts: the claim link of a refund could not be mailed (no oauth plugin or no SMTP configured)');
      }
    },
  },
]);
