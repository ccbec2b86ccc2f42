/** Polls `probe` until it returns without throwing (and, if it returns a boolean, returns true). */
export async function eventually<T>(probe: () => Promise<T> | T, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  let lastError: unknown;
  for (;;) {
    try {
      const result = await probe();
      if (result !== false) return result;
      lastError = new Error('probe returned false');
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) throw lastError;
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 25));
  }
}
