import { strict as assert } from "node:assert";
import { ApiClient, createApiClient, ListResult, WatchEvent, WatchHandlers } from "./api";
import { Clock } from "./clock";
import { reflect, Session, WATCH_IDLE_MS } from "./reflector";
import { converge, isWaitError, observe, waitError } from "./converge";
import { KINDS, KubeObject } from "./kinds";
import { progressReporter, ProgressEvent, subscribeProgress } from "./progress";
import { apiError, backoffDelay, isRetryable, parseRetryAfter, retryDelay } from "./retry";
import { fakeClock } from "../../test/fake-clock";

const fast = { initialMs: 1, maxMs: 5, factor: 2, jitter: 0.5 };
const steady = { initialMs: 100, maxMs: 5000, factor: 2, jitter: 0 };

type Step = ((handlers: WatchHandlers) => Promise<void>) | Error;

/** A client that answers lists and watches from scripts and records what was asked. */
function scriptedClient(lists: Array<ListResult | Error>, watches: Step[]) {
  const calls: string[] = [];
  let requests = 0;
  const client: ApiClient = {
    get requests() {
      return requests;
    },
    async list(_resource, selectors) {
      requests++;
      calls.push(["list", selectors.fieldSelector].filter(Boolean).join(" "));
      const next = lists.shift();
      if (!next) throw new Error("unexpected list");
      if (next instanceof Error) throw next;
      return next;
    },
    async get() {
      requests++;
      calls.push("get");
      return undefined;
    },
    async mergePatch() {
      requests++;
      return { metadata: { name: "x" } };
    },
    async delete() {
      requests++;
      return true;
    },
    async watch(_resource, selectors, handlers, signal) {
      requests++;
      calls.push([`watch@${selectors.resourceVersion}`, selectors.fieldSelector].filter(Boolean).join(" "));
      const next = watches.shift();
      if (!next) {
        // Nothing scripted: hold the watch open until the wait ends.
        await new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve()));
        return;
      }
      if (next instanceof Error) throw next;
      handlers.onOpen?.();
      await next(handlers);
    },
  };
  return { client, calls };
}

function obj(name: string, rv: string, phase: string): KubeObject {
  return { metadata: { name, resourceVersion: rv }, status: { phase } };
}

const event = (type: WatchEvent["type"], object: WatchEvent["object"]): WatchEvent => ({ type, object });

function phaseIs(phase: string) {
  return (view: { sources: Record<string, KubeObject[] | null | undefined> }) => {
    const o = view.sources.things?.[0];
    const current = (o?.status as { phase?: string } | undefined)?.phase;
    return current === phase
      ? { state: "done" as const, message: `phase ${current}`, result: current }
      : { state: "waiting" as const, message: `phase ${current ?? "none"}` };
  };
}

const source = { name: "things", resource: KINDS.machineSet, namespace: "ns" };

/** Waits for thing a to be Running, on `clock` and without jitter, so that pauses are exact. */
function untilRunning(client: ApiClient, clock: Clock, timeoutMs = 60_000) {
  return converge({
    client,
    waiter: "thing a",
    sources: [source],
    evaluate: phaseIs("Running"),
    timeoutMs,
    retry: steady,
    clock,
  });
}

