/**
 * The watch's own decisions, against client-go's reflector (kubernetes/client-go, tools/cache/reflector.go):
 * `Reflector.watch` bounds each watch at `minWatchTimeout * (rand.Float64() + 1.0)` and asks for
 * bookmarks; `Reflector.Run` lists again only through its backoff manager (`wait.BackoffUntil` with
 * `NewExponentialBackoffManager`), so a 410 (`isExpiredError`) that keeps coming does not loop.
 */
import { strict as assert } from "node:assert";
import { ApiClient, ListResult, Selectors, WatchEvent, WatchHandlers } from "./api";
import { KINDS, KubeObject } from "./kinds";
import { apiError, describeApiError } from "./retry";
import {
  MIN_WATCH_TIMEOUT_MS,
  reflect,
  Session,
  Store,
  WATCH_IDLE_MS,
  watchTimeoutSeconds,
} from "./reflector";
import { fakeClock, FakeClock } from "../../test/fake-clock";

const steady = { initialMs: 100, maxMs: 5000, factor: 2, jitter: 0 };
const source = { name: "things", resource: KINDS.machineSet, namespace: "ns" };

interface OpenWatch {
  rv: string;
  timeoutSeconds?: number;
  handlers: WatchHandlers;
  /** Ends the watch as the server would (the response ends). */
  end(): void;
  aborted: boolean;
}

/**
 * A client whose lists answer `list()` and whose watches stay open until the test ends them or the
 * reflector aborts them; `onWatch` scripts each watch as it opens.
 */
function client(list: () => ListResult, onWatch: (w: OpenWatch) => void) {
  const calls: string[] = [];
  const watches: OpenWatch[] = [];
  let requests = 0;
  const api: ApiClient = {
    get requests() {
      return requests;
    },
    async list() {
      requests++;
      calls.push("list");
      // As a real request, the answer comes in a later turn of the event loop.
      await tick();
      return list();
    },
    get: async () => undefined,
    mergePatch: async () => ({ metadata: { name: "x" } }),
    delete: async () => true,
    async watch(
      _resource,
      selectors: Selectors & { resourceVersion: string; timeoutSeconds?: number },
      handlers,
      signal,
    ) {
      requests++;
      calls.push(`watch@${selectors.resourceVersion}`);
      await tick();
      await new Promise<void>((resolve, reject) => {
        const w: OpenWatch = {
          rv: selectors.resourceVersion,
          timeoutSeconds: selectors.timeoutSeconds,
          handlers,
          end: resolve,
          aborted: false,
        };
        watches.push(w);
        signal?.addEventListener("abort", () => {
          w.aborted = true;
          // As the real client does when a watch is aborted before its response arrived.
          reject(apiError("aborted", { code: "ABORTED" }));
        });
        handlers.onOpen?.();
        onWatch(w);
      });
    },
  };
  return { api, calls, watches };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Lets the reflector reach its next await (the fake clock only moves when told). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await tick();
}

function obj(name: string, rv: string, phase: string): KubeObject {
  return { metadata: { name, resourceVersion: rv }, status: { phase } };
}
const event = (type: WatchEvent["type"], object: WatchEvent["object"]): WatchEvent => ({ type, object });
const gone = () =>
  event("ERROR", {
    metadata: { name: "" },
    code: 410,
    reason: "Expired",
    message: "too old resource version",
  });
const running = (store: Store | null) =>
  (store?.get("a")?.status as { phase?: string } | undefined)?.phase === "Running";

function session(api: ApiClient, clock: FakeClock, random = () => 0) {
  const stop = new AbortController();
  const failures: string[] = [];
  const transients: unknown[] = [];
  const silences: string[] = [];
  const value: Session = {
    waiter: "things",
    client: api,
    clock,
    policy: steady,
    signal: stop.signal,
    fail: (message) => {
      failures.push(message);
      stop.abort();
    },
    transient: (error) => transients.push(error),
    silent: (what, times) => silences.push(`${what} ${times}`),
    random,
  };
  return { session: value, failures, stop, transients, silences };
}

