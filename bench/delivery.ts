import { createServer, type Server } from 'node:http';
import type { ServiceProcess } from './service-process';

export const DELIVERY_BATCH = 100;

/** A local webhook receiver answering 200 at once, counting requests and when the first and last came. */
export interface Receiver {
  url: string;
  received: number;
  firstAt: bigint;
  lastAt: bigint;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const state = { received: 0, firstAt: 0n, lastAt: 0n };
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      state.received++;
      state.lastAt = process.hrtime.bigint();
      if (state.firstAt === 0n) state.firstAt = state.lastAt;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  });
}

/** The messages every delivery benchmark posts (about 100 bytes each). */
export const benchMessage = (n: number) => ({ order_id: `O-${n}`, customer: `C-${n % 1000}`, total: 1000 + n, lines: [{ sku: `S-${n % 50}`, qty: 1 }] });

/**
 * Posts `messages` messages to a new datatarget of the service, then creates a signed, batched webhook
 * outlet to the receiver and times it from the outlet's creation until its answer shows every message
 * delivered (the last attempt recorded and projected). Returns messages/s and where the time went:
 * creation to the first batch received, the receiver's first to last batch, the last batch to it showing.
 */
export async function deliverThroughService(service: ServiceProcess, receiver: Receiver, messages: number, name: string): Promise<{ rate: number; first: number; sending: number; shown: number }> {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`http://127.0.0.1:${service.port}${path}`, { method, headers: service.headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as Record<string, any>;
  };
  const target = (await api('POST', '/api/datatargets/', { datatarget_type: 'messages', name })).datatarget;
  for (let i = 0; i < messages; i += 10_000) await api('POST', `/api/datatargets/${target.id}/post/`, { messages: Array.from({ length: Math.min(10_000, messages - i) }, (_, j) => benchMessage(i + j + 1)) });
  const t = process.hrtime.bigint();
  receiver.firstAt = 0n;
  const receivedBefore = receiver.received;
  const outlet = (await api('POST', `/api/datatargets/${target.id}/outlets/`, {
    outlet_type: 'webhook', secret: 'whsec_' + Buffer.from('bench signing key 0123456789abcdef').toString('base64'),
    request: { url: receiver.url, method: 'POST', headers: { 'X-Api-Key': 'k' }, format: 'json', content: { messages: '{(data)}' }, is_batched: true },
  })).outlet;
  // Until the receiver has every batch, without loading the service; then its answer, every 5 ms.
  while (receiver.received - receivedBefore < Math.ceil(messages / DELIVERY_BATCH)) await new Promise((r) => setTimeout(r, 1));
  while ((await api('GET', `/api/datatargets/${target.id}/outlets/${outlet.id}/`)).outlet.last_delivered_message_number < messages) await new Promise((r) => setTimeout(r, 5));
  const shownAt = process.hrtime.bigint();
  return {
    rate: messages / (Number(shownAt - t) / 1e9),
    first: Number(receiver.firstAt - t) / 1e6,
    sending: Number(receiver.lastAt - receiver.firstAt) / 1e6,
    shown: Number(shownAt - receiver.lastAt) / 1e6,
  };
}
