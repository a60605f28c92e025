import test from 'ava';
import { NON_PUBLIC_IP_SAMPLES, PUBLIC_IP_SAMPLES } from '../testing/address-samples.js';
import { classifyAddress, isBlockedAddress } from './blocked-address.js';

test('private, loopback, link-local, unspecified, CGNAT, multicast and mapped forms are blocked, and what is no IP', (t) => {
  for (const address of [...NON_PUBLIC_IP_SAMPLES, 'not-an-ip']) t.true(isBlockedAddress(address), address);
});

test('public addresses pass, also inside IPv4-mapped, NAT64 and 6to4 forms', (t) => {
  for (const address of PUBLIC_IP_SAMPLES) t.false(isBlockedAddress(address), address);
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
