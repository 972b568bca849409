import { createHash, timingSafeEqual } from 'node:crypto';

/** The shortest administration token `serve` accepts. */
export const ADMIN_TOKEN_MIN_LENGTH = 16;

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Checks `Authorization: Bearer <token>` against the administration token in constant time:
 * both sides are hashed to digests of equal length first, so that neither the token's length nor
 * the position of a first difference shows in the time an answer takes.
 */
export function adminTokenCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    return timingSafeEqual(digest(match?.[1] ?? ''), expected) && match !== null;
  };
}
