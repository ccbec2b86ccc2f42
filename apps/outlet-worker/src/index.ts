export { OutletWorker, OUTLET_WORKER_PART } from './outlet-worker';
export { DeliveryWorker } from './delivery-worker';
