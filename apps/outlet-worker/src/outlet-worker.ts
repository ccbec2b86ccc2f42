import type { Runtime, ServicePart } from '#mds/runtime';
import { DeliveryWorker } from './delivery-worker';

/** The outlet worker's process-level shell: started by `mds outlet-worker` or by `mds start`. */
export class OutletWorker {
  readonly delivery: DeliveryWorker;

  constructor(runtime: Runtime) {
    this.delivery = new DeliveryWorker(runtime, runtime.config.outlets, runtime.logger.child({ component: 'outlet-worker' }));
  }

  start(): Promise<void> {
    return this.delivery.start();
  }

  stop(): Promise<void> {
    return this.delivery.stop();
  }
}

/** The outlet worker as a part of the service (`mds outlet-worker`, `mds start`). */
export const OUTLET_WORKER_PART: ServicePart = {
  name: 'outlet-worker',
  async start(runtime) {
    const worker = new OutletWorker(runtime);
    await worker.start();
    return { stop: () => worker.stop() };
  },
};
