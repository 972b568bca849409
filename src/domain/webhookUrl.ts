import { addressLiteral, refusedAddress } from './addressRanges.js';

/**
 * Why a webhook endpoint may not have this URL (docs/administration.md#private-addresses), or
 * `undefined` when it may: it must be `http` or `https`, carry no user name or password, and
 * (unless the server allows private addresses) its host must not be `localhost` or a name under
 * it, nor an IP address that {@link refusedAddress} refuses. A name that resolves to a private
 * address is refused when a call is made, on the address connected to.
 */
export function webhookUrlProblem(url: string, allowPrivate: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be http or https';
  if (parsed.username !== '' || parsed.password !== '') return 'must not carry a user name or password';
  if (allowPrivate) return undefined;
  const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not be localhost (the server is not started with --webhook-allow-private)';
  const literal = addressLiteral(parsed.hostname);
  const refused = literal === undefined ? undefined : refusedAddress(literal);
  return refused === undefined ? undefined : `must not be a private address: ${refused} (the server is not started with --webhook-allow-private)`;
}
