import type { ServicePart } from '#mds/runtime';
import { createApiApp } from './api.app';

/** The HTTP API as a part of the service (`mds api`, `mds start`): listens on PORT and HOST. */
export const API_PART: ServicePart = {
  name: 'api',
  async start(runtime) {
    const app = await createApiApp(runtime);
    try {
      await app.listen(runtime.config.port, runtime.config.host);
    } catch (err) {
      // Not listening, not stopped by the service either: close it here, or its database watch outlives the pool.
      await app.close().catch(() => undefined);
      throw err;
    }
    const address = app.getHttpServer().address();
    return { stop: () => app.close(), port: typeof address === 'object' && address ? address.port : runtime.config.port };
  },
};
