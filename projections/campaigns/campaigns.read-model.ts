import type { ReadDeps } from '../runtime/read-side';
import { listCampaigns } from './campaigns.queries';

export const CAMPAIGNS_READ_MODEL = Symbol('CampaignsReadModel');

/** Campaigns with their statistics. */
export class CampaignsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool'>) {}

  list(options: Parameters<typeof listCampaigns>[1]) {
    return listCampaigns(this.read.pool, options);
  }
}
