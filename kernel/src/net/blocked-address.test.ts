import test from 'ava';
import { classifyAddress, isBlockedAddress } from './blocked-address.js';

test('private, loopback, link-local, unspecified, CGNAT, multicast and mapped forms are blocked', (t) => {
  for (const address of [
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '::',
    '::1',
    '[::1]',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '64:ff9b::7f00:1',
    '2002:7f00:1::',
    '2001:0:4136:e378::',
    'not-an-ip',
  ]) {
    t.true(isBlockedAddress(address), address);
  }
});

test('public addresses pass, also inside IPv4-mapped, NAT64 and 6to4 forms', (t) => {
  for (const address of [
    '93.184.216.34',
    '1.1.1.1',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '2a00:1450:4001:82a::200e',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ]) {
    t.false(isBlockedAddress(address), address);
  }
});

test('IPv4-mapped, NAT64 and 6to4 forms of private addresses are blocked', (t) => {
  for (const address of ['::ffff:10.0.0.1', '64:ff9b::a00:1', '64:ff9b::169.254.169.254', '2002:a9fe:a9fe::', '2002:c0a8:101::1', '::ffff:0.0.0.0'])
    t.true(isBlockedAddress(address), address);
});

test('classifyAddress tells loopback and link-local from other private ranges', (t) => {
  for (const a of ['127.0.0.1', '127.9.9.9', '::1', '[::1]', '::ffff:127.0.0.1']) t.is(classifyAddress(a), 'loopback', a);
  for (const a of ['169.254.169.254', 'fe80::1', '::ffff:169.254.169.254', '[fe80::abcd]']) t.is(classifyAddress(a), 'link-local', a);
  for (const a of ['10.0.0.1', '192.168.1.1', 'fc00::1', '100.64.0.1', '0.0.0.0', 'not-an-ip']) t.is(classifyAddress(a), 'private', a);
  for (const a of ['8.8.8.8', '2606:4700::1111']) t.is(classifyAddress(a), 'public', a);
});
