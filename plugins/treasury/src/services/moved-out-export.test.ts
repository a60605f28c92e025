import test from 'ava';
import { feeShares, MovedOutExport } from './moved-out-export.js';

test('each project pays the fee in proportion to what the plan spent of its outputs, and the shares add up to the fee', (t) => {
  const rows = [
    { plan_id: 'a', fee_units: 1000n, plan_units: 300n, value_units: 100n },
    { plan_id: 'a', fee_units: 1000n, plan_units: 300n, value_units: 100n },
    { plan_id: 'a', fee_units: 1000n, plan_units: 300n, value_units: 100n },
    { plan_id: 'b', fee_units: 7n, plan_units: 50n, value_units: 50n },
  ];
  t.deepEqual(feeShares(rows), [333n, 333n, 334n, 7n]);
});

test('the CSV has a header and quotes what needs quoting', (t) => {
  const csv = MovedOutExport.csv([
    {
      plan_id: 'p',
      confirmed_at_iso: '2026-11-28T00:00:00.000Z',
      chain: 'btc',
      network: 'bitcoin',
      coin: 'btc',
      kind: 'sweep',
      txid: 't',
      project_id: 'x',
      value_units: '10',
      fee_units: '1',
      destination: 'a,"b"',
      destination_kind: 'external',
      method: '',
      paid_units: '',
    },
  ]);
  t.is(
    csv,
    'plan_id,confirmed_at_iso,chain,network,coin,kind,txid,project_id,value_units,fee_units,destination,destination_kind,method,paid_units\r\np,2026-11-28T00:00:00.000Z,btc,bitcoin,btc,sweep,t,x,10,1,"a,""b""",external,,\r\n',
  );
});
