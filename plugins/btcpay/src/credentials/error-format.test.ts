import test from 'ava';
import { coreErrors } from '@gw/kernel';
import { btcpayErrors } from '../errors.js';
import { greenfieldErrorFormat } from './error-format.js';
import { missingPermission } from './permissions.js';

const render = (error: Parameters<ReturnType<typeof greenfieldErrorFormat>['render']>[0]['error']) =>
  greenfieldErrorFormat('/btcpay').render({ error, method: 'GET', path: '/btcpay/api/v1/stores', requestId: 'r' });

test('a missing permission is 403 missing-permission naming it, as BTCPay’s GreenfieldPermissionAPIError', (t) => {
  const rendered = render(missingPermission('btcpay.store.canviewinvoices'));
  t.is(rendered.status, 403);
  t.deepEqual(rendered.body, {
    code: 'missing-permission',
    message:
      'Insufficient API Permissions. Please use an API key with permission "btcpay.store.canviewinvoices". You can create an API key in your account\'s settings / Api Keys.',
    missingPermission: 'btcpay.store.canviewinvoices',
  });
});

test('invalid input is 422 and a list of paths and messages, from the kernel’s issues or an area’s own list', (t) => {
  const kernel = render(
    coreErrors.validation_error({
      message: 'amount is required',
      details: {
        field: 'amount',
        issues: [
          { field: 'amount', message: 'is required' },
          { field: 'checkout.expirationMinutes', message: 'must be integer' },
        ],
      },
    }),
  );
  t.deepEqual(kernel, {
    status: 422,
    body: [
      { path: 'amount', message: 'amount is required' },
      { path: 'checkout.expirationMinutes', message: 'checkout.expirationMinutes must be integer' },
    ],
  });
  const query = render(coreErrors.validation_error({ message: 'query.includeConfig must be boolean', details: { field: 'query.includeConfig' } }));
  t.deepEqual(query.body, [{ path: 'includeConfig', message: 'query.includeConfig must be boolean' }]);
  const own = render(btcpayErrors.btcpay_validation_failed({ message: 'x', details: { errors: [{ path: 'currency', message: 'Unknown currency' }] } }));
  t.deepEqual(own, { status: 422, body: [{ path: 'currency', message: 'Unknown currency' }] });
});

test('other errors are { code, message } with BTCPay’s code, a given greenfieldCode, or the gateway code in kebab case; 5xx keep no internals', (t) => {
  t.deepEqual(render(btcpayErrors.btcpay_invoice_not_found()), { status: 404, body: { code: 'invoice-not-found', message: 'The invoice was not found.' } });
  t.deepEqual(render(coreErrors.not_found()).body, { code: 'not-found', message: 'No such route.' });
  t.deepEqual(render(btcpayErrors.btcpay_invalid_state({ message: 'no', details: { greenfieldCode: 'non-refundable' } })).body, {
    code: 'non-refundable',
    message: 'no',
  });
  t.deepEqual(render(btcpayErrors.btcpay_not_supported({ details: { greenfieldCode: 'Not Kebab' } })).body, {
    code: 'not-supported',
    message: 'This gateway does not support this feature of the Greenfield API.',
  });
  const internal = render(coreErrors.internal_error({ cause: new Error('secret detail') }));
  t.is(internal.status, 500);
  t.is((internal.body as { code: string }).code, 'generic-error');
  t.false(JSON.stringify(internal.body).includes('secret detail'));
});
