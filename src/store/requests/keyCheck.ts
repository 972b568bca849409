import { BoundedMap } from '../../domain/boundedMap.js';
import { hashSecret, parseKey, secretMatches } from '../apiKeys.js';
import type { StoredKey } from '../engine/readSteps.js';
import type { RequestStore } from '../store.js';
import type { StoreContext } from '../storeContext.js';
import type { Principal } from '../vocabulary/tenancy.js';
import type { ReadServer } from './readRouting.js';
import { rememberedKeys, type KnownKey } from './rememberedKeys.js';

/**
 * What a key grants: its tenant, what a read of the tenant needs at once, and the server its
 * reads go to (the server the key was looked up on: the version is that server's).
 */
export interface Grant extends Principal {
  /** The key's id, to look it up again on another server. */
  readonly keyId: string;
  /** The dimension fields of a record whose user holds no group. */
  emptyFragment: string;
  /** The version of the tenant's data when the key was looked up (see `Total.version`). */
  dataVersion: string;
  /** A read replica, or the primary (`undefined`). */
  server: ReadServer;
  /** The replica's replay position known before its reads (a lower bound). */
  position: bigint | undefined;
  /** Whether the key of a provisional grant (see `RequestStore.confirm`) is still unchecked: the fields but the tenant are then unknown. */
  pending?: boolean;
  /** A provisional grant's secret as presented, and its hash that a keyed read compares in its statement. */
  presented?: { secret: string; secretHash: Buffer };
}

/** The principal as the store made it: every principal a store hands out is a grant. */
export const grantOf = (principal: Principal): Grant => principal as Grant;

/**
 * The version as the store hands it out: opaque, distinct across tenants. It is read with the
 * key, before the page: a version read before the data can only be older than the data read,
 * so a client holding it is at worst sent the same page again, never told that a changed page
 * is unchanged.
 */
const versionText = (tenantId: number, stored: string): string => `${tenantId}.${stored}`;

/** Key ids whose tenants are remembered at most (for keyed reads): past this many, the memory starts again empty. */
const MAX_KEYS_KNOWN = 4096;

/** A consistency token as the store issues them (the decimal of a log position), or `undefined` for anything else. */
const positionOf = (token: string | undefined): bigint | undefined => (token !== undefined && /^[0-9]{1,20}$/.test(token) ? BigInt(token) : undefined);

export interface KeyCheck extends Pick<RequestStore, 'authenticate' | 'servedBy' | 'confirm'> {
  /**
   * A provisional grant settled by the key's row that a keyed read returned with its answer (made
   * whole, unless a read beside it has checked the key meanwhile): the data version of that row,
   * the read's own snapshot, when the row grants the read (active, the secret's hash matching,
   * compared again here in constant time); `undefined` when the key is gone.
   */
  settle(held: Grant, stored: StoredKey): string | undefined;
  /** The grant's reads moved to the primary, with the primary's version of the tenant's data. */
  moveToPrimary(held: Grant): Promise<void>;
  /** Forgets the remembered key checks (a commit the engine's change counter does not count). */
  forget(): void;
}

/**
 * The key check of every request (docs/rules.md#keys): the key's id looked up on the server its
 * reads go to, its secret compared in constant time, the same work whether the id is unknown,
 * the secret wrong or the key revoked. On an engine that can tell whether anything was committed
 * (SQLite), the primary's checks are remembered until it was (rememberedKeys.ts).
 */
