import type { Context } from 'koa';

export interface PublicBaseConfig {
  /** `--public-url`: the base of every `next` (no trailing slash). */
  publicUrl?: string;
  /** Honour X-Forwarded-Proto and X-Forwarded-Host (only behind a proxy the operator trusts). */
  trustProxy: boolean;
}

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::[0-9]{1,5})?$/;

/**
 * The scheme and authority that `next` URLs start with (docs/rules.md#serving): the configured
 * public URL, else the request's Host (forwarded headers only when trusted). A missing or
 * malformed Host falls back to the address the request arrived on, so a bad header never yields
 * a bad URL.
 */
export function publicBase(ctx: Context, config: PublicBaseConfig): string {
  if (config.publicUrl) return config.publicUrl;
  const forwardedHost = config.trustProxy ? firstValue(ctx.get('X-Forwarded-Host')) : '';
  const forwardedProto = config.trustProxy ? firstValue(ctx.get('X-Forwarded-Proto')).toLowerCase() : '';
  const proto = forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : ctx.protocol;
  const host = [forwardedHost, ctx.get('Host')].find((candidate) => HOST.test(candidate)) ?? localAuthority(ctx);
  return `${proto}://${host}`;
}

function firstValue(header: string): string {
  return header.split(',')[0]!.trim();
}

function localAuthority(ctx: Context): string {
  const { localAddress = '127.0.0.1', localPort } = ctx.req.socket;
  const address = localAddress.startsWith('::ffff:') ? localAddress.slice(7) : localAddress;
  return `${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}
