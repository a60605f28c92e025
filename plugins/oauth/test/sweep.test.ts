import { buildDeclared, newId, sql, sqlQuery, type Sql } from '@gw/kernel';
import test from 'ava';
import type { TestKernel } from '@gw/kernel/testing';
import { oauthPlugin } from '../src/index.js';
import { SWEEP_JOB } from '../src/jobs.js';
import { MailSink, inviteUser, startOAuthKernel } from './helpers.js';

// The hourly sweep deletes what can no longer be used, on the database's clock, and nothing else.
let gw: TestKernel;
let sink: MailSink;
test.before(async () => {
  sink = await MailSink.start();
  gw = await startOAuthKernel(sink);
});
test.after.always(async () => {
  await gw?.close();
  await sink?.close();
});

const ids = async (table: 'oauth_sessions' | 'oauth_authorization_requests' | 'oauth_email_challenges' | 'oauth_codes', wanted: string[]) => {
  const statements = {
    oauth_sessions: sql`select id from oauth_sessions where id = any(${wanted}::text[]) order by id`,
    oauth_authorization_requests: sql`select id from oauth_authorization_requests where id = any(${wanted}::text[]) order by id`,
    oauth_email_challenges: sql`select id from oauth_email_challenges where id = any(${wanted}::text[]) order by id`,
    oauth_codes: sql`select id from oauth_codes where id = any(${wanted}::text[]) order by id`,
  };
  return (await sqlQuery<{ id: string }>(gw.kernel.cradle.db, statements[table])).map((r) => r.id);
};

/** One row a given expiry from now (a PostgreSQL interval) per entry of `expiries`, written by `insert`; their new ids, in order. */
async function rowsExpiring<const E extends readonly string[]>(expiries: E, insert: (id: string, expires: string) => Sql): Promise<{ [K in keyof E]: string }> {
  const rowIds = expiries.map(() => newId());
  for (const [i, id] of rowIds.entries()) await sqlQuery(gw.kernel.cradle.db, insert(id, expiries[i]!));
  return rowIds as { [K in keyof E]: string };
}

test('oauth.sweep removes expired sessions, requests, challenges, unexchanged codes and document failures; live rows stay', async (t) => {
  const { db } = gw.kernel.cradle;
  const user = await inviteUser(gw, 'sweep');
  const clientId = newId();
  await sqlQuery(
    db,
    sql`insert into oauth_clients (client_id, kind, redirect_uris, grant_types, response_types, token_endpoint_auth_method)
                         values (${clientId}, 'dynamic', ${['http://127.0.0.1:1/cb']}::text[], ${['authorization_code']}::text[], ${['code']}::text[], 'none')`,
  );
  const [liveSession, deadSession] = [newId(), newId()];
  await sqlQuery(
    db,
    sql`insert into oauth_sessions (id, token_hash, expires_at) values
    (${liveSession}, ${'a'.repeat(64)}, now() + interval '1 hour'), (${deadSession}, ${'b'.repeat(64)}, now() - interval '1 second')`,
  );
  // Requests, challenges and codes are kept for a day past their expiry.
  const [liveRequest, graceRequest, deadRequest] = await rowsExpiring(
    ['1 hour', '-2 hours', '-25 hours'],
    (id, expires) =>
      sql`insert into oauth_authorization_requests (id, session_id, client_id, redirect_uri, scopes, code_challenge, resource, expires_at)
      values (${id}, ${liveSession}, ${clientId}, 'http://127.0.0.1:1/cb', ${['projects:read']}::text[], ${'c'.repeat(43)}, 'r', now() + ${expires}::interval)`,
  );
  const [liveChallenge, deadChallenge] = await rowsExpiring(
    ['-2 hours', '-25 hours'],
    (id, expires) =>
      sql`insert into oauth_email_challenges (id, session_id, code_hash, expires_at) values (${id}, ${liveSession}, ${'d'.repeat(64)}, now() + ${expires}::interval)`,
  );
  const [liveCode, deadCode] = await rowsExpiring(
    ['-2 hours', '-25 hours'],
    (id, expires) =>
      sql`insert into oauth_codes (id, code_hash, client_id, user_id, redirect_uri, scopes, resource, code_challenge, expires_at)
      values (${id}, ${id.padEnd(64, '0')}, ${clientId}, ${user.id}, 'http://127.0.0.1:1/cb', ${['projects:read']}::text[], 'r', ${'c'.repeat(43)}, now() + ${expires}::interval)`,
  );
  const [liveFailure, deadFailure] = [`https://live.example.test/${newId()}`, `https://dead.example.test/${newId()}`];
  await sqlQuery(
    db,
    sql`insert into oauth_client_document_failures (client_id, host, reason, retry_at) values
    (${liveFailure}, 'live.example.test', 'x', now() + interval '1 hour'), (${deadFailure}, 'dead.example.test', 'x', now() - interval '1 second')`,
  );

  const job = buildDeclared(oauthPlugin.jobs!, gw.kernel.cradle, 'oauth jobs').find((j) => j.name === SWEEP_JOB)!;
  await job.handler!([{ id: 'sweep', name: SWEEP_JOB, data: {} }] as never);

  t.deepEqual(await ids('oauth_sessions', [liveSession, deadSession]), [liveSession]);
  t.deepEqual(await ids('oauth_authorization_requests', [liveRequest, graceRequest, deadRequest]), [liveRequest, graceRequest].sort());
  t.deepEqual(await ids('oauth_email_challenges', [liveChallenge, deadChallenge]), [liveChallenge]);
  t.deepEqual(await ids('oauth_codes', [liveCode, deadCode]), [liveCode]);
  const failures = await sqlQuery<{ client_id: string }>(
    db,
    sql`select client_id from oauth_client_document_failures where client_id = any(${[liveFailure, deadFailure]}::text[])`,
  );
  t.deepEqual(
    failures.map((r) => r.client_id),
    [liveFailure],
  );
});
