/** Where a long job stands: a label, how far of how much, its rate and ETA. */
export interface Progress {
  label: string;
  position: number;
  head: number;
  eventsPerSecond: number;
  etaSeconds: number | undefined;
}

function duration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '--:--';
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${pad(m)}:${pad(s % 60)}`;
}

/** One line of progress: label, bar, position/head, events/s and ETA. */
export function renderProgress(p: Progress, width = 30): string {
  const ratio = p.head > 0 ? Math.min(p.position / p.head, 1) : 1;
  const filled = Math.round(ratio * width);
  const bar = '#'.repeat(filled) + '-'.repeat(width - filled);
  return `${p.label} [${bar}] ${(ratio * 100).toFixed(1).padStart(5)}%  position ${p.position}/${p.head}  ${Math.round(p.eventsPerSecond)} events/s  ETA ${duration(p.etaSeconds)}`;
}

/** Redraws in place on a terminal; prints a line every few seconds otherwise (CI logs, pipes). */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): { update(p: Progress): void; done(p?: Progress): void } {
  let last = 0;
  return {
    update(p) {
      if (stream.isTTY) stream.write(`\r${renderProgress(p)}\x1b[K`);
      else if (Date.now() - last > 2000) {
        last = Date.now();
        stream.write(`${renderProgress(p)}\n`);
      }
    },
    done(p) {
      if (p) stream.write(`${stream.isTTY ? '\r' : ''}${renderProgress(p)}${stream.isTTY ? '\x1b[K' : ''}\n`);
    },
  };
}

/** A rate and an ETA from what is done of the whole (0 to 1) since `started`. */
export function rateAndEta(started: number, events: number, done: number): { eventsPerSecond: number; etaSeconds: number | undefined } {
  const seconds = Math.max((Date.now() - started) / 1000, 0.001);
  return { eventsPerSecond: events / seconds, etaSeconds: done > 0 ? (seconds / done) * (1 - Math.min(done, 1)) : undefined };
}
