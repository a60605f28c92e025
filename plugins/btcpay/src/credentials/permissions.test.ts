import test from 'ava';
import { BTCPAY_POLICIES, grants, parsePermission, permissionText, policyIncludes, reachableStores } from './permissions.js';

test('the tree: unrestricted holds everything; store settings hold every store permission; invoices and pull payments nest as in BTCPay', (t) => {
  for (const policy of BTCPAY_POLICIES) t.true(policyIncludes('unrestricted', policy), policy);
  for (const policy of BTCPAY_POLICIES.filter((p) => p.startsWith('btcpay.store.'))) {
    t.true(policyIncludes('btcpay.store.canmodifystoresettings', policy), policy);
  }
  t.true(policyIncludes('btcpay.store.canmodifyinvoices', 'btcpay.store.canviewinvoices'));
  t.true(policyIncludes('btcpay.store.canmodifyinvoices', 'btcpay.store.cancreateinvoice'));
  t.true(policyIncludes('btcpay.store.canviewstoresettings', 'btcpay.store.canviewinvoices'));
  t.true(policyIncludes('btcpay.store.canmanagepullpayments', 'btcpay.store.cancreatenonapprovedpullpayments'));
  t.true(policyIncludes('btcpay.store.cancreatepullpayments', 'btcpay.store.canviewpullpayments'));
  t.false(policyIncludes('btcpay.store.cancreateinvoice', 'btcpay.store.canviewinvoices'));
  t.false(policyIncludes('btcpay.store.canviewstoresettings', 'btcpay.store.cancreateinvoice'));
  t.false(policyIncludes('btcpay.store.webhooks.canmodifywebhooks', 'btcpay.store.canviewstoresettings'));
  t.false(policyIncludes('btcpay.server.canmodifyserversettings', 'btcpay.store.canviewinvoices'));
});

test('permission strings parse as BTCPay parses them: the policy in any case, a store only after a store policy', (t) => {
  t.deepEqual(parsePermission(' BTCPay.Store.CanCreateInvoice:AbC '), { policy: 'btcpay.store.cancreateinvoice', storeId: 'AbC' });
  t.deepEqual(parsePermission('unrestricted'), { policy: 'unrestricted', storeId: null });
  for (const bad of ['btcpay.store.cancreateinvoices', 'btcpay.store.cancreateinvoice:', 'unrestricted:abc', 'btcpay.server.canmanageusers:abc', '']) {
    t.is(parsePermission(bad), undefined, bad);
  }
  t.is(permissionText({ policy: 'btcpay.store.canviewinvoices', storeId: 's1' }), 'btcpay.store.canviewinvoices:s1');
});

test('grants: a store-bound permission reaches its store only; listing needs the policy on any store and shows the reached ones', (t) => {
  const granted = ['btcpay.store.canmodifyinvoices:s1', 'btcpay.store.canviewstoresettings:s2', 'not-a-permission'];
  t.true(grants(granted, 'btcpay.store.canviewinvoices', 's1'));
  t.true(grants(granted, 'btcpay.store.canviewinvoices', 's2'));
  t.false(grants(granted, 'btcpay.store.cancreateinvoice', 's2'));
  t.false(grants(granted, 'btcpay.store.canviewinvoices', 's3'));
  t.true(grants(granted, 'btcpay.store.cancreateinvoice'));
  t.false(grants(granted, 'btcpay.store.webhooks.canmodifywebhooks'));
  t.deepEqual([...(reachableStores(granted, 'btcpay.store.canviewinvoices') as Set<string>)].sort(), ['s1', 's2']);
  t.is(reachableStores([...granted, 'btcpay.store.canviewinvoices'], 'btcpay.store.canviewinvoices'), 'all');
  t.true(grants(['unrestricted'], 'btcpay.store.canmodifystoresettings', 'any'));
});
