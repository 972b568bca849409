import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { refusedAddress } from '../../src/domain/addressRanges.js';

/**
 * The IPv4 ranges a call may not go to, written out from the special-purpose address registry
 * (RFC 6890 and after), apart from the code's tables: the property below holds the code to them.
 */
const REFUSED_V4: readonly [string, number][] = [
  ['0.0.0.0', 8], // this network (with 0.0.0.0)
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, the cloud metadata address 169.254.169.254 among them
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.31.196.0', 24], // AS112
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, 255.255.255.255 (broadcast) among them
];

/** Within `2000::/3`, the ranges that are not globally reachable unicast. */
const REFUSED_GLOBAL_V6: readonly [number[], number][] = [
  [[0x2001, 0], 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID...)
  [[0x2001, 0xdb8], 32], // documentation
  [[0x2002], 16], // 6to4
  [[0x2620, 0x4f, 0x8000], 48], // AS112
  [[0x3fff, 0], 20], // documentation
];

const v4Number = (text: string) => text.split('.').reduce((sum, octet) => sum * 256 + Number(octet), 0);
const v4Text = (n: number) => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');
const inV4 = (n: number, [base, bits]: [string, number]) => bits === 0 || n >>> (32 - bits) === v4Number(base) >>> (32 - bits);
const v4Refused = (n: number) => REFUSED_V4.some((range) => inV4(n, range));
const mappedForms = (n: number) => [`::ffff:${v4Text(n)}`, `::ffff:${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`];

const groups = fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 });
const v6Text = (parts: number[]) => parts.map((part) => part.toString(16)).join(':');
const inV6 = (parts: number[], [base, bits]: [number[], number]) => {
  for (let bit = 0; bit < bits; bit++) {
    const mask = 0x8000 >>> bit % 16;
    if ((parts[Math.floor(bit / 16)]! & mask) !== ((base[Math.floor(bit / 16)] ?? 0) & mask)) return false;
  }
  return true;
};

test('every IPv4 address is refused exactly when it is in a special-purpose range, and so is its IPv4-mapped form', () => {
  fc.assert(
    fc.property(fc.nat({ max: 0xffffffff }), (n) => {
      const refused = v4Refused(n);
      assert.equal(refusedAddress(v4Text(n)) !== undefined, refused, v4Text(n));
      for (const mapped of mappedForms(n)) assert.equal(refusedAddress(mapped) !== undefined, refused, mapped);
    }),
    { numRuns: 5000 },
  );
});

test('every address inside a refused IPv4 range is refused, in both IPv4-mapped forms too', () => {
  const anyRange = fc.constantFrom(...REFUSED_V4);
  fc.assert(
    fc.property(anyRange, fc.nat({ max: 0xffffffff }), ([base, bits], noise) => {
      const hostBits = bits === 32 ? 0 : noise & (2 ** (32 - bits) - 1);
      const n = (v4Number(base) + hostBits) >>> 0;
      for (const text of [v4Text(n), ...mappedForms(n)]) assert.notEqual(refusedAddress(text), undefined, text);
    }),
  );
});

test('IPv6: unique local, link-local, multicast and everything outside 2000::/3 refused; global unicast allowed but for its special ranges', () => {
  const prefixed = (prefix: number, bits: number) => groups.map(([first, ...rest]) => [(prefix & (0xffff << (16 - bits))) | (first! & (0xffff >>> bits)), ...rest]);
  fc.assert(
    fc.property(fc.oneof(prefixed(0xfc00, 7), prefixed(0xfe80, 10), prefixed(0xff00, 8)), (parts) => {
      assert.notEqual(refusedAddress(v6Text(parts)), undefined, v6Text(parts));
    }),
  );
  fc.assert(
    fc.property(groups, (parts) => {
      const global = parts[0]! >= 0x2000 && parts[0]! < 0x4000;
      const refused = !global || REFUSED_GLOBAL_V6.some((range) => inV6(parts, range));
      assert.equal(refusedAddress(v6Text(parts)) !== undefined, refused, v6Text(parts));
    }),
    { numRuns: 5000 },
  );
  fc.assert(
    fc.property(prefixed(0x2000, 3), (parts) => {
      const refused = REFUSED_GLOBAL_V6.some((range) => inV6(parts, range));
      assert.equal(refusedAddress(v6Text(parts)) !== undefined, refused, v6Text(parts));
    }),
    { numRuns: 5000 },
  );
});

test('refusedAddress, by example', async (t) => {
  const cases: [string, { given: string; want: string | undefined }][] = [
    ['loopback', { given: '127.0.0.1', want: 'loopback address 127.0.0.1' }],
    ['the cloud metadata address', { given: '169.254.169.254', want: 'linkLocal address 169.254.169.254' }],
    ['this network', { given: '0.0.0.0', want: 'unspecified address 0.0.0.0' }],
    ['broadcast', { given: '255.255.255.255', want: 'broadcast address 255.255.255.255' }],
    ['carrier-grade NAT', { given: '100.64.0.1', want: 'carrierGradeNat address 100.64.0.1' }],
    ['IPv6 loopback', { given: '::1', want: 'loopback address ::1' }],
    ['IPv6 unspecified', { given: '::', want: 'unspecified address ::' }],
    ['IPv4-mapped loopback', { given: '::ffff:127.0.0.1', want: 'loopback address ::ffff:127.0.0.1 (IPv4-mapped)' }],
    ['IPv4-mapped, in hex', { given: '::ffff:a9fe:a9fe', want: 'linkLocal address ::ffff:a9fe:a9fe (IPv4-mapped)' }],
    ['IPv4-compatible loopback', { given: '::127.0.0.1', want: 'not a global unicast address ::127.0.0.1' }],
    ['IPv4-compatible, of a public address', { given: '::8.8.8.8', want: 'not a global unicast address ::8.8.8.8' }],
    ['NAT64 of loopback', { given: '64:ff9b::7f00:1', want: 'rfc6052 address 64:ff9b::7f00:1' }],
    ['6to4 of loopback', { given: '2002:7f00:1::1', want: '6to4 address 2002:7f00:1::1' }],
    ['link-local with a zone', { given: 'fe80::1%eth0', want: 'linkLocal address fe80::1%eth0' }],
    ['unique local', { given: 'fd12:3456::1', want: 'uniqueLocal address fd12:3456::1' }],
    ['a short IPv4 form', { given: '127.1', want: 'not an IP address: 127.1' }],
    ['a name', { given: 'localhost', want: 'not an IP address: localhost' }],
    ['public IPv4', { given: '93.184.215.14', want: undefined }],
    ['public IPv4, mapped', { given: '::ffff:93.184.215.14', want: undefined }],
    ['public IPv6', { given: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', want: undefined }],
  ];
  for (const [name, { given, want }] of cases) await t.test(name, () => assert.equal(refusedAddress(given), want));
});
