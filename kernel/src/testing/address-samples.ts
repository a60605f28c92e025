/**
 * IP literals a guard against private targets must refuse, one of each kind: private, loopback,
 * link-local (cloud metadata), unspecified, CGNAT, multicast, broadcast, benchmarking, unique
 * local, bracketed IPv6, and private addresses inside IPv4-mapped, IPv4-compatible, NAT64, 6to4
 * and Teredo forms.
 */
export const NON_PUBLIC_IP_SAMPLES: readonly string[] = [
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
  'fd00::1',
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
];

/** Public IP literals, also inside IPv4-mapped, NAT64 and 6to4 forms, and just outside a private range. */
export const PUBLIC_IP_SAMPLES: readonly string[] = [
  '93.184.216.34',
  '1.1.1.1',
  '8.8.8.8',
  '172.32.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:82a::200e',
  '::ffff:8.8.8.8',
  '::ffff:808:808',
  '64:ff9b::808:808',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
];
