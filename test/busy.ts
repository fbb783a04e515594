/**
 * How much slower than when idle this machine runs now: the 1-minute load average per core, at least
 * 1. The tests' hang guards (each test's mocha timeout, the deadline of a wait in a test) are stretched
 * by it when a suite starts, so that a machine busy with other test runs turns a slow pass into a slow
 * pass, not a failure, while on an idle machine a hang still fails as soon as the guard says.
 */
import * as os from "node:os";

export function busyFactor(): number {
  return Math.max(1, os.loadavg()[0] / os.cpus().length);
}
