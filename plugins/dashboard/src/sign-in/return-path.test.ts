import test from 'ava';
import { RETURN_PATH_MAX, safeReturnPath, signInReturningTo } from './return-path.js';

test('a dashboard path, with its query, is a safe return path, as the URL parser normalises it', (t) => {
  t.is(safeReturnPath('/dashboard'), '/dashboard');
  t.is(
    safeReturnPath('/dashboard/btcpay-keys/authorize?permissions=a&permissions=b&redirect=https%3A%2F%2Fshop.example%2F'),
    '/dashboard/btcpay-keys/authorize?permissions=a&permissions=b&redirect=https%3A%2F%2Fshop.example%2F',
  );
  t.is(safeReturnPath('/dashboard?x=1'), '/dashboard?x=1');
  t.is(safeReturnPath('/dashboard/projects/./x'), '/dashboard/projects/x');
  t.is(safeReturnPath('/dashboard/a#fragment'), '/dashboard/a', 'the fragment is not kept');
});

test('another site, another part of this site, or anything a browser could read as either, is refused', (t) => {
  for (const value of [
    'https://evil.example/dashboard',
    '//evil.example/dashboard',
    '/\\evil.example',
    '/dashboard\\..\\..\\evil',
    '/dashboard/..//evil.example',
    '/dashboard/%2e%2e/v1/invoices',
    '/dashboard/../api/v1',
    '/dashboards',
    '/dashboard-evil',
    '/api/v1/invoices',
    '/',
    '',
    'dashboard',
    'javascript:alert(1)',
    '/dashboard/\tx',
    '/dashboard/ x',
    '/dashboard/\u0000',
    '/dashboard/é',
  ]) {
    t.is(safeReturnPath(value), undefined, JSON.stringify(value));
  }
});

test('the sign-in pages themselves, over-long paths and non-strings are refused', (t) => {
  t.is(safeReturnPath('/dashboard/sign-in'), undefined);
  t.is(safeReturnPath('/dashboard/sign-in/code'), undefined);
  t.is(safeReturnPath('/dashboard/sign-out'), undefined);
  t.is(safeReturnPath(`/dashboard/${'a'.repeat(RETURN_PATH_MAX)}`), undefined);
  t.is(safeReturnPath(`/dashboard/${'a'.repeat(RETURN_PATH_MAX - 11)}`)?.length, RETURN_PATH_MAX);
  t.is(safeReturnPath(['/dashboard/a', '/dashboard/b']), undefined, 'a repeated query parameter');
  t.is(safeReturnPath(undefined), undefined);
});

test('signInReturningTo builds the sign-in address carrying the path, and refuses anything else', (t) => {
  const address = signInReturningTo('/dashboard/btcpay-keys/authorize?permissions=x');
  t.is(address, '/dashboard/sign-in?return_to=%2Fdashboard%2Fbtcpay-keys%2Fauthorize%3Fpermissions%3Dx');
  t.is(new URL(address, 'http://gw.test').searchParams.get('return_to'), '/dashboard/btcpay-keys/authorize?permissions=x');
  t.throws(() => signInReturningTo('https://evil.example/'));
});
