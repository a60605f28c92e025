import test from 'ava';
import { streamClientKey } from './stream-client.js';

test('stream clients: IPv4 by address, IPv6 by /64, IPv4-mapped IPv6 as IPv4 (issue 33 finding 19)', (t) => {
  t.is(streamClientKey('203.0.113.9'), '203.0.113.9');
  for (const mapped of ['::ffff:203.0.113.9', '::FFFF:cb00:7109', '[::ffff:203.0.113.9]', '0:0:0:0:0:ffff:203.0.113.9'])
    t.is(streamClientKey(mapped), '203.0.113.9', mapped);
  const prefix = '2001:db8:1:2::/64';
  for (const address of [
    '2001:db8:1:2::1',
    '2001:db8:1:2:ffff:ffff:ffff:ffff',
    '2001:0db8:0001:0002:0:0:0:a',
    '2001:DB8:1:2::b',
    '[2001:db8:1:2::c]',
    'fe80::1%eth0'.replace('fe80::1', '2001:db8:1:2::d'),
  ]) {
    t.is(streamClientKey(address), prefix, address);
  }
  t.is(streamClientKey('2001:db8:1:3::1'), '2001:db8:1:3::/64');
  t.is(streamClientKey('::1'), '0:0:0:0::/64');
  t.is(streamClientKey('unknown'), 'unknown');
});