describe("converge", () => {
  it("resumes a dropped watch from the last resourceVersion and re-lists on 410 Gone", async () => {
    const { client, calls } = scriptedClient(
      [
        { items: [obj("a", "5", "Pending")], resourceVersion: "5" },
        { items: [obj("a", "9", "Running")], resourceVersion: "9" },
      ],
      [
        async (h) => {
          h.onEvent(event("MODIFIED", obj("a", "6", "Provisioning")));
          h.onEvent(event("BOOKMARK", { metadata: { name: "", resourceVersion: "7" } }));
        },
        async (h) =>
          h.onEvent(
            event("ERROR", { metadata: { name: "" }, code: 410, reason: "Expired", message: "too old" }),
          ),
      ],
    );
    const outcome = await converge({
      client,
      waiter: "thing a",
      sources: [source],
      evaluate: phaseIs("Running"),
      timeoutMs: 5000,
      retry: fast,
    });
    assert.equal(outcome.result, "Running");
    assert.deepEqual(calls, ["list", "watch@5", "watch@7", "list"]);
    assert.equal(outcome.requests, 4);
  });

  it("retries 429 (honouring Retry-After), 5xx and refused connections, then succeeds", async () => {
    const { client, calls } = scriptedClient(
      [
        apiError("slow down", { status: 429, retryAfterMs: 3000 }),
        apiError("unavailable", { status: 503 }),
        apiError("connect ECONNREFUSED", { code: "ECONNREFUSED" }),
        { items: [obj("a", "1", "Running")], resourceVersion: "1" },
      ],
      [],
    );
    const clock = fakeClock();
    const outcome = await untilRunning(client, clock);
    assert.equal(outcome.result, "Running");
    assert.deepEqual(calls, ["list", "list", "list", "list"]);
    // Retry-After outweighs the first backoff step; the next two back off exponentially.
    assert.deepEqual(clock.slept, [3000, 200, 400]);
    assert.equal(outcome.elapsedMs, 3600);
  });

  it("backs off when the server closes every watch at once, instead of reconnecting in a busy loop", async () => {
    const closedAtOnce = async () => {};
    const { client, calls } = scriptedClient(
      [{ items: [obj("a", "1", "Pending")], resourceVersion: "1" }],
      [
        closedAtOnce,
        closedAtOnce,
        closedAtOnce,
        async (h) => h.onEvent(event("MODIFIED", obj("a", "2", "Running"))),
      ],
    );
    const clock = fakeClock();
    const outcome = await untilRunning(client, clock);
    assert.equal(outcome.result, "Running");
    assert.deepEqual(calls, ["list", "watch@1", "watch@1", "watch@1", "watch@1"]);
    // Every watch was accepted (onOpen), yet none delivered anything: the backoff is not reset.
    assert.deepEqual(clock.slept, [100, 200, 400]);
  });

  it("fails at once on an answer that retrying cannot change", async () => {
    const { client } = scriptedClient([apiError("forbidden", { status: 403, reason: "Forbidden" })], []);
    await assert.rejects(
      converge({
        client,
        waiter: "thing a",
        sources: [source],
        evaluate: phaseIs("Running"),
        timeoutMs: 5000,
        retry: fast,
      }),
      (e: unknown) =>
        isWaitError(e) &&
        e.kind === "failed" &&
        /cannot list machinesets in ns: HTTP 403 Forbidden: forbidden/.test(e.message),
    );
  });

  it("isWaitError tells a wait's end from failures before any wait, which a caller must not read as the cluster's state", () => {
    // A kubeconfig without a cluster fails when the client is made, before anything is waited for.
    assert.throws(
      () => createApiClient("current-context: none"),
      (e: unknown) => e instanceof Error && !isWaitError(e) && /no current cluster/.test(e.message),
    );
    assert.equal(isWaitError(apiError("forbidden", { status: 403 })), false);
    // Named as one, but not an Error: a rejection value from elsewhere.
    assert.equal(isWaitError({ name: "WaitError", kind: "failed", message: "x" }), false);
    assert.equal(isWaitError(waitError("timeout", "pool worker", "timed out", "1 left")), true);
  });

  it("times out with the last state in the message", async () => {
    const { client } = scriptedClient([{ items: [obj("a", "1", "Pending")], resourceVersion: "1" }], []);
    const clock = fakeClock();
    let reported: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => (reported = resolve));
    const outcome = converge({
      client,
      waiter: "thing a",
      sources: [source],
      evaluate: phaseIs("Running"),
      timeoutMs: 600_000,
      progressIntervalMs: 0,
      onProgress: () => reported(),
      clock,
    });
    let settled = false;
    void outcome.catch(() => (settled = true));
    await waiting;
    clock.advance(599_999);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "timed out before the deadline");
    clock.advance(1);
    await assert.rejects(
      outcome,
      (e: unknown) =>
        isWaitError(e) &&
        e.kind === "timeout" &&
        /^timed out after 600s waiting for thing a: phase Pending$/.test(e.message),
    );
  });

  it("says in its progress and its timeout when watches keep going silent, as behind a proxy that buffers them", async () => {
    // Every list answers; every watch stays open without a word until the wait ends.
    const pending = { items: [obj("a", "1", "Pending")], resourceVersion: "1" };
    const { client, calls } = scriptedClient(Array<ListResult>(10).fill(pending), []);
    const clock = fakeClock();
    const messages: string[] = [];
    const outcome = converge({
      client,
      waiter: "thing a",
      sources: [source],
      evaluate: phaseIs("Running"),
      timeoutMs: 3 * WATCH_IDLE_MS + 1000,
      progressIntervalMs: 0,
      onProgress: (e) => messages.push(e.message),
      clock,
    });
    const settle = async () => {
      for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    await settle();
    for (let i = 0; i < 3; i++) {
      clock.advance(WATCH_IDLE_MS);
      await settle();
    }
    assert.deepEqual(calls, ["list", "watch@1", "list", "watch@1", "list", "watch@1", "list", "watch@1"]);
    const note = (n: number) => `; watches of machinesets in ns silent ${n} times in a row; polling by list`;
    assert.deepEqual(messages, ["phase Pending", `phase Pending${note(2)}`, `phase Pending${note(3)}`]);
    clock.advance(1000);
    await assert.rejects(
      outcome,
      (e: unknown) =>
        isWaitError(e) &&
        e.kind === "timeout" &&
        e.message === `timed out after 451s waiting for thing a: phase Pending${note(3)}`,
    );
  });

  it("names the last API error when the deadline passes while retrying", async () => {
    const unavailable = Array.from({ length: 20 }, () => apiError("etcd leader changed", { status: 503 }));
    const { client, calls } = scriptedClient(unavailable, []);
    await assert.rejects(
      untilRunning(client, fakeClock(), 10_000),
      (e: unknown) =>
        isWaitError(e) &&
        e.kind === "timeout" &&
        /^timed out after 10s waiting for thing a: thing a: connecting \(last API error: HTTP 503: etcd leader changed\)$/.test(
          e.message,
        ),
    );
    // 100 + 200 + ... + 3200 + 5000 passes 10 s during the seventh pause.
    assert.equal(calls.length, 7);
  });

  it("stops when cancelled", async () => {
    const { client } = scriptedClient([{ items: [obj("a", "1", "Pending")], resourceVersion: "1" }], []);
    const controller = new AbortController();
    const wait = converge({
      client,
      waiter: "thing a",
      sources: [source],
      evaluate: phaseIs("Running"),
      timeoutMs: 5000,
      signal: controller.signal,
    });
    setImmediate(() => controller.abort());
    await assert.rejects(wait, (e: unknown) => isWaitError(e) && e.kind === "aborted");
  });

  it("watches an object a read found missing, by name, until it appears (re-listing on 410 Gone)", async () => {
    const { client, calls } = scriptedClient(
      [
        { items: [], resourceVersion: "3" },
        { items: [], resourceVersion: "8" },
      ],
      [
        async (h) =>
          h.onEvent(
            event("ERROR", { metadata: { name: "" }, code: 410, reason: "Expired", message: "too old" }),
          ),
        async (h) => h.onEvent(event("ADDED", obj("b", "9", "Pending"))),
      ],
    );
    const outcome = await converge({
      client,
      waiter: "thing b",
      sources: [],
      evaluate: (view) => {
        const b = view.fetched.b as KubeObject | null | undefined;
        if (b) return { state: "done", message: "b exists", result: b.metadata.resourceVersion };
        return {
          state: "waiting",
          message: b === null ? "b does not exist yet" : "reading b",
          needs: [{ type: "get", key: "b", resource: KINDS.machineConfig, name: "b" }],
        };
      },
      timeoutMs: 5000,
      retry: fast,
    });
    assert.equal(outcome.result, "9");
    assert.deepEqual(calls, [
      "get",
      "list metadata.name=b",
      "watch@3 metadata.name=b",
      "list metadata.name=b",
      "watch@8 metadata.name=b",
    ]);
  });

  it("observes a missing object with one read: neither listing nor watching it by name", async () => {
    const { client, calls } = scriptedClient([], []);
    const evaluation = await observe({
      client,
      waiter: "thing b",
      sources: [],
      evaluate: (view) => ({
        state: "waiting",
        message: view.fetched.b === null ? "b does not exist yet" : "reading b",
        needs: [{ type: "get", key: "b", resource: KINDS.machineConfig, name: "b" }],
      }),
      timeoutMs: 5000,
    });
    assert.equal(evaluation.message, "b does not exist yet");
    // The observation ended with the read's answer; nothing is left running after it.
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls, ["get"]);
  });

  it("observes once without watching", async () => {
    const { client, calls } = scriptedClient(
      [{ items: [obj("a", "1", "Pending")], resourceVersion: "1" }],
      [],
    );
    const evaluation = await observe({
      client,
      waiter: "thing a",
      sources: [source],
      evaluate: phaseIs("Running"),
      timeoutMs: 5000,
    });
    assert.equal(evaluation.state, "waiting");
    assert.deepEqual(calls, ["list"]);
  });

  it("observes a predicate that keeps asking for a source it was given, returning once it is listed", async () => {
    // As the MachineSet predicate asks for the nodes its MachineSets select at every evaluation: the
    // refresh of a pool whose nodes are not ready must report it, not wait out its deadline.
    const { client, calls } = scriptedClient(
      [
        { items: [obj("a", "1", "Pending")], resourceVersion: "1" },
        { items: [], resourceVersion: "1" },
      ],
      [],
    );
    const evaluation = await observe({
      client,
      waiter: "thing a",
      sources: [source],
      evaluate: (view) => ({
        state: "waiting",
        message: view.sources.extra === undefined ? "listing" : "a is Pending",
        needs: [{ type: "source", source: { ...source, name: "extra" } }],
      }),
      timeoutMs: 5000,
    });
    assert.equal(evaluation.message, "a is Pending");
    assert.deepEqual(calls, ["list", "list"]);
  });
});

