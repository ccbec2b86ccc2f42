export * from './runtime';
export * from './bootstrap-admin';
export { RuntimeModule } from './runtime.module';
export { PROJECTOR_PART, runService, type PartName, type ServicePart } from './service';
