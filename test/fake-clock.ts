/**
 * A clock for tests of the waiting core on which waiting takes no time: time stands still until the
 * test advances it or the code under test sleeps, and a sleep moves time forward at once by what it
 * asked for. Timers (deadlines, progress throttling) fire when time passes them, in order.
 */
import type { Clock } from "../provider/waiting/clock";

export interface FakeClock extends Clock {
  /** Moves time forward, firing every timer due by then. */
  advance(ms: number): void;
  /** Every pause the code under test asked for, in order, in milliseconds. */
  readonly slept: number[];
  /** Timers set and neither fired nor cancelled: what would keep a real process alive. */
  readonly pending: number;
}

export function fakeClock(): FakeClock {
  let time = 0;
  let sequence = 0;
  const timers = new Map<number, { due: number; callback: () => void }>();
  const slept: number[] = [];

  const advance = (ms: number) => {
    const until = time + ms;
    for (;;) {
      const next = [...timers.entries()]
        .filter(([, t]) => t.due <= until)
        .sort(([a, x], [b, y]) => x.due - y.due || a - b)[0];
      if (!next) break;
      timers.delete(next[0]);
      time = next[1].due;
      next[1].callback();
    }
    time = until;
  };

  return {
    slept,
    get pending() {
      return timers.size;
    },
    advance,
    now: () => time,
    after(ms, callback) {
      const id = sequence++;
      timers.set(id, { due: time + Math.max(0, ms), callback });
      return () => {
        timers.delete(id);
      };
    },
    async sleep(ms) {
      slept.push(ms);
      advance(ms);
    },
  };
}
