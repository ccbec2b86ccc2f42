import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { campaignDays, listCampaigns } from './campaigns.queries';

export const CAMPAIGNS_READ_MODEL = Symbol('CampaignsReadModel');

/** Campaigns with their statistics. */
export class CampaignsReadModel {
  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  list(options: Parameters<typeof listCampaigns>[1]) {
    return readFrom(this.read, { projections: ['campaigns'] }, ({ pool }) => listCampaigns(pool, options));
  }

  /** A campaign's daily series; undefined when no campaign has the key. */
  days(key: string, options: Parameters<typeof campaignDays>[2]) {
    return campaignDays(this.read.pool, key, options);
  }
}
