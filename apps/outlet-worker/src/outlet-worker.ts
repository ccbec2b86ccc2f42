import type { Runtime } from '../../../libs/runtime/src';
import { OutletReactor } from './outlet.reactor';

/** The outlet worker's process-level shell: started by `mds outlet-worker` or by `mds start`. */
export class OutletWorker {
  private readonly reactor: OutletReactor;

  constructor(runtime: Runtime) {
    this.reactor = new OutletReactor(runtime.store, runtime.logger.child({ component: 'outlet-worker' }));
  }

  start(): Promise<void> {
    return this.reactor.start();
  }

  stop(): Promise<void> {
    return this.reactor.stop();
  }
}
