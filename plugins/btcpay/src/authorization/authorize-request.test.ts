import test from 'ava';
import { isAppError } from '@gw/kernel';
import { BTCPAY_POLICIES } from '../credentials/permissions.js';
import { applicationLabel, authorizeQuery, parseAuthorizeRequest } from './authorize-request.js';
import { grantedPermissions, splitRequested, whyNotGrantable } from './grant.js';
import { PERMISSION_DESCRIPTIONS } from './permission-descriptions.js';

const parse = (query: string) => parseAuthorizeRequest(new URLSearchParams(query));

function refusal(t: { throws: (fn: () => unknown) => unknown }, query: string): string {
  const error = t.throws(() => parse(query)) as unknown;
  if (!isAppError(error) || error.code !== 'btcpay_authorize_request_invalid') throw new Error(`not the request error: ${String(error)}`);
  return error.message;
}

test('the WooCommerce plugin’s request reads as BTCPay reads it: policies lower case and once, booleans, redirect kept', (t) => {
  const request = parse(
    'permissions=btcpay.store.canviewinvoices&permissions=BTCPay.Store.CanCreateInvoice&permissions=btcpay.store.canviewinvoices&permissions=' +
      '&applicationName=WooCommerce&strict=true&selectiveStores=TRUE&redirect=https%3A%2F%2Fshop.example%2F%3Fbtcpay-settings-callback',
  );
  t.deepEqual(request, {
    permissions: ['btcpay.store.canviewinvoices', 'btcpay.store.cancreateinvoice'],
    applicationName: 'WooCommerce',
    applicationIdentifier: null,
    strict: true,
    selectiveStores: true,
    redirect: 'https://shop.example/?btcpay-settings-callback',
  });
  t.is(applicationLabel(request), 'WooCommerce');
  t.deepEqual(parse(authorizeQuery(request)), request, 'the canonical query reads back the same');
});

test('defaults as BTCPay’s: strict, all stores, no redirect; an empty value is the default', (t) => {
  const request = parse('permissions=unrestricted&strict=&selectiveStores=');
  t.true(request.strict);
  t.false(request.selectiveStores);
  t.is(request.redirect, null);
  t.is(applicationLabel(request), 'An application');
  t.is(applicationLabel(parse('redirect=http%3A%2F%2F127.0.0.1%3A8080%2Fcb')), '127.0.0.1:8080');
  t.is(applicationLabel(parse('applicationIdentifier=odoo')), 'odoo');
});

test('each bad parameter is refused with a message naming it', (t) => {
  t.regex(refusal(t, 'permissions=btcpay.store.canfly'), /"btcpay\.store\.canfly" is not a BTCPay permission/);
  t.regex(refusal(t, 'permissions=btcpay.store.canviewinvoices:01ARZ3NDEKTSV4RRFFQ69G5FAV'), /names a store: ask for "btcpay\.store\.canviewinvoices"/);
  t.regex(refusal(t, 'redirect=javascript%3Aalert(1)'), /not an http or https URL/);
  t.regex(refusal(t, 'redirect=data%3Atext%2Fhtml%2Cx'), /not an http or https URL/);
  t.regex(refusal(t, 'redirect=%2Fcallback'), /not an absolute URL/);
  t.regex(refusal(t, 'redirect=https%3A%2F%2Fa%3Ab%40shop.example%2F'), /user name or password/);
  t.regex(refusal(t, `redirect=${encodeURIComponent(`https://shop.example/${'a'.repeat(1000)}`)}`), /longer than 1000/);
  t.regex(refusal(t, 'strict=yes'), /strict must be true or false, not "yes"/);
  t.regex(refusal(t, 'selectiveStores=1'), /selectiveStores must be true or false/);
  t.regex(refusal(t, 'applicationName=a&applicationName=b'), /applicationName is given more than once/);
  t.regex(refusal(t, `applicationName=${'x'.repeat(201)}`), /longer than 200/);
  t.regex(refusal(t, 'applicationIdentifier=a%0Ab'), /control characters/);
  t.regex(refusal(t, Array.from({ length: 65 }, () => 'permissions=unrestricted').join('&')), /At most 64/);
  t.regex(refusal(t, 'permissions=x%07y'), /"x\?y"/, 'a control character is not echoed');
});

test('every permission the credentials area knows is described; server administration is the one kind refused', (t) => {
  t.deepEqual(Object.keys(PERMISSION_DESCRIPTIONS).sort(), [...BTCPAY_POLICIES].sort());
  for (const policy of BTCPAY_POLICIES) t.is(PERMISSION_DESCRIPTIONS[policy].use === 'refused', policy.startsWith('btcpay.server.'), policy);
});

test('strict with a server permission cannot be approved; without strict the server permission is dropped', (t) => {
  const strict = parse('permissions=btcpay.store.canviewinvoices&permissions=btcpay.server.canmanageusers');
  t.regex(whyNotGrantable(strict)!, /insists on “Manage users” \(btcpay\.server\.canmanageusers\)/);
  const loose = parse('permissions=btcpay.store.canviewinvoices&permissions=btcpay.server.canmanageusers&strict=false');
  t.is(whyNotGrantable(loose), undefined);
  t.deepEqual(splitRequested(loose), { grantable: ['btcpay.store.canviewinvoices'], refused: ['btcpay.server.canmanageusers'] });
  t.regex(whyNotGrantable(parse('permissions=btcpay.server.canviewusers&strict=false'))!, /Every permission/);
  t.regex(whyNotGrantable(parse(''))!, /asks for no permission/);
});

test('store permissions bind to each chosen project as BTCPay writes them; the others stay unbound', (t) => {
  t.deepEqual(grantedPermissions({ policies: ['btcpay.store.canviewinvoices', 'btcpay.user.canviewprofile', 'unrestricted'], storeIds: ['P1', 'P2'] }), [
    'btcpay.store.canviewinvoices:P1',
    'btcpay.store.canviewinvoices:P2',
    'btcpay.user.canviewprofile',
    'unrestricted',
  ]);
  t.deepEqual(grantedPermissions({ policies: ['btcpay.user.canviewprofile'], storeIds: [] }), ['btcpay.user.canviewprofile']);
  t.throws(() => grantedPermissions({ policies: ['btcpay.store.canviewinvoices'], storeIds: [] }), { message: /need a project/ });
  t.throws(() => grantedPermissions({ policies: [], storeIds: ['P1'] }), { message: /at least one permission/ });
});
