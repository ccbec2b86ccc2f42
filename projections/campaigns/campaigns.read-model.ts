import { fixTimestampsInJson } from '#mds/platform';
import { readFrom, requiredReadPosition } from '../runtime/read-pools';
import type { ReadDeps } from '../runtime/read-side';
import { campaignDays, listCampaigns, RangeFigures, salesRangeReversed, type SalesRange } from './campaigns.queries';

export const CAMPAIGNS_READ_MODEL = Symbol('CampaignsReadModel');

type ListOptions = Parameters<typeof listCampaigns>[1];
/** A page: its records (`json`), the same joined by commas with timestamps in the answers' form (`text`), its last cursor. */
type ListPage = Awaited<ReturnType<typeof listCampaigns>> & { text: string };

interface KeptPage {
  page: ListPage;
  until: number;
  /** The position the page reflects at least (the last announced when its read began). */
  reflects: number;
  chars: number;
}

/** At most this many characters of kept list pages (the oldest go first). */
const KEPT_PAGES_CHARS = 16 * 1024 * 1024;

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
  private readonly pages = new Map<string, KeptPage>();
  private pageChars = 0;
  private keepMs = 0;
  /** Bumped by every forget: a read begun before one does not keep its answer after it. */
  private epoch = 0;
  /** The campaigns projection's last announced checkpoint: a read begun after it reflects it at least. */
  private announced = 0;

  constructor(private readonly read: Pick<ReadDeps, 'pool' | 'readPools'>) {}

  keepPagesFor(ms: number): void {
    this.keepMs = ms;
  }

  forget(): void {
    this.epoch++;
    this.pages.clear();
    this.pageChars = 0;
  }

  /** The read model moved to `position` (an announced checkpoint). */
  moved(position: number): void {
    this.forget();
    if (position > this.announced) this.announced = position;
  }

  async list(options: ListOptions): Promise<ListPage> {
    if (this.keepMs <= 0) return this.readList(options);
    const key = JSON.stringify(options);
    const now = Date.now();
    const kept = this.pages.get(key);
    const required = requiredReadPosition();
    if (kept && kept.until > now && (required === undefined || required <= kept.reflects)) return kept.page;
    // A replica's copy may lag what was announced: such a page claims no position.
    const [epoch, reflects] = [this.epoch, this.read.readPools?.hasReplicas ? 0 : this.announced];
    const page = await this.readList(options);
    if (epoch === this.epoch) this.keep(key, { page, until: now + this.keepMs, reflects, chars: page.json.reduce((n, j) => n + j.length, 0) });
    return page;
  }

  private async readList(options: ListOptions): Promise<ListPage> {
    const page = await readFrom(this.read, { projections: ['campaigns'] }, ({ pool }) => listCampaigns(pool, options, this.rangeFigures));
    return { ...page, text: fixTimestampsInJson(page.json.join(',')) };
  }

  private keep(key: string, entry: KeptPage): void {
    const old = this.pages.get(key);
    if (old) this.pageChars -= old.chars;
    this.pages.delete(key);
    this.pages.set(key, entry);
    this.pageChars += entry.chars;
    for (const [k, e] of this.pages) {
      if (this.pageChars <= KEPT_PAGES_CHARS) break;
      this.pages.delete(k);
      this.pageChars -= e.chars;
    }
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