describe("reflector watches (client-go's Reflector.watch and Reflector.Run)", () => {
  it("asks each watch for 5 to 10 minutes, jittered, never the wait's whole deadline", () => {
    assert.equal(MIN_WATCH_TIMEOUT_MS, 300_000);
    assert.equal(
      watchTimeoutSeconds(() => 0),
      300,
    );
    assert.equal(
      watchTimeoutSeconds(() => 0.5),
      450,
    );
    assert.equal(
      watchTimeoutSeconds(() => 0.9999),
      599,
    );
  });

  it("replaces a watch that stays open and silent by a list, which shows what the watch never delivered", async () => {
    const clock = fakeClock();
    let lists = 0;
    const { api, calls, watches } = client(
      // Behind a proxy that buffers streamed answers, the list shows at once what no watch delivers.
      () =>
        lists++ === 0
          ? { items: [obj("a", "5", "Pending")], resourceVersion: "5" }
          : { items: [obj("a", "6", "Running")], resourceVersion: "6" },
      () => undefined,
    );
    const { session: s, failures, silences } = session(api, clock);
    const done = reflect(s, source, running);
    await settle();
    assert.equal(watches.length, 1);
    assert.equal(watches[0].timeoutSeconds, 300);
    clock.advance(WATCH_IDLE_MS - 1);
    await settle();
    assert.equal(watches.length, 1, "silent for less than the idle time: kept");
    assert.deepEqual(silences, []);
    clock.advance(1);
    await done;
    assert.ok(watches[0].aborted);
    assert.deepEqual(calls, ["list", "watch@5", "list"]);
    assert.equal(clock.now(), WATCH_IDLE_MS);
    assert.deepEqual(clock.slept, [], "a replaced watch is not a failure: no backoff");
    assert.deepEqual(silences, ["machinesets in ns 1"]);
    assert.deepEqual(failures, []);
  });

  it("counts the watches gone silent in a row, polling by list, and starts over once one is heard", async () => {
    const clock = fakeClock();
    let lists = 0;
    const { api, calls, watches } = client(
      () => ({ items: [obj("a", String(++lists), "Pending")], resourceVersion: String(lists) }),
      () => undefined,
    );
    const { session: s, stop, silences } = session(api, clock);
    void reflect(s, source, running);
    await settle();
    for (let i = 0; i < 3; i++) {
      clock.advance(WATCH_IDLE_MS);
      await settle();
    }
    assert.deepEqual(silences, ["machinesets in ns 1", "machinesets in ns 2", "machinesets in ns 3"]);
    assert.deepEqual(calls, ["list", "watch@1", "list", "watch@2", "list", "watch@3", "list", "watch@4"]);
    // A bookmark is a word: the next silence counts from one again.
    watches[3].handlers.onEvent(event("BOOKMARK", { metadata: { name: "", resourceVersion: "9" } }));
    assert.deepEqual(silences.slice(3), ["machinesets in ns 0"]);
    watches[3].handlers.onEvent(event("BOOKMARK", { metadata: { name: "", resourceVersion: "10" } }));
    assert.equal(silences.length, 4, "told once that watches are heard again");
    clock.advance(WATCH_IDLE_MS);
    await settle();
    assert.deepEqual(silences.slice(4), ["machinesets in ns 1"]);
    stop.abort();
  });

  it("counts bookmarks as signs of life: silence is measured from the last one", async () => {
    const clock = fakeClock();
    const { api, calls, watches } = client(
      () => ({ items: [obj("a", "5", "Pending")], resourceVersion: "5" }),
      () => undefined,
    );
    const { session: s, stop } = session(api, clock);
    void reflect(s, source, running);
    await settle();
    clock.advance(WATCH_IDLE_MS - 1000);
    watches[0].handlers.onEvent(event("BOOKMARK", { metadata: { name: "", resourceVersion: "8" } }));
    clock.advance(WATCH_IDLE_MS - 1);
    await settle();
    assert.equal(watches.length, 1);
    clock.advance(1);
    await settle();
    assert.equal(watches.length, 2);
    assert.deepEqual(calls, ["list", "watch@5", "list", "watch@5"]);
    stop.abort();
  });

  it("ends a watch at its timeout even while bookmarks keep coming, as the server should have", async () => {
    const clock = fakeClock();
    const { api, watches } = client(
      () => ({ items: [obj("a", "5", "Pending")], resourceVersion: "5" }),
      () => undefined,
    );
    const { session: s, stop } = session(api, clock, () => 0.5);
    void reflect(s, source, running);
    await settle();
    assert.equal(watches[0].timeoutSeconds, 450);
    for (let t = 60; t < 450; t += 60) {
      clock.advance(60_000);
      watches[0].handlers.onEvent(event("BOOKMARK", { metadata: { name: "", resourceVersion: String(t) } }));
    }
    clock.advance(449_999 - clock.now());
    await settle();
    assert.equal(watches.length, 1);
    clock.advance(1);
    await settle();
    assert.equal(watches.length, 2);
    assert.ok(watches[0].aborted);
    assert.equal(watches[1].rv, "420");
    stop.abort();
  });

  it("re-lists under a persistent 410 with exponential, capped pauses, and resets once a watch delivers", async () => {
    const clock = fakeClock();
    let storm = true;
    let lists = 0;
    const { api, calls } = client(
      () => ({
        items: [obj("a", String(++lists), storm ? "Pending" : "Running")],
        resourceVersion: String(lists),
      }),
      (w) => {
        if (storm) return w.handlers.onEvent(gone());
        w.handlers.onEvent(event("BOOKMARK", { metadata: { name: "", resourceVersion: "99" } }));
        w.end();
      },
    );
    const { session: s, stop, transients } = session(api, clock);
    void reflect(s, source, () => false);
    // A minute of 410 storm: pauses double from 100 ms up to the 5 s cap.
    while (clock.now() < 60_000) await tick();
    assert.deepEqual(clock.slept.slice(0, 8), [100, 200, 400, 800, 1600, 3200, 5000, 5000]);
    const requests = calls.length;
    // Should the deadline pass now, its message names the 410 (converge's "last API error").
    assert.match(describeApiError(transients[transients.length - 1]), /^HTTP 410 Expired/);
    // 6.3 s to reach the cap, then one list and one watch per 5 s: 2 * (7 + 11) or so, not thousands.
    assert.ok(
      requests <= 2 * (7 + Math.ceil((60_000 - 6300) / 5000)) + 2,
      `${requests} requests in a minute`,
    );
    storm = false;
    while (calls.length < requests + 4) await tick();
    const paused = clock.slept.length;
    storm = true;
    while (clock.slept.length < paused + 1) await tick();
    assert.equal(clock.slept[paused], 100, "a watch delivered since the storm: the backoff started over");
    stop.abort();
  });

  it("pauses before re-listing after a single 410, then resumes from the new list", async () => {
    const clock = fakeClock();
    let lists = 0;
    const { api, calls } = client(
      () => ({ items: [obj("a", String(++lists), "Pending")], resourceVersion: String(lists * 10) }),
      (w) => {
        if (w.rv === "10") return w.handlers.onEvent(gone());
        w.handlers.onEvent(event("MODIFIED", obj("a", "21", "Running")));
      },
    );
    const { session: s } = session(api, clock);
    await reflect(s, source, running);
    assert.deepEqual(calls, ["list", "watch@10", "list", "watch@20"]);
    assert.deepEqual(clock.slept, [100]);
    // The idle and timeout timers of both watches were cancelled: nothing keeps a process alive.
    assert.equal(clock.pending, 0);
  });
});

