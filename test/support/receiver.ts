import { DeliveryWorker } from '#mds/outlet-worker';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

/**
 * A webhook receiver on loopback: records every request; answers with the next planned status
 * (then 200), optionally with headers, or runs `handler` when given.
 */
export async function startReceiver(options: { plan?: Array<number | { status: number; headers?: Record<string, string> }> } = {}) {
  const received: Received[] = [];
  const plan = [...(options.plan ?? [])];
  let handler: ((r: Received) => number | Promise<number>) | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      const r: Received = { method: req.method!, url: req.url!, headers: req.headers, body, json, at: Date.now() };
      received.push(r);
      const next = handler ? await handler(r) : (plan.shift() ?? 200);
      const { status, headers } = typeof next === 'number' ? { status: next, headers: {} } : next;
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify({ ok: status < 300 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    setHandler(h: typeof handler) {
      handler = h;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A webhook receiver that keeps every request's bytes exactly as they arrived (request line, header
 * block, body), for comparing with what the outlet log says was sent. Answers 200 to each, keeping
 * the connection open as the client asks.
 */
export async function startRawReceiver() {
  const { createServer: createTcpServer } = await import('node:net');
  const requests: string[] = [];
  const server = createTcpServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = pending.subarray(0, end + 4).toString('latin1');
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (pending.length < end + 4 + length) return;
        requests.push(pending.subarray(0, end + 4 + length).toString('utf8'));
        pending = pending.subarray(end + 4 + length);
        const body = '{"ok":true}';
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
      }
    });
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook?shop=web`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An outlet worker delivering for a test API's runtime, and a receiver for its webhooks; `close` stops both. */
export async function startDelivery(rt: ConstructorParameters<typeof DeliveryWorker>[0]) {
  const receiver = await startReceiver();
  const worker = new DeliveryWorker(rt, rt.config.outlets, rt.logger);
  await worker.start();
  return {
    receiver,
    worker,
    async close() {
      await worker.stop();
      await receiver.close();
    },
  };
}
