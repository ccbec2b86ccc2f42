import type { Projection } from './runtime/projection';
import { accessProjection } from './access/access.projection';
import { streamsProjection } from './streams/streams.projection';

export * from './runtime/projection';
export * from './runtime/catalog';
export * from './runtime/projection-runner';
export * from './runtime/projector';
export * from './runtime/consistency';
export { accessProjection } from './access/access.projection';
export { countUsers, findTokenByHash, type TokenRecord } from './access/access.queries';

/** Every read model of the service. Later contexts add theirs here. */
export const PROJECTIONS: Projection[] = [streamsProjection, accessProjection];