export function keyCheck({ engine, router, unreachable }: StoreContext): KeyCheck {
  const { keys } = engine;
  const remembered = engine.changeCounter && rememberedKeys<Grant>(engine.changeCounter);
  // The tenant of each key id checked valid here (a key never changes tenant; an id made again
  // for another tenant is found by the full lookup that a keyed read without a row falls back to).
  const tenantOfKey = engine.keyedReads && new BoundedMap<string, number>(MAX_KEYS_KNOWN);
  const lookUpKey = async (id: string): Promise<KnownKey<Grant> | null> => {
    const counter = remembered?.counter();
    const stored = await keys.lookup(id);
    const known = stored
      ? {
          secretHash: stored.secretHash,
          grant: stored.revoked
            ? undefined
            : ({
                keyId: id,
                tenantId: stored.tenantId,
                emptyFragment: stored.emptyFragment,
                dataVersion: versionText(stored.tenantId, stored.dataVersion),
                scope: stored.scope,
                server: undefined,
                position: undefined,
              } satisfies Grant),
        }
      : null;
    if (remembered && counter !== undefined) remembered.remember(id, counter, known);
    if (tenantOfKey && stored && !stored.revoked) tenantOfKey.set(id, stored.tenantId);
    return known;
  };

  /** The key `keyId` with `secret` looked up on `server`: its grant, or `undefined`. */
  const grantOn = async (server: ReadServer, position: bigint | undefined, keyId: string, secret: string): Promise<Grant | undefined> => {
    if (!server) {
      const recalled = remembered?.recall(keyId);
      const known = recalled === undefined ? await lookUpKey(keyId) : recalled;
      // A copy: a request may move its grant to the primary.
      if (!secretMatches(secret, known?.secretHash)) return undefined;
      return known?.grant && { ...known.grant };
    }
    const stored = await server.keys.lookup(keyId);
    if (!secretMatches(secret, stored?.secretHash) || !stored || stored.revoked) return undefined;
    const dataVersion = versionText(stored.tenantId, stored.dataVersion);
    return { keyId, tenantId: stored.tenantId, emptyFragment: stored.emptyFragment, dataVersion, scope: stored.scope, server, position };
  };

  return {
    async authenticate(presented, read) {
      const parsed = parseKey(presented);
      if (!parsed) return undefined;
      const tenantId = read && !router ? tenantOfKey?.get(parsed.id) : undefined;
      if (tenantId !== undefined) {
        // A read of a key checked here before: its check is left to the statement of the read.
        const presented = { secret: parsed.secret, secretHash: hashSecret(parsed.secret) };
        return { keyId: parsed.id, tenantId, scope: 'read', emptyFragment: '', dataVersion: '', server: undefined, position: undefined, pending: true, presented } satisfies Grant;
      }
      if (read === undefined || router === undefined) return grantOn(undefined, undefined, parsed.id, parsed.secret);
      const { server, position } = await router.choose(positionOf(read.consistency));
      if (server) {
        try {
          const granted = await grantOn(server, position, parsed.id, parsed.secret);
          if (granted) return granted;
          // Not valid there: perhaps a key created a moment ago, which the replica has not replayed yet.
        } catch (error) {
          router.failed(server, error, unreachable(error));
        }
        router.servedByPrimary();
      }
      return grantOn(undefined, undefined, parsed.id, parsed.secret);
    },
    servedBy(principal) {
      if (!router) return undefined;
      const { server, position } = grantOf(principal);
      return server ? `${server.name};position=${position}` : 'primary';
    },
    async moveToPrimary(held) {
      router?.servedByPrimary();
      const stored = await keys.lookup(held.keyId);
      held.server = undefined;
      held.position = undefined;
      if (stored) {
        held.emptyFragment = stored.emptyFragment;
        held.dataVersion = versionText(stored.tenantId, stored.dataVersion);
      }
    },
    async confirm(principal) {
      const held = grantOf(principal);
      if (!held.pending || !held.presented) return true;
      const granted = await grantOn(undefined, undefined, held.keyId, held.presented.secret);
      if (!granted) return false;
      if (held.pending) Object.assign(held, granted, { pending: false, presented: held.presented });
      return true;
    },
    settle(held, stored) {
      if (!held.presented || stored.revoked || !secretMatches(held.presented.secret, stored.secretHash)) return undefined;
      const dataVersion = versionText(stored.tenantId, stored.dataVersion);
      if (held.pending) Object.assign(held, { scope: stored.scope, emptyFragment: stored.emptyFragment, dataVersion, pending: false });
      return dataVersion;
    },
    forget: () => remembered?.forget(),
  };
}
