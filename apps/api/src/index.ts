export { createApiApp } from './api.app';
export { ApiModule, CONTEXT_MODULES, type ApiContextModules } from './api.module';
export { Public, RequirePermission } from './access/permissions';
