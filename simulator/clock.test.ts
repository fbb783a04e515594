import * as assert from "node:assert/strict";
import { ClockStoppedError, createClock } from "./clock";

describe("clock", () => {
  it("scales simulated delays by the speed factor", () => {
    assert.equal(createClock(1).realDelay(4000), 4000);
    assert.equal(createClock(1000).realDelay(4000), 4);
    assert.throws(() => createClock(0), RangeError);
  });

  it("runs timers in simulated order", async () => {
    const clock = createClock(1000);
    const order: string[] = [];
    clock.after(3000, () => order.push("late"));
    clock.after(1000, () => order.push("early"));
    await clock.sleep(5000);
    assert.deepEqual(order, ["early", "late"]);
    assert.equal(clock.pending(), 0);
  });

  it("stops: pending timers never fire, sleeps reject, nothing is left running", async () => {
    const clock = createClock(1);
    let fired = false;
    clock.after(60_000, () => (fired = true));
    const sleeping = clock.sleep(60_000);
    assert.equal(clock.pending(), 2);
    clock.stop();
    await assert.rejects(sleeping, ClockStoppedError);
    assert.equal(clock.pending(), 0);
    assert.equal(fired, false);
    clock.after(0, () => (fired = true));
    assert.equal(clock.pending(), 0);
  });

  it("forks: stopping a fork cancels only its timers, stopping the parent stops its forks", () => {
    const parent = createClock(1);
    const a = parent.fork();
    const b = parent.fork();
    a.after(60_000, () => undefined);
    b.after(60_000, () => undefined);
    a.stop();
    assert.equal(parent.pending(), 1);
    parent.stop();
    assert.equal(b.stopped, true);
    assert.equal(parent.pending(), 0);
  });

  it("runs simulated time faster than the wall clock", async () => {
    const clock = createClock(1000);
    const start = clock.now().getTime();
    await clock.sleep(2000);
    assert.ok(clock.now().getTime() - start >= 2000);
    clock.stop();
  });
});
