import 'reflect-metadata';
import type { ServicePart } from '#mds/runtime';

export type Part = 'api' | 'projector' | 'outlet-worker';

/**
 * Runs the given parts in this process until SIGINT/SIGTERM (`mds start` runs all three). The CLI is
 * the one app that launches the others: it loads the API's and the outlet worker's part (their
 * index, nothing inside) only for the parts asked for, so `mds projector` never loads the HTTP stack.
 */
export async function serve(parts: Part[]): Promise<void> {
  const { PROJECTOR_PART, runService } = await import('#mds/runtime');
  const load = async (part: Part): Promise<ServicePart> => {
    if (part === 'api') return (await import('#mds/api')).API_PART;
    if (part === 'outlet-worker') return (await import('#mds/outlet-worker')).OUTLET_WORKER_PART;
    return PROJECTOR_PART;
  };
  await runService(await Promise.all(parts.map(load)));
}
