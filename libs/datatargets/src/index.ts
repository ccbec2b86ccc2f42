export * from './datatarget.events';
export * from './datatarget.commands';
export * from './outlet-delivery';
export * from './delivery';
