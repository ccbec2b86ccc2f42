import { fixTimestampsInJson } from '#mds/platform';
import { KeptAnswers } from '../runtime/kept-answers';
import { readFrom, requiredReadPosition } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { campaignDays, listCampaigns, RangeFigures, salesRangeReversed, type SalesRange } from './campaigns.queries';

export const CAMPAIGNS_READ_MODEL = Symbol('CampaignsReadModel');

type ListOptions = Parameters<typeof listCampaigns>[1];
/** A page: its records (`json`), the same joined by commas with timestamps in the answers' form (`text`), its last cursor. */
type ListPage = Awaited<ReturnType<typeof listCampaigns>> & { text: string };

/**
 * Campaigns with their statistics. An API process keeps the list pages it answered (`keepPagesFor`)
 * until the read model moves: the campaigns projection announces every page it commits on
 * mds_checkpoints (`campaigns:<position>`, sent with its COMMIT), whose arrival (`moved`), or a lost
 * connection to it (`forget`), makes the process forget them all; a lost announcement matters for the
 * keep time at most. A request with `Min-Position` beyond the last position announced when a page was
 * read gets a fresh read, so a client that saw its run complete never gets a page from before it.
 */
export class CampaignsReadModel {
  /** Records of sales-range lists this process computed, kept until their campaigns are computed again. */
  private readonly rangeFigures = new RangeFigures();
  /** Each page with the position it reflects at least (the last announced when its read began); at most 16 M characters. */
  private readonly pages = new KeptAnswers<{ page: ListPage; reflects: number }>({ maxSize: 16 * 1024 * 1024, sizeOf: (p) => p.page.text.length });
  /** The campaigns projection's last announced checkpoint: a read begun after it reflects it at least. */
  private announced = 0;

  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  keepPagesFor(ms: number): void {
    this.pages.keepFor(ms);
  }

  forget(): void {
    this.pages.forget();
  }

  /** The read model moved to `position` (an announced checkpoint). */
  moved(position: number): void {
    this.forget();
    if (position > this.announced) this.announced = position;
  }

  async list(options: ListOptions): Promise<ListPage> {
    const required = requiredReadPosition();
    // A replica's copy may lag what was announced: such a page claims no position.
    const reflects = this.read.readPools?.hasReplicas ? 0 : this.announced;
    const kept = await this.pages.get(
      JSON.stringify(options),
      async () => ({ page: await this.readList(options), reflects }),
      (k) => required === undefined || required <= k.reflects,
    );
    return kept.page;
  }

  private async readList(options: ListOptions): Promise<ListPage> {
    const page = await readFrom(this.read, { projections: ['campaigns'] }, ({ pool }) => listCampaigns(pool, options, this.rangeFigures));
    return { ...page, text: fixTimestampsInJson(page.json.join(',')) };
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
