import test from 'ava';
import { CLI_ACTOR } from '@gw/kernel';
import { createTestDatabase, signedFetch, startTestKernel } from '@gw/kernel/testing';
import { tenancyPlugin } from '@gw/plugin-tenancy';
import { cliRunner } from '@gw/testing';

// Rotating the master key (docs/deployment.md): the new key current with the old one in
// security.previousMasterKeys, `gateway master-key reseal`, then the old key dropped.

const OLD = 'a1'.repeat(32);
const NEW = 'b2'.repeat(32);

test('a master key rotation: secrets sealed under the old key keep working through reseal and after the old key is dropped', async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const start = (config: Record<string, unknown>) => startTestKernel({ plugins: [tenancyPlugin], role: 'gateway', database, config });

  const before = await start({ 'security.masterKey': OLD });
  const operator = await before.kernel.cradle.tenancyOperators.create('main', CLI_ACTOR);
  const created = await before.kernel.cradle.tenancyProjects.create({ name: 'rotating', kind: 'testnet', operator: operator.id }, CLI_ACTOR);
  const p = { projectId: created.project.id, secret: created.credentials.api_secret };
  t.is((await signedFetch(before.url, '/api/v1/project', p)).status, 200);
  await before.kernel.stop();

  // Only the new key: the old ciphertexts do not open (this is why previousMasterKeys exists).
  const newOnlyTooEarly = await start({ 'security.masterKey': NEW });
  t.not((await signedFetch(newOnlyTooEarly.url, '/api/v1/project', p)).status, 200);
  await newOnlyTooEarly.kernel.stop();

  // New key current, old key previous: the secret still opens.
  const during = await start({ 'security.masterKey': NEW, 'security.previousMasterKeys': OLD });
  t.is((await signedFetch(during.url, '/api/v1/project', p)).status, 200);

  const cli = cliRunner({
    plugins: [tenancyPlugin],
    chains: [],
    databaseUrl: () => database.url,
    overrides: () => ({ 'security.masterKey': NEW, 'security.previousMasterKeys': OLD }),
  });
  const resealed = await cli('master-key', 'reseal', '--json');
  t.is(resealed.code, 0, resealed.stderr);
  t.deepEqual(resealed.json.columns, [{ table: 'tenancy_api_key_secrets', column: 'sealed_secret', rows: 1, resealed: 1 }]);
  // Idempotent: nothing is left under the old key.
  t.is((await cli('master-key', 'reseal', '--json')).json.resealed, 0);
  await during.kernel.stop();

  // The old key dropped: everything opens under the new one, and no longer under the old one.
  const after = await start({ 'security.masterKey': NEW });
  t.is((await signedFetch(after.url, '/api/v1/project', p)).status, 200);
  await after.kernel.stop();
  const oldOnly = await start({ 'security.masterKey': OLD });
  t.not((await signedFetch(oldOnly.url, '/api/v1/project', p)).status, 200);
  await oldOnly.kernel.stop();
});