describe("converge: a source whose selectors change", () => {
  it("lists again with the new selectors, stops the old watch, and evaluates only the new objects", async () => {
    // As a pool's nodeSelector edited during the wait: its nodes are the ones the new selector picks.
    const { client, calls } = scriptedClient(
      [
        { items: [obj("pool", "1", "role=a")], resourceVersion: "1" },
        { items: [obj("node-a", "2", "Ready")], resourceVersion: "2" },
        { items: [obj("node-b", "4", "Ready")], resourceVersion: "4" },
      ],
      [
        async (h) => {
          h.onEvent(event("MODIFIED", obj("pool", "3", "role=b")));
          await new Promise(() => undefined);
        },
      ],
    );
    const watching = new Set<string>();
    const watch = client.watch.bind(client);
    client.watch = (resource, selectors, handlers, signal) => {
      const what = selectors.fieldSelector ?? "pool";
      watching.add(what);
      signal?.addEventListener("abort", () => watching.delete(what));
      return watch(resource, selectors, handlers, signal);
    };
    const seen: string[][] = [];
    const watchedAtB: string[] = [];
    const outcome = await converge({
      client,
      waiter: "nodes of the pool",
      sources: [source],
      evaluate: (view) => {
        const selector = (view.sources.things?.[0]?.status as { phase: string }).phase;
        const nodes = view.sources.nodes?.map((n) => n.metadata.name);
        if (nodes) seen.push(nodes);
        if (nodes?.includes("node-b")) watchedAtB.push(...watching);
        return {
          state: nodes?.includes("node-b") ? "done" : "waiting",
          message: `${selector}: ${nodes?.join(",") ?? "listing"}`,
          result: nodes,
          needs: [{ type: "source", source: { ...source, name: "nodes", fieldSelector: selector } }],
        };
      },
      timeoutMs: 5000,
      retry: fast,
    });
    assert.deepEqual(outcome.result, ["node-b"]);
    // The old selector's objects until the new list arrives, never mixed with the new ones.
    assert.deepEqual(seen[0], ["node-a"]);
    assert.deepEqual(seen[seen.length - 1], ["node-b"]);
    assert.ok(
      seen.every((nodes) => nodes.length === 1),
      JSON.stringify(seen),
    );
    assert.deepEqual(watchedAtB, ["pool"], "the watch of the old selector is stopped");
    assert.deepEqual(
      calls.filter((c) => c.startsWith("list ")),
      ["list role=a", "list role=b"],
    );
  });

  it("keeps a source asked again with the same selectors", async () => {
    const { client, calls } = scriptedClient(
      [
        { items: [obj("a", "1", "Pending")], resourceVersion: "1" },
        { items: [obj("x", "2", "Ready")], resourceVersion: "2" },
      ],
      [
        async (h) => {
          h.onEvent(event("MODIFIED", obj("a", "3", "Running")));
          await new Promise(() => undefined);
        },
      ],
    );
    await converge({
      client,
      waiter: "thing a",
      sources: [source],
      evaluate: (view) => ({
        ...phaseIs("Running")(view),
        needs: [{ type: "source", source: { ...source, name: "extra", fieldSelector: "same" } }],
      }),
      timeoutMs: 5000,
      retry: fast,
    });
    assert.deepEqual(
      calls.filter((c) => c.startsWith("list")),
      ["list", "list same"],
    );
  });
});

