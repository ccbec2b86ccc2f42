import type { Runtime } from '#mds/runtime';
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
