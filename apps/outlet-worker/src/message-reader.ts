import type { DatatargetsReadModel } from '#mds/projections';

export type MessageRow = Awaited<ReturnType<DatatargetsReadModel['messages']>>[number];

/**
 * An outlet's messages, read several batches at a time: a batch is cut from what was read, and the
 * next read starts while the last full batch is being sent (the first read takes one batch only). A batch that failed is still there for
 * its retry; a rewind or a gap (delivery moved elsewhere) reads afresh.
 */
export class MessageReader {
  private rows: MessageRow[] = [];
  private ahead?: { after: number; rows: Promise<MessageRow[]> };

  constructor(
    private readonly datatargets: Pick<DatatargetsReadModel, 'messages'>,
    private readonly datatargetId: string,
  ) {}

  /** Up to `size` messages after `after`; `readAhead` when they come from a read made earlier. */
  async batch(after: number, size: number): Promise<{ batch: MessageRow[]; readAhead: boolean }> {
    const chunk = Math.min(size * 10, 5000);
    const start = this.rows.findIndex((r) => Number(r.number) > after);
    this.rows = start < 0 || Number(this.rows[start].number) !== after + 1 ? [] : this.rows.slice(start);
    let readAhead = this.rows.length > 0;
    if (this.rows.length < size) {
      const from = this.rows.length ? Number(this.rows[this.rows.length - 1].number) : after;
      const ahead = this.ahead?.after === from ? await this.ahead.rows.catch(() => undefined) : undefined;
      this.ahead = undefined;
      if (ahead) {
        this.rows.push(...ahead);
        readAhead = true;
      } else {
        // Read afresh (a first batch, a rewind, a gap): one batch, so it goes out without waiting
        // for the rest; the read-ahead below starts at once.
        this.rows = await this.datatargets.messages(this.datatargetId, after, this.rows.length === 0 ? size : chunk);
        readAhead = false;
      }
    }
    const batch = this.rows.slice(0, size);
    // The next read starts once half of what was read is taken, well before it is needed.
    if (!this.ahead && batch.length === size && this.rows.length - size < Math.max(size, chunk / 2)) {
      const last = Number(this.rows[this.rows.length - 1].number);
      const rows = this.datatargets.messages(this.datatargetId, last, chunk);
      rows.catch(() => undefined); // a failed read-ahead is read again on its turn
      this.ahead = { after: last, rows };
    }
    return { batch, readAhead };
  }
}
