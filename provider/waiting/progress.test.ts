import { strict as assert } from "node:assert";
import { progressReporter, ProgressEvent, subscribeProgress } from "./progress";
import { fakeClock } from "../../test/fake-clock";

const e = (message: string): ProgressEvent => ({ waiter: "w", state: "waiting", message, elapsedMs: 0 });

describe("progress reporting", () => {
  it("keeps reporting to every listener when one throws", () => {
    const global: string[] = [];
    const unsubscribe = subscribeProgress((event) => global.push(event.message));
    const reporter = progressReporter(
      0,
      () => {
        throw new Error("broken renderer");
      },
      fakeClock(),
    );
    reporter.report(e("1/2"));
    reporter.finish({ ...e("2/2"), state: "done" });
    unsubscribe();
    reporter.finish(e("after unsubscribing"));
    assert.deepEqual(global, ["1/2", "2/2"]);
  });

  it("drops a pending change when the state returns to what was last reported", () => {
    const own: string[] = [];
    const clock = fakeClock();
    const reporter = progressReporter(100, (event) => own.push(event.message), clock);
    reporter.report(e("1/3"));
    reporter.report(e("2/3"));
    reporter.report(e("1/3"));
    clock.advance(100);
    assert.deepEqual(own, ["1/3"]);
    reporter.report(e("3/3"));
    assert.deepEqual(own, ["1/3", "3/3"], "an interval after the last report, a change goes at once");
  });

  it("sends the latest of the changes throttled within one interval, once", () => {
    const own: string[] = [];
    const clock = fakeClock();
    const reporter = progressReporter(100, (event) => own.push(event.message), clock);
    reporter.report(e("1/4"));
    clock.advance(40);
    reporter.report(e("2/4"));
    clock.advance(30);
    reporter.report(e("3/4"));
    clock.advance(29);
    assert.deepEqual(own, ["1/4"]);
    clock.advance(1);
    assert.deepEqual(own, ["1/4", "3/4"]);
    clock.advance(1000);
    assert.deepEqual(own, ["1/4", "3/4"]);
  });
});
