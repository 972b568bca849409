import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { refusedAddress } from '../domain/addressRanges.js';

/** A call not made: the address it would go to is not a public one (its message says why). */
export class RefusedAddress extends Error {}

/**
 * A `lookup` for outbound sockets that resolves as Node's own does and refuses the name when any
 * address it resolves to is refused ({@link refusedAddress}): the socket then connects nowhere.
 * The addresses checked are the ones the socket is given to connect to, so a name that resolves
 * anew between two calls (DNS rebinding) is checked anew. Node does not call a lookup for a host
 * that is an IP address: outboundCall.ts checks those itself.
 */
export const publicLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.map(({ address }) => refusedAddress(address)).find((why) => why !== undefined);
    if (refused !== undefined) return callback(new RefusedAddress(`${hostname} resolves to a ${refused}`), '', 0);
    const first = addresses[0];
    if (first === undefined) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
    if (options.all) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
};
