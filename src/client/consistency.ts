import type { Send } from './retry.js';

/** The header of a write's consistency token, and of a read that asks to see it (see the contract's "Read replicas"). */
const HEADER = 'Compdata-Consistency';

/**
 * Read-your-writes for one client: keeps the latest consistency token of the answers it
 * received (tokens compare as numbers) and sends it on every read, so that a server with read
 * replicas answers each read from a server that has every write this client made. A server
 * without replicas sends no token, and nothing is sent back.
 */
export function keepingConsistency(send: Send): { send: Send; latest(): string | undefined } {
  let latest: bigint | undefined;
  return {
    latest: () => latest?.toString(),
    async send(request) {
      const reads = request.method === 'GET' || request.method === 'HEAD';
      const sent = reads && latest !== undefined ? withHeader(request, latest.toString()) : request;
      const response = await send(sent);
      const token = response.headers.get(HEADER);
      if (token !== null && /^[0-9]{1,20}$/.test(token) && (latest === undefined || BigInt(token) > latest)) latest = BigInt(token);
      return response;
    },
  };
}

function withHeader(request: Request, token: string): Request {
  const headers = new Headers(request.headers);
  headers.set(HEADER, token);
  return new Request(request, { headers });
}
