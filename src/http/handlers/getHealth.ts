import type { ReplicaState } from '../../store/vocabulary/readShapes.js';
import type { HandlerDeps, OperationHandler } from '../handlerTypes.js';

/**
 * `GET /healthz`: the database answers a read; when the server injects faults on demand, which;
 * when it has read replicas, the state of each read server (a replica out of rotation is no
 * failure of the server: its reads go elsewhere).
 */
export const getHealth =
  ({ store, faults }: HandlerDeps): OperationHandler =>
  async (_api, ctx) => {
    await store.health();
    const servers = store.readServers();
    ctx.body = {
      status: 'ok',
      ...(faults && { faults: faults.text }),
      ...(servers.length > 0 && { read_servers: servers.map(healthOf) }),
    };
  };

const healthOf = (server: ReplicaState) => ({
  name: server.name,
  in_rotation: server.inRotation,
  reads: server.reads,
  removals: server.removals,
  failures: server.failures,
  ...(server.position !== undefined && { position: server.position }),
  ...(server.lagMs !== undefined && { lag_ms: server.lagMs }),
  ...(server.reason !== undefined && { reason: server.reason }),
});
