import { CLI_ACTOR } from '@gw/kernel';
import type { TestKernel } from '@gw/kernel/testing';

/**
 * A user of `operator` with `role`, invited at the CLI and active as after a first sign-in (the
 * status set in its row: no e-mail round trip). Resolves with the user as invited.
 */
export async function activeUser(gw: TestKernel, input: { email: string; operator: string; role: 'admin' | 'member' }) {
  const user = await gw.kernel.cradle.tenancyUsers.invite(input, CLI_ACTOR);
  await gw.kernel.cradle.db('tenancy_users').where('id', user.id).update({ status: 'active' });
  return user;
}
