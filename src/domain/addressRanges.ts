import ipaddr from 'ipaddr.js';

/**
 * Why a webhook call may not go to an address (docs/administration.md#private-addresses), or
 * `undefined` when it may: only public unicast addresses are called.
 *
 * The ranges are the ipaddr package's tables of the special-purpose registries (RFC 6890 and after):
 * every address whose range is not `unicast` is refused: loopback (127/8, `::1`), private
 * (10/8, 172.16/12, 192.168/16), link-local (169.254/16 with the cloud metadata address,
 * `fe80::/10`), unique local (`fc00::/7`), carrier-grade NAT (100.64/10), unspecified (0/8,
 * `::`), multicast, broadcast, documentation, benchmarking and reserved ranges. An IPv6 address
 * must also be global unicast (`2000::/3`), which leaves out the IPv4-compatible `::/96`, NAT64
 * and whatever the registries add later; 6to4 and Teredo, which carry an IPv4 address inside,
 * are refused too. An IPv4-mapped address (`::ffff:127.0.0.1`) is judged as the IPv4 address
 * it stands for. Text that is not an address in its usual form (dotted decimal, or IPv6) is
 * refused: nothing uncertain is called.
 */
export function refusedAddress(address: string): string | undefined {
  const parsed = parsedAddress(address);
  if (parsed === undefined) return `not an IP address: ${address}`;
  const judged = parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress() ? (parsed as ipaddr.IPv6).toIPv4Address() : parsed;
  const range = judged.range();
  const mapped = judged === parsed ? '' : ' (IPv4-mapped)';
  if (range !== 'unicast') return `${range} address ${address}${mapped}`;
  if (judged.kind() === 'ipv6' && !judged.match(GLOBAL_UNICAST)) return `not a global unicast address ${address}`;
  return undefined;
}

/** `2000::/3`: the IPv6 global unicast addresses (RFC 4291 2.4). */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/**
 * An IPv4 address in dotted decimal or an IPv6 address (a zone, as in `fe80::1%eth0`, kept);
 * else `undefined`. IPv6 text is first written as the URL standard writes it (hex groups only):
 * the ipaddr package reads an IPv4-compatible `::127.0.0.1` as if it were the mapped `::ffff:127.0.0.1`.
 */
function parsedAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes(':')) return undefined;
  const [bare, zone] = text.split('%', 2) as [string, string | undefined];
  let canonical: string;
  try {
    canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const withZone = zone === undefined ? canonical : `${canonical}%${zone}`;
  return ipaddr.IPv6.isValid(withZone) ? ipaddr.IPv6.parse(withZone) : undefined;
}

/** The text of an IP address literal in a URL's host (IPv6 without its brackets), or `undefined` for a name. */
export function addressLiteral(hostname: string): string | undefined {
  if (hostname.startsWith('[') && hostname.endsWith(']')) return hostname.slice(1, -1);
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : undefined;
}
