import { EventEmitter } from 'node:events';
import { Client } from 'pg';
import type { Logger } from './logging';

/**
 * One LISTEN connection shared by everything in a process that waits for database notifications
 * (new events appended, projection checkpoints moved). Reconnects when the connection drops;
 * listeners must also poll, since notifications sent while disconnected are lost.
 */
export class PgNotifications extends EventEmitter {
  private client?: Client;
  private closed = false;
  private reconnectTimer?: NodeJS.Timeout;

  constructor(
    private readonly url: string,
    private readonly channels: string[],
    private readonly logger?: Logger,
  ) {
    super();
    this.setMaxListeners(0);
  }

  async start(): Promise<void> {
    const client = new Client({ connectionString: this.url, application_name: 'mds-listen' });
    client.on('notification', (msg) => this.emit(msg.channel, msg.payload ?? ''));
    client.on('error', (err) => {
      if (this.closed) return;
      this.logger?.warn({ err: err.message }, 'notification connection failed; reconnecting');
      this.scheduleReconnect();
    });
    client.on('end', () => this.scheduleReconnect());
    await client.connect();
    for (const channel of this.channels) await client.query(`LISTEN "${channel}"`);
    this.client = client;
    this.emit('reconnected');
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.client = undefined;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.start().catch(() => this.scheduleReconnect());
    }, 500);
    this.reconnectTimer.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