describe("reflector", () => {
  /** A session of its own, as `converge` gives each wait, recording failures instead of ending a wait. */
  function session(client: ApiClient) {
    const stop = new AbortController();
    const failures: string[] = [];
    const clock = fakeClock();
    const value: Session = {
      waiter: "things",
      client,
      clock,
      policy: steady,
      signal: stop.signal,
      fail: (message) => {
        failures.push(message);
        stop.abort();
      },
      transient: () => undefined,
    };
    return { session: value, failures, clock };
  }

  it("keeps a store of the source through added, modified and deleted objects, resuming from bookmarks", async () => {
    const { client, calls } = scriptedClient(
      [{ items: [obj("a", "1", "Pending"), obj("b", "2", "Pending")], resourceVersion: "2" }],
      [
        async (h) => {
          h.onEvent(event("MODIFIED", obj("a", "3", "Running")));
          h.onEvent(event("DELETED", obj("b", "4", "Pending")));
          h.onEvent(event("BOOKMARK", { metadata: { name: "", resourceVersion: "6" } }));
        },
        async (h) => h.onEvent(event("ADDED", obj("c", "7", "Pending"))),
      ],
    );
    const { session: s, failures } = session(client);
    const seen: string[] = [];
    await reflect(s, source, (store) => {
      assert.ok(store, "a served source hands a store");
      const phases = [...store.values()].map(
        (o) => `${o.metadata.name}=${(o.status as { phase: string }).phase}`,
      );
      seen.push(phases.join(" "));
      return store.has("c");
    });
    assert.deepEqual(seen, [
      "a=Pending b=Pending",
      "a=Running b=Pending",
      "a=Running",
      "a=Running c=Pending",
    ]);
    assert.deepEqual(calls, ["list", "watch@2", "watch@6"]);
    assert.deepEqual(failures, []);
  });

  it("hands a failure retrying cannot change to the session, naming what it watched", async () => {
    const { client } = scriptedClient(
      [{ items: [], resourceVersion: "1" }],
      [apiError("forbidden", { status: 403, reason: "Forbidden" })],
    );
    const { session: s, failures } = session(client);
    await reflect(s, source, () => false);
    assert.deepEqual(failures, ["things: cannot watch machinesets in ns: HTTP 403 Forbidden: forbidden"]);
  });
  describe("a source older clusters do not serve (servedOrNull)", () => {
    const optional = { ...source, servedOrNull: true };
    const notFound = () => apiError("the server could not find the requested resource", { status: 404 });

    /** Reflects `optional`, recording what each change handed over: its object names, or null. */
    async function handed(s: Session) {
      const seen: Array<string[] | null> = [];
      await reflect(s, optional, (store) => {
        seen.push(store && [...store.keys()]);
        return store === null || store.has("b");
      });
      return seen;
    }

    it("hands null after a 404 on its list, with one request and no retry", async () => {
      const { client, calls } = scriptedClient([notFound()], []);
      const { session: s, failures, clock } = session(client);
      assert.deepEqual(await handed(s), [null]);
      assert.deepEqual(calls, ["list"]);
      assert.equal(client.requests, 1);
      assert.deepEqual(clock.slept, []);
      assert.deepEqual(failures, []);
    });

    it("seeds the store and the watch from its one list when served", async () => {
      const { client, calls } = scriptedClient(
        [{ items: [obj("a", "4", "Pending")], resourceVersion: "4" }],
        [async (h) => h.onEvent(event("ADDED", obj("b", "5", "Pending")))],
      );
      const { session: s, failures } = session(client);
      assert.deepEqual(await handed(s), [["a"], ["a", "b"]]);
      assert.deepEqual(calls, ["list", "watch@4"]);
      assert.deepEqual(failures, []);
    });

    it("retries 500, 429 and refused connections on its list, as any source's", async () => {
      const { client, calls } = scriptedClient(
        [
          apiError("internal error", { status: 500 }),
          apiError("slow down", { status: 429, retryAfterMs: 1000 }),
          apiError("connect ECONNREFUSED", { code: "ECONNREFUSED" }),
          { items: [obj("b", "2", "Pending")], resourceVersion: "2" },
        ],
        [],
      );
      const { session: s, failures, clock } = session(client);
      assert.deepEqual(await handed(s), [["b"]]);
      assert.deepEqual(calls, ["list", "list", "list", "list"]);
      assert.deepEqual(clock.slept, [100, 1000, 400]);
      assert.deepEqual(failures, []);
    });

    it("re-lists after 410 Gone and hands null once the resource is no longer served", async () => {
      const { client, calls } = scriptedClient(
        [{ items: [obj("a", "3", "Pending")], resourceVersion: "3" }, notFound()],
        [
          async (h) =>
            h.onEvent(
              event("ERROR", { metadata: { name: "" }, code: 410, reason: "Expired", message: "too old" }),
            ),
        ],
      );
      const { session: s, failures } = session(client);
      assert.deepEqual(await handed(s), [["a"], null]);
      assert.deepEqual(calls, ["list", "watch@3", "list"]);
      assert.deepEqual(failures, []);
    });

    it("hands null after a 404 on its watch (the resource went since the list)", async () => {
      const { client, calls } = scriptedClient([{ items: [], resourceVersion: "7" }], [notFound()]);
      const { session: s, failures } = session(client);
      assert.deepEqual(await handed(s), [[], null]);
      assert.deepEqual(calls, ["list", "watch@7"]);
      assert.deepEqual(failures, []);
    });

    it('fails on 403: forbidden is not "not served"', async () => {
      const { client } = scriptedClient([apiError("forbidden", { status: 403, reason: "Forbidden" })], []);
      const { session: s, failures } = session(client);
      assert.deepEqual(await handed(s), []);
      assert.deepEqual(failures, ["things: cannot list machinesets in ns: HTTP 403 Forbidden: forbidden"]);
    });

    it("fails on 404 when the source does not say it may be unserved", async () => {
      const { client } = scriptedClient([notFound()], []);
      const { session: s, failures } = session(client);
      await reflect(s, source, () => false);
      assert.deepEqual(failures, [
        "things: cannot list machinesets in ns: HTTP 404: the server could not find the requested resource",
      ]);
    });

    it("shows as null in the view of a wait and of an observation, which then need nothing more", async () => {
      for (const run of [converge, observe] as const) {
        const { client, calls } = scriptedClient([notFound()], []);
        const outcome = await run({
          client,
          waiter: "things",
          sources: [optional],
          evaluate: (view) =>
            view.sources.things === null
              ? { state: "done", message: "not served", result: "null" }
              : { state: "waiting", message: "listing" },
          timeoutMs: 5000,
          retry: fast,
        });
        assert.equal(outcome.result, "null");
        assert.deepEqual(calls, ["list"]);
      }
    });
  });
});

