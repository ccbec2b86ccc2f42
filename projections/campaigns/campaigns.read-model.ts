import { readFrom } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { campaignDays, listCampaigns, RangeFigures, salesRangeReversed, type SalesRange } from './campaigns.queries';

export const CAMPAIGNS_READ_MODEL = Symbol('CampaignsReadModel');

/** Campaigns with their statistics. */
export class CampaignsReadModel {
  /** Records of sales-range lists this process computed, kept until their campaigns are computed again. */
  private readonly rangeFigures = new RangeFigures();

  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  list(options: Parameters<typeof listCampaigns>[1]) {
    return readFrom(this.read, { projections: ['campaigns'] }, ({ pool }) => listCampaigns(pool, options, this.rangeFigures));
  }

  /** A campaign's daily series; undefined when no campaign has the key. */
  days(key: string, options: Parameters<typeof campaignDays>[2]) {
    return readFrom(this.read, { projections: ['campaigns'] }, ({ pool }) => campaignDays(pool, key, options));
  }

  /** Whether sales_start lies after sales_end in the settings' time zone. */
  salesRangeReversed(range: Required<SalesRange>) {
    return readFrom(this.read, { projections: ['campaigns'] }, ({ pool }) => salesRangeReversed(pool, range));
  }
}
