export { OutletWorker } from './outlet-worker';
export { DeliveryWorker } from './delivery-worker';