describe("retry policy", () => {
  it("retries 429, 5xx and network failures only", () => {
    assert.equal(isRetryable(apiError("x", { status: 429 })), true);
    assert.equal(isRetryable(apiError("x", { status: 500 })), true);
    assert.equal(isRetryable(apiError("x", { status: 503 })), true);
    assert.equal(isRetryable(apiError("x", { code: "ECONNRESET" })), true);
    assert.equal(isRetryable(apiError("x", { status: 404 })), false);
    assert.equal(isRetryable(apiError("x", { status: 422 })), false);
  });

  it("grows exponentially with bounded jitter and honours Retry-After", () => {
    const policy = { initialMs: 100, maxMs: 1000, factor: 2, jitter: 0.5 };
    assert.equal(
      backoffDelay(0, policy, () => 0),
      50,
    );
    assert.equal(
      backoffDelay(0, policy, () => 1),
      100,
    );
    assert.equal(
      backoffDelay(3, policy, () => 1),
      800,
    );
    assert.equal(
      backoffDelay(10, policy, () => 1),
      1000,
    );
    assert.equal(
      retryDelay(apiError("x", { status: 429, retryAfterMs: 2000 }), 0, policy, () => 0),
      2000,
    );
    assert.equal(parseRetryAfter("3"), 3000);
    assert.equal((parseRetryAfter(new Date(Date.now() + 60_000).toUTCString()) ?? 0) > 50_000, true);
    assert.equal(parseRetryAfter(undefined), undefined);
  });
});

