export { serve, type Part } from './serve';
export { buildCli } from './main';
