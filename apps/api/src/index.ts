export { createApiApp } from './api.app';
export { API_PART } from './api.part';
export { ApiModule, CONTEXT_MODULES, type ApiContextModules } from './api.module';
export { ACCESS_RULE, PASSWORD_LOGIN, Public, RequirePermission, type AccessRule } from './access/permissions';