describe("progress", () => {
  it("drops repeats, throttles changes, always delivers the final state, and reaches global subscribers", async () => {
    const own: string[] = [];
    const global: ProgressEvent[] = [];
    const unsubscribe = subscribeProgress((e) => global.push(e));
    const clock = fakeClock();
    const reporter = progressReporter(20, (e) => own.push(e.message), clock);
    const e = (message: string): ProgressEvent => ({ waiter: "w", state: "waiting", message, elapsedMs: 0 });
    reporter.report(e("1/3"));
    reporter.report(e("1/3"));
    reporter.report(e("2/3"));
    reporter.report(e("2/3 again"));
    clock.advance(19);
    assert.deepEqual(own, ["1/3"]);
    clock.advance(1);
    reporter.report(e("3/3 soon"));
    reporter.finish({ ...e("3/3"), state: "done" });
    clock.advance(20);
    unsubscribe();
    assert.deepEqual(own, ["1/3", "2/3 again", "3/3"]);
    assert.deepEqual(
      global.map((g) => g.message),
      own,
    );
  });
});

describe("converge: a source whose selectors changed while it was listing again", () => {
  it("drops what its old selectors' list answers late, and does not end on it", async () => {
    // The pool's nodes by its old selector are listed again after a 410 when the selector changes to
    // role=b: that list, answered after the new one, says node-b Ready from when it had role=a too.
    const pool = { name: "pool", resource: KINDS.pool };
    let releaseOld: (() => void) | undefined;
    let oldLists = 0;
    let requests = 0;
    const hold = (signal?: AbortSignal) =>
      new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve()));
    const client: ApiClient = {
      get requests() {
        return requests;
      },
      async list(resource, selectors) {
        requests++;
        if (resource === KINDS.pool) return { items: [obj("pool", "1", "role=a")], resourceVersion: "1" };
        if (selectors.fieldSelector === "role=b")
          return { items: [obj("node-b", "3", "NotReady")], resourceVersion: "3" };
        // The old selector's list ignores the cancel, as a response already on its way does.
        if (++oldLists === 1) return { items: [obj("node-a", "1", "Ready")], resourceVersion: "1" };
        await new Promise<void>((resolve) => (releaseOld = resolve));
        return { items: [obj("node-b", "2", "Ready")], resourceVersion: "2" };
      },
      get: async () => undefined,
      mergePatch: async () => ({ metadata: { name: "x" } }),
      delete: async () => true,
      async watch(resource, selectors, handlers, signal) {
        requests++;
        if (selectors.fieldSelector === "role=a" && oldLists === 1) {
          return handlers.onEvent(event("ERROR", { metadata: { name: "" }, code: 410, reason: "Expired" }));
        }
        if (resource === KINDS.pool) {
          while (!releaseOld) await new Promise((resolve) => setImmediate(resolve));
          handlers.onEvent(event("MODIFIED", obj("pool", "4", "role=b")));
        }
        await hold(signal);
      },
    };
    const cancel = new AbortController();
    const seen: string[][] = [];
    const wait = converge({
      client,
      waiter: "nodes of the pool",
      sources: [pool],
      evaluate: (view) => {
        const selector = (view.sources.pool?.[0]?.status as { phase: string }).phase;
        const nodes = view.sources.nodes ?? [];
        seen.push(nodes.map((n) => n.metadata.name));
        const ready = nodes.some(
          (n) => n.metadata.name === "node-b" && (n.status as { phase: string }).phase === "Ready",
        );
        return {
          state: ready && selector === "role=b" ? "done" : "waiting",
          message: `${selector}: ${nodes.length} nodes`,
          needs: [{ type: "source", source: { ...source, name: "nodes", fieldSelector: selector } }],
        };
      },
      timeoutMs: 60_000,
      signal: cancel.signal,
      clock: fakeClock(),
    });
    while (!seen.some((nodes) => nodes.includes("node-b")))
      await new Promise((resolve) => setImmediate(resolve));
    releaseOld?.();
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
    cancel.abort();
    await assert.rejects(wait, (e: unknown) => isWaitError(e) && e.kind === "aborted");
    assert.deepEqual(seen[seen.length - 1], ["node-b"]);
  });
});
