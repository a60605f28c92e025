import { type JobDefinition, withDeps } from '@gw/kernel';

/** `oauth.sweep` (hourly): deletes what can no longer be used, and wipes sealed successors past the leeway. */
export const SWEEP_JOB = 'oauth.sweep';

export const oauthJobs = withDeps(['db', 'logger', 'oauthConfig'], (deps): JobDefinition[] => {
  return [
    {
      name: SWEEP_JOB,
      schedule: { cron: '23 * * * *' },
      queue: { retryLimit: 2, retryDelay: 60 },
      handler: async () => {
        const { db, logger, oauthConfig } = deps;
        const removed = await db.transaction(async (trx) => {
          const wiped = await trx('oauth_refresh_tokens')
            .whereNotNull('sealed_successor')
            .where('consumed_at', '<', trx.raw(`now() - make_interval(secs => ?)`, [oauthConfig.refreshLeewaySeconds]))
            .update({ sealed_successor: null });
          const requests = await trx('oauth_authorization_requests').where('expires_at', '<', trx.raw(`now() - interval '1 day'`)).delete();
          const challenges = await trx('oauth_email_challenges').where('expires_at', '<', trx.raw(`now() - interval '1 day'`)).delete();
          const codes = await trx('oauth_codes').where('expires_at', '<', trx.raw(`now() - interval '1 day'`)).whereNull('grant_id').delete();
          const sessions = await trx('oauth_sessions').where('expires_at', '<', trx.fn.now()).delete();
          const documentFailures = await trx('oauth_client_document_failures').where('retry_at', '<', trx.fn.now()).delete();
          return { wiped, requests, challenges, codes, sessions, documentFailures };
        });
        logger.debug(removed, 'oauth sweep');
      },
    },
  ];
});
