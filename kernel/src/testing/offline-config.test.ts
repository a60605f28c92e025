import test from 'ava';
import { withOfflineConfig } from './offline-config.js';

const watchers = { id: 'watchers' };
const tenancy = { id: 'tenancy' };

test('a composition with the watchers gets their public providers turned off; one without gets nothing', (t) => {
  t.deepEqual(withOfflineConfig([tenancy, watchers], { 'log.level': 'silent' }), { 'plugins.watchers.publicProviders': false, 'log.level': 'silent' });
  // The loader refuses keys of plugins the build does not have: nothing is added for an absent one.
  t.deepEqual(withOfflineConfig([tenancy], { 'log.level': 'silent' }), { 'log.level': 'silent' });
});

test('a test that sets the key itself wins, dotted or inside an object', (t) => {
  t.deepEqual(withOfflineConfig([watchers], { 'plugins.watchers.publicProviders': true }), { 'plugins.watchers.publicProviders': true });
  t.deepEqual(withOfflineConfig([watchers], { 'plugins.watchers': { publicProviders: true } }), { 'plugins.watchers': { publicProviders: true } });
  t.deepEqual(withOfflineConfig([watchers], { plugins: { watchers: { publicProviders: true } } }), { plugins: { watchers: { publicProviders: true } } });
});

test("an object for the whole slice keeps the setting, copied, the test's object unchanged", (t) => {
  const slice = { chains: {} };
  const config = withOfflineConfig([watchers], { 'plugins.watchers': slice });
  t.deepEqual(config, { 'plugins.watchers': { chains: {}, publicProviders: false } });
  t.deepEqual(slice, { chains: {} });
  const plugins = { rates: { providers: ['fixed'] } };
  t.deepEqual(withOfflineConfig([watchers], { plugins }), { plugins: { rates: { providers: ['fixed'] }, watchers: { publicProviders: false } } });
  t.deepEqual(plugins, { rates: { providers: ['fixed'] } });
  // Deeper dotted keys of the slice leave the setting to add.
  t.deepEqual(withOfflineConfig([watchers], { 'plugins.watchers.chains': {} }), { 'plugins.watchers.publicProviders': false, 'plugins.watchers.chains': {} });
});