describe("reflector's store: which events it believes (client-go's Reflector.watchHandler)", () => {
  /** `running`, recording the resourceVersion of thing a in every store handed. */
  function handing() {
    const handed: string[] = [];
    const changed = (store: Store | null) => {
      handed.push(String(store?.get("a")?.metadata.resourceVersion));
      return running(store);
    };
    return { handed, changed };
  }

  // apimachinery's IsResourceExpired (reason Expired) and IsGone (reason Gone, or code 410 alone), as
  // client-go's isExpiredError reads them: each means the history is gone, so the source is listed again.
  const expired = {
    "reason Expired": { reason: "Expired" },
    "reason Gone": { reason: "Gone" },
    "code 410 alone": { code: 410 },
  };
  for (const [what, status] of Object.entries(expired)) {
    it(`takes a watch ERROR with ${what} as expired history: lists again instead of failing`, async () => {
      const clock = fakeClock();
      let lists = 0;
      const { api, calls } = client(
        () => ({ items: [obj("a", String(++lists), "Pending")], resourceVersion: String(lists * 10) }),
        (w) => {
          if (w.rv === "10") return w.handlers.onEvent(event("ERROR", { metadata: { name: "" }, ...status }));
          w.handlers.onEvent(event("MODIFIED", obj("a", "21", "Running")));
        },
      );
      const { session: s, failures, transients } = session(api, clock);
      await reflect(s, source, running);
      assert.deepEqual(failures, []);
      assert.deepEqual(calls, ["list", "watch@10", "list", "watch@20"]);
      // What a deadline passing during the pause would name, though the server gave no message.
      assert.match(describeApiError(transients.find(Boolean)), /watch error$/);
    });
  }

  it("names a cluster-scoped source without a namespace when it fails", async () => {
    const clock = fakeClock();
    const { api } = client(
      () => ({ items: [], resourceVersion: "5" }),
      (w) => w.handlers.onEvent(event("ERROR", { metadata: { name: "" }, code: 403, reason: "Forbidden" })),
    );
    const { session: s, failures } = session(api, clock);
    await reflect(s, { name: "nodes", resource: KINDS.node }, () => false);
    assert.deepEqual(failures, ["things: cannot watch nodes: HTTP 403 Forbidden: watch error"]);
  });

  it("resumes after a 503 from the last resourceVersion seen, without listing again", async () => {
    const clock = fakeClock();
    const { api, calls } = client(
      () => ({ items: [obj("a", "5", "Pending")], resourceVersion: "5" }),
      (w) => {
        if (w.rv === "5") {
          w.handlers.onEvent(event("MODIFIED", obj("a", "6", "Pending")));
          return w.handlers.onEvent(
            event("ERROR", { metadata: { name: "" }, code: 503, reason: "ServiceUnavailable" }),
          );
        }
        w.handlers.onEvent(event("MODIFIED", obj("a", "7", "Running")));
      },
    );
    const { session: s, failures, transients } = session(api, clock);
    await reflect(s, source, running);
    assert.deepEqual(failures, []);
    assert.deepEqual(calls, ["list", "watch@5", "watch@6"]);
    assert.deepEqual(clock.slept, [100]);
    // The 503 was the latest failure until the watch after it was accepted: a deadline then names none.
    assert.match(describeApiError(transients.find(Boolean)), /^HTTP 503/);
    assert.equal(transients[transients.length - 1], undefined);
  });

  it("keeps the last resourceVersion when an event carries none", async () => {
    const clock = fakeClock();
    const { api, calls } = client(
      () => ({ items: [obj("a", "5", "Pending")], resourceVersion: "5" }),
      (w) => {
        if (w.rv !== "6") {
          w.handlers.onEvent(event("MODIFIED", obj("a", "6", "Pending")));
          w.handlers.onEvent(event("MODIFIED", { metadata: { name: "b" }, status: { phase: "Pending" } }));
          return w.end();
        }
        w.handlers.onEvent(event("MODIFIED", obj("a", "7", "Running")));
      },
    );
    const { session: s } = session(api, clock);
    await reflect(s, source, running);
    assert.deepEqual(calls, ["list", "watch@5", "watch@6"]);
  });

  it("skips an event whose object it cannot read and keeps the watch, as client-go's watchHandler does", async () => {
    // Reflector.watchHandler: meta.Accessor fails -> "unable to understand watch event", continue.
    const clock = fakeClock();
    const { api, calls } = client(
      () => ({ items: [obj("a", "5", "Pending")], resourceVersion: "5" }),
      (w) => {
        w.handlers.onEvent({ type: "MODIFIED" } as WatchEvent);
        w.handlers.onEvent(event("ADDED", {} as KubeObject));
        w.handlers.onEvent(event("MODIFIED", obj("a", "6", "Running")));
      },
    );
    const { session: s, failures } = session(api, clock);
    await reflect(s, source, running);
    assert.deepEqual([failures, calls], [[], ["list", "watch@5"]]);
  });

  it("does not believe events of a stream after its ERROR: the state after a 410 is the new list's", async () => {
    const clock = fakeClock();
    let lists = 0;
    const { handed, changed } = handing();
    const { api, calls } = client(
      () => ({ items: [obj("a", String(++lists), "Pending")], resourceVersion: String(lists * 10) }),
      (w) => {
        if (w.rv === "10") {
          w.handlers.onEvent(gone());
          // Left in the response after the error: history the server could no longer vouch for.
          return w.handlers.onEvent(event("MODIFIED", obj("a", "11", "Running")));
        }
        w.handlers.onEvent(event("MODIFIED", obj("a", "21", "Running")));
      },
    );
    const { session: s } = session(api, clock);
    await reflect(s, source, changed);
    assert.deepEqual(calls, ["list", "watch@10", "list", "watch@20"]);
    assert.deepEqual(handed, ["1", "2", "21"]);
  });

  it("hands nothing more once the caller has what it needs, and leaves no timer behind", async () => {
    const clock = fakeClock();
    const { handed, changed } = handing();
    const { api, watches } = client(
      () => ({ items: [obj("a", "5", "Pending")], resourceVersion: "5" }),
      (w) => {
        w.handlers.onEvent(event("MODIFIED", obj("a", "6", "Running")));
        w.handlers.onEvent(event("MODIFIED", obj("a", "7", "Failed")));
      },
    );
    const { session: s } = session(api, clock);
    await reflect(s, source, changed);
    assert.deepEqual(handed, ["5", "6"]);
    assert.equal(watches.length, 1);
    assert.equal(clock.pending, 0);
  });

  it("does not believe a replaced watch's late events over the watch that replaced it", async () => {
    const clock = fakeClock();
    const { handed, changed } = handing();
    const { api, watches } = client(
      () => ({ items: [obj("a", "5", "Pending")], resourceVersion: "5" }),
      (w) => {
        if (watches.length === 2) w.handlers.onEvent(event("MODIFIED", obj("a", "7", "Failed")));
      },
    );
    const { session: s, stop } = session(api, clock);
    void reflect(s, source, changed);
    await settle();
    clock.advance(WATCH_IDLE_MS);
    await settle();
    assert.equal(watches.length, 2);
    // The silent first watch speaks at last, of a state older than the one its successor delivered.
    watches[0].handlers.onEvent(event("MODIFIED", obj("a", "6", "Running")));
    await settle();
    assert.deepEqual(handed, ["5", "5", "7"], "the list after the silence, then the new watch's event");
    stop.abort();
    await settle();
    // Nor is anything handed after the wait ended.
    watches[1].handlers.onEvent(event("MODIFIED", obj("a", "8", "Running")));
    assert.deepEqual(handed, ["5", "5", "7"]);
    assert.equal(clock.pending, 0);
  });

  it("pauses only for watches that close at once without a word, longer each time", async () => {
    const clock = fakeClock();
    const { api, calls, watches } = client(
      () => ({ items: [obj("a", "5", "Pending")], resourceVersion: "5" }),
      (w) => {
        const n = watches.length;
        // Three closed at once, silent; one that lasted the full second; one that delivered, then closed.
        if (n <= 3) return w.end();
        if (n === 4) return clock.after(1000, w.end);
        if (n === 5) {
          w.handlers.onEvent(event("MODIFIED", obj("a", "6", "Pending")));
          return w.end();
        }
        if (n === 6) return w.end();
        w.handlers.onEvent(event("MODIFIED", obj("a", "7", "Running")));
      },
    );
    const { session: s } = session(api, clock);
    const done = reflect(s, source, running);
    while (watches.length < 4) await tick();
    await settle();
    clock.advance(1000);
    await done;
    assert.equal(calls.length, 8);
    // The silent sixth closes at once after one that delivered: the backoff started over.
    assert.deepEqual(clock.slept, [100, 200, 400, 100]);
  });
});
