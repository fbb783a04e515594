/**
 * Time as the waiting core sees it, as client-go's clock: the current time, timers and pauses. Every
 * deadline, backoff pause and progress throttle goes through a Clock, so a test can hand the core a
 * clock of its own and exercise timeouts, backoff and Retry-After without waiting for them.
 */

export interface Clock {
  /** Milliseconds, on any origin: only differences are used. */
  now(): number;
  /** Calls `callback` once after `ms` unless cancelled first; returns the cancel function. */
  after(ms: number, callback: () => void): () => void;
  /** Resolves after `ms`, or early (without error) when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  after: (ms, callback) => {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  },
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      // Declared before `done` uses it: Pulumi's closure serializer resolves names in order.
      const pending: { timer?: NodeJS.Timeout } = {};
      const done = () => {
        clearTimeout(pending.timer);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      pending.timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done);
    }),
};
