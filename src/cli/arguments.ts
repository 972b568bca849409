import { InvalidArgumentError } from 'commander';

/**
 * Parsers of option values. Each throws commander's `InvalidArgumentError`, which commander
 * reports as a one-line usage error (exit 2).
 */

/** A parser of decimal integers from `min` to `max` (no sign, no exponent, no fraction). */
export function integerIn(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`must be an integer from ${min} to ${max}.`);
    }
    return value;
  };
}

export const parsePort = integerIn(0, 65_535);

/** A non-empty value without surrounding blanks or control characters (names, hosts, paths). */
export function parseText(text: string): string {
  if (text.length === 0 || text.length > 1_000) throw new InvalidArgumentError('must be 1 to 1000 characters.');
  if (text.trim() !== text) throw new InvalidArgumentError('must not start or end with blanks.');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(text)) throw new InvalidArgumentError('must not contain control characters.');
  return text;
}

/** A tenant name: text of at most 100 characters. */
export function parseTenantName(text: string): string {
  if (text.length > 100) throw new InvalidArgumentError('must be at most 100 characters.');
  return parseText(text);
}

/**
 * An absolute http(s) URL that `next` links can be built on: no query, fragment or
 * credentials. Returned without a trailing slash (`https://api.example.com/compdata`).
 */
export function parsePublicUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError('must be an absolute http or https URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('must be an absolute http or https URL.');
  }
  if (text.includes('?') || text.includes('#') || url.username || url.password) {
    throw new InvalidArgumentError('must not carry a query, a fragment or credentials.');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * One `--cors-origin` (repeatable): `*`, or a browser origin `scheme://host[:port]` as browsers
 * send it in `Origin` (no path, no trailing slash), added to the ones given before.
 */
export function parseCorsOrigin(text: string, previous: readonly string[] = []): string[] {
  if (text !== '*') {
    let url: URL | undefined;
    try {
      url = new URL(text);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== text) {
      throw new InvalidArgumentError('must be * or an origin such as https://app.example.com (scheme, host and port only).');
    }
  }
  return [...previous, text];
}

/** One `--db-replica` (repeatable): a `postgres://` URL, added to the ones given before. */
export function parseReplica(text: string, previous: readonly string[] = []): string[] {
  if (!/^postgres(ql)?:\/\//.test(text)) throw new InvalidArgumentError('must be a postgres:// URL of a streaming replica of --db.');
  return [...previous, text];
}

