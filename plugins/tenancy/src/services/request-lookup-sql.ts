import { sql, type Sql } from '@gw/kernel';

/** A signed request whose recorded answer is looked for: its project and its request hash. */
export interface AnswerKey {
  readonly projectId: string;
  readonly hash: string;
}

/**
 * The statement of `ApiKeyService.requestCredentialsMany`: per project id, the key requests are
 * checked against, its valid secrets and the project principal, and the recorded answers
 * (`tenancy_signed_answers`) of `answerKeys` in that project.
 *
 * Each answer is read by its whole primary key, one index probe per key; the `limit 1` keeps the
 * planner from turning the probes into a join over the table. Its cost therefore does not grow with
 * the answers kept in the signature window (thousands per busy project), whatever the table's
 * statistics say: a filter on the hashes over the project's index range read all of them.
 */
export function requestLookupSql(projectIds: readonly string[], answerKeys: readonly AnswerKey[]): Sql {
  const keys = [...new Map(answerKeys.map((key) => [`${key.projectId} ${key.hash}`, key])).values()];
  return sql`with answers as (
             select q.project_id, json_agg(json_build_object('hash', q.hash, 'status', a.status, 'headers', a.headers, 'body', encode(a.body, 'base64'))) as found
               from unnest(${keys.map((key) => key.projectId)}::text[], ${keys.map((key) => key.hash)}::text[]) as q(project_id, hash)
               cross join lateral (select a.status, a.headers, a.body from tenancy_signed_answers a
                                    where a.project_id = q.project_id and a.request_hash = q.hash limit 1) a
              group by q.project_id
           )
           select r.id as project_id, k.id as key_id, k.state as key_state, k.secret_kind, p.kind, p.status, p.operator_id, o.subscription_status,
                 coalesce((select json_agg(json_build_object('id', s.id, 'sealed', s.sealed_secret) order by s.id desc)
                             from tenancy_api_key_secrets s
                            where s.api_key_id = k.id and (s.expires_at is null or s.expires_at > now())), '[]') as secrets,
                 coalesce((select found from answers where answers.project_id = r.id), '[]') as answers
            from unnest(${[...new Set(projectIds)]}::text[]) as r(id)
            left join tenancy_projects p on p.id = r.id
            left join tenancy_operators o on o.id = p.operator_id
            left join lateral (select * from tenancy_api_keys k where k.project_id = p.id order by (k.state <> 'revoked') desc, k.id desc limit 1) k on true`;
}
