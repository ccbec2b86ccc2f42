import type { Projection } from './runtime/projection';
import { streamsProjection } from './streams/streams.projection';

export * from './runtime/projection';
export * from './runtime/catalog';
export * from './runtime/projection-runner';
export * from './runtime/projector';
export * from './runtime/consistency';

/** Every read model of the service. Later contexts add theirs here. */
export const PROJECTIONS: Projection[] = [streamsProjection];
