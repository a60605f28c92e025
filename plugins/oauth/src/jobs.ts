import { type JobDefinition, type Sql, sql, sqlTransaction, withDeps } from '@gw/kernel';

/** `oauth.sweep` (hourly): deletes what can no longer be used, and wipes sealed successors past the leeway. */
export const SWEEP_JOB = 'oauth.sweep';

type Count = { n: number };

export const oauthJobs = withDeps(['db', 'logger', 'oauthConfig'], (deps): JobDefinition[] => {
  return [
    {
      name: SWEEP_JOB,
      schedule: { cron: '23 * * * *' },
      queue: { retryLimit: 2, retryDelay: 60 },
      handler: async () => {
        const { db, logger, oauthConfig } = deps;
        // Set-based statements over every expired row (data access rule 2); expiry on the database's clock.
        const removed = await sqlTransaction(db, async (tx) => {
          const count = async (statement: Sql) => (await tx.query<Count>(statement))[0]?.n ?? 0;
          const wiped = await count(sql`with changed as (
            update oauth_refresh_tokens set sealed_successor = null
             where sealed_successor is not null and consumed_at < now() - make_interval(secs => ${oauthConfig.refreshLeewaySeconds})
            returning 1) select count(*)::int as n from changed`);
          const requests = await count(
            sql`with gone as (delete from oauth_authorization_requests where expires_at < now() - interval '1 day' returning 1) select count(*)::int as n from gone`,
          );
          const challenges = await count(
            sql`with gone as (delete from oauth_email_challenges where expires_at < now() - interval '1 day' returning 1) select count(*)::int as n from gone`,
          );
          const codes = await count(
            sql`with gone as (delete from oauth_codes where expires_at < now() - interval '1 day' and grant_id is null returning 1) select count(*)::int as n from gone`,
          );
          const sessions = await count(sql`with gone as (delete from oauth_sessions where expires_at < now() returning 1) select count(*)::int as n from gone`);
          const documentFailures = await count(
            sql`with gone as (delete from oauth_client_document_failures where retry_at < now() returning 1) select count(*)::int as n from gone`,
          );
          // Wrong codes count for an hour (the per-address cap's rolling window).
          const codeFailures = await count(
            sql`with gone as (delete from oauth_code_failures where failed_at < now() - interval '1 hour' returning 1) select count(*)::int as n from gone`,
          );
          return { wiped, requests, challenges, codes, sessions, documentFailures, codeFailures };
        });
        logger.debug(removed, 'oauth sweep');
      },
    },
  ];
});
