import { strict as assert } from "node:assert";
import { systemClock } from "./clock";

/** The system clock as client-go's RealClock: timers that can be stopped, and pauses a cancel ends early. */
describe("system clock", () => {
  it("runs a timer once unless it is cancelled first", async () => {
    const fired: string[] = [];
    const cancel = systemClock.after(0, () => fired.push("cancelled"));
    systemClock.after(0, () => fired.push("kept"));
    cancel();
    await systemClock.sleep(5);
    assert.deepEqual(fired, ["kept"]);
  });

  it("ends a pause early, without error, when its signal aborts, and at once when it already has", async () => {
    const controller = new AbortController();
    const pause = systemClock.sleep(3_600_000, controller.signal);
    controller.abort();
    await pause;
    await systemClock.sleep(3_600_000, controller.signal);
  });

  it("tells time in milliseconds since the epoch", () => {
    const before = Date.now();
    const now = systemClock.now();
    assert.ok(now >= before && now <= Date.now());
  });
});
