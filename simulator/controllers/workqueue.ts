import { Clock } from "../clock";
import { StoreError } from "../store/types";

/** Simulated milliseconds before a failed reconcile is first retried; doubles per failure, capped. */
const RETRY_DELAY = 500;
const MAX_RETRY_DELAY = 5 * 60_000;

/**
 * A client-go style work queue: keys added while a batch is pending coalesce into one reconcile, the
 * batch runs on a later tick (never inside the store listener that noticed the change), and keys are
 * processed in sorted order so that the same inputs produce the same writes in the same order.
 */
export class WorkQueue {
  private readonly dirty = new Set<string>();
  private readonly delayed = new Set<string>();
  private readonly failures = new Map<string, number>();
  private scheduled = false;

  constructor(
    private readonly name: string,
    private readonly clock: Clock,
    private readonly handler: (key: string) => void,
  ) {}

  add(key: string): void {
    if (this.clock.stopped) return;
    this.dirty.add(key);
    if (this.scheduled) return;
    this.scheduled = true;
    this.clock.after(0, () => this.drain());
  }

  /** Adds the key after a simulated delay; a key already waiting keeps its earlier deadline. */
  addAfter(key: string, simulatedMs: number): void {
    if (this.delayed.has(key) || this.clock.stopped) return;
    this.delayed.add(key);
    this.clock.after(simulatedMs, () => {
      this.delayed.delete(key);
      this.add(key);
    });
  }

  private drain(): void {
    this.scheduled = false;
    const keys = [...this.dirty].sort();
    this.dirty.clear();
    for (const key of keys) {
      if (this.clock.stopped) return;
      try {
        this.handler(key);
        this.failures.delete(key);
      } catch (error) {
        const count = (this.failures.get(key) ?? 0) + 1;
        this.failures.set(key, count);
        // A conflict or a vanished object is routine between controllers: retry quietly. Anything else
        // (an object no schema guarded) is reported once and retried with backoff, not in a hot loop.
        if (!(error instanceof StoreError) && count === 1) {
          console.error(`${this.name}: reconcile ${key} failed:`, error);
        }
        this.addAfter(key, Math.min(MAX_RETRY_DELAY, RETRY_DELAY * 2 ** (count - 1)));
      }
    }
  }
}

/**
 * Delays inside a reconcile loop without blocking it: `ready(key, step, ms)` is false the first time
 * (and schedules the key to be reconciled again once `ms` have passed), true once the time is up.
 * Progress lives in the objects themselves; this only remembers which waits have elapsed.
 */
export class Stepper {
  private readonly waiting = new Set<string>();
  private readonly elapsed = new Set<string>();

  constructor(
    private readonly queue: WorkQueue,
    private readonly clock: Clock,
  ) {}

  ready(key: string, step: string, simulatedMs: number): boolean {
    const id = `${key}\u0000${step}`;
    if (this.elapsed.has(id)) {
      this.elapsed.delete(id);
      return true;
    }
    if (!this.waiting.has(id)) {
      this.waiting.add(id);
      this.clock.after(simulatedMs, () => {
        this.waiting.delete(id);
        this.elapsed.add(id);
        this.queue.add(key);
      });
    }
    return false;
  }

  /** Forgets waits of a key whose process was abandoned (object deleted, target changed). */
  forget(key: string): void {
    const prefix = `${key}\u0000`;
    for (const id of this.elapsed) if (id.startsWith(prefix)) this.elapsed.delete(id);
  }
}
