/**
 * Simulated time. Every delay in the simulator is written in simulated milliseconds at speed 1 (a
 * human-paced demo); one speed factor divides them all, so tests run the same scenarios hundreds of times
 * faster. Timers are tracked so that `stop()` leaves nothing behind to keep the process (or mocha) alive.
 */

export interface Timer {
  cancel(): void;
}

/** Rejects the pending `sleep`s of a stopped clock, so async work unwinds instead of hanging. */
export class ClockStoppedError extends Error {
  constructor() {
    super("clock stopped");
    this.name = "ClockStoppedError";
  }
}

export interface Clock {
  /** How many simulated milliseconds pass per real millisecond. */
  readonly speed: number;
  readonly stopped: boolean;
  /** Simulated wall time: starts at the real time of creation and runs `speed` times faster. */
  now(): Date;
  /** Real milliseconds for a simulated delay. */
  realDelay(simulatedMs: number): number;
  /** Runs `fn` after a simulated delay, unless cancelled or the clock stops first. */
  after(simulatedMs: number, fn: () => void): Timer;
  sleep(simulatedMs: number): Promise<void>;
  /** A clock sharing this one's time whose `stop()` cancels only its own timers. */
  fork(): Clock;
  /** Cancels every pending timer of this clock and its forks; later timers never fire. */
  stop(): void;
  /** Pending timers of this clock and its forks. */
  pending(): number;
}

class ScaledClock implements Clock {
  private readonly timers = new Set<{ handle: NodeJS.Timeout; reject?: (e: Error) => void }>();
  private readonly children = new Set<ScaledClock>();
  private isStopped = false;

  constructor(
    readonly speed: number,
    private readonly origin: { real: number; simulated: number },
  ) {}

  get stopped(): boolean {
    return this.isStopped;
  }

  now(): Date {
    return new Date(this.origin.simulated + (Date.now() - this.origin.real) * this.speed);
  }

  realDelay(simulatedMs: number): number {
    return Math.max(0, simulatedMs / this.speed);
  }

  after(simulatedMs: number, fn: () => void): Timer {
    if (this.isStopped) return { cancel: () => undefined };
    const entry: { handle: NodeJS.Timeout; reject?: (e: Error) => void } = {
      handle: setTimeout(() => {
        this.timers.delete(entry);
        fn();
      }, this.realDelay(simulatedMs)),
    };
    this.timers.add(entry);
    return {
      cancel: () => {
        clearTimeout(entry.handle);
        this.timers.delete(entry);
      },
    };
  }

  sleep(simulatedMs: number): Promise<void> {
    if (this.isStopped) return Promise.reject(new ClockStoppedError());
    return new Promise((resolve, reject) => {
      const entry: { handle: NodeJS.Timeout; reject?: (e: Error) => void } = {
        handle: setTimeout(() => {
          this.timers.delete(entry);
          resolve();
        }, this.realDelay(simulatedMs)),
        reject,
      };
      this.timers.add(entry);
    });
  }

  fork(): Clock {
    const child = new ScaledClock(this.speed, this.origin);
    if (this.isStopped) child.stop();
    else this.children.add(child);
    return child;
  }

  stop(): void {
    this.isStopped = true;
    for (const entry of this.timers) {
      clearTimeout(entry.handle);
      entry.reject?.(new ClockStoppedError());
    }
    this.timers.clear();
    for (const child of this.children) child.stop();
    this.children.clear();
  }

  pending(): number {
    let n = this.timers.size;
    for (const child of this.children) n += child.pending();
    return n;
  }
}

/** `speed` 1 is human-paced (a node reboot takes seconds); tests use e.g. 1000. */
export function createClock(speed = 1): Clock {
  if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`clock speed must be > 0, got ${speed}`);
  const real = Date.now();
  return new ScaledClock(speed, { real, simulated: real });
}
