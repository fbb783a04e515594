import { strict as assert } from "node:assert";
import { getEventListeners } from "node:events";
import { ApiClient } from "./api";
import { converge, Evaluation, isWaitError, Need, observe, View } from "./converge";
import { KINDS, KubeObject } from "./kinds";
import { ProgressEvent } from "./progress";
import { apiError } from "./retry";
import { fakeClock, FakeClock } from "../../test/fake-clock";
import { memoryClient } from "../../test/memory-client";

/**
 * The engine's decisions around the predicate, after client-go's informers: nothing is evaluated
 * before every informer has synced (kubernetes/client-go tools/cache, WaitForCacheSync and
 * SharedIndexInformer.HasSynced: a lister is empty until its first list arrived, and empty is not
 * "there is none"), and a read-only observation sends nothing.
 */
const NS = "openshift-machine-api";
const set = (name: string): KubeObject => ({ metadata: { name, namespace: NS } });
const machine = (name: string): KubeObject => ({ metadata: { name, namespace: NS } });

const sources = [
  { name: "machineSets", resource: KINDS.machineSet, namespace: NS },
  { name: "machines", resource: KINDS.machine, namespace: NS },
];

/** Done when no MachineSet and no Machine is left, reading absent sources as empty: what must not happen early. */
function noneLeft(seen: View[]) {
  return (view: View) => {
    seen.push(view);
    const left = [...(view.sources.machineSets ?? []), ...(view.sources.machines ?? [])];
    return left.length === 0
      ? { state: "done" as const, message: "none left", result: Object.keys(view.sources).sort() }
      : { state: "waiting" as const, message: `${left.length} left` };
  };
}

describe("waiting engine: evaluation only on complete observations", () => {
  it("does not evaluate before every source was listed, so a source not listed yet is not read as empty", async () => {
    const client = memoryClient();
    client.put(KINDS.machine, machine("m1"));
    const machines = client.holdLists(KINDS.machine);
    const seen: View[] = [];
    const events: ProgressEvent[] = [];
    let settled = false;
    const wait = converge({
      client,
      waiter: "deletion",
      sources,
      evaluate: noneLeft(seen),
      timeoutMs: 60_000,
      progressIntervalMs: 0,
      onProgress: (e) => events.push(e),
      clock: fakeClock(),
    }).finally(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen.length, 0, "evaluated with the Machines not listed yet");
    assert.equal(settled, false);
    machines.release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "done while a Machine remains");
    assert.deepEqual(
      seen.map((v) => Object.keys(v.sources).sort()),
      [["machineSets", "machines"]],
    );
    assert.equal(events.at(-1)?.message, "1 left");
    client.remove(KINDS.machine, machine("m1"));
    const outcome = await wait;
    assert.deepEqual(outcome.result, ["machineSets", "machines"]);
    assert.equal(outcome.message, "none left");
  });

  it("observes once only after every source was listed too", async () => {
    const client = memoryClient();
    client.put(KINDS.machineSet, set("a"));
    const held = client.holdLists(KINDS.machineSet);
    const seen: View[] = [];
    const observation = observe({
      client,
      waiter: "deletion",
      sources,
      evaluate: noneLeft(seen),
      timeoutMs: 60_000,
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(seen.length, 0);
    held.release();
    const e = await observation;
    assert.equal(e.state, "waiting");
    assert.equal(e.message, "1 left");
  });

  it("evaluates at once a wait with no sources", async () => {
    const outcome = await converge({
      client: memoryClient(),
      waiter: "nothing",
      sources: [],
      evaluate: () => ({ state: "done", message: "nothing to wait for", result: 1 }),
      timeoutMs: 1000,
      clock: fakeClock(),
    });
    assert.deepEqual([outcome.result, outcome.message, outcome.requests], [1, "nothing to wait for", 0]);
  });
});

describe("waiting engine: needs", () => {
  const SECRET = { metadata: { name: "key", namespace: NS }, data: { "private-key.pem": "c2VjcmV0" } };

  it("keeps only the metadata of an object read with metadataOnly, and reads each key once", async () => {
    const client = memoryClient();
    client.put(KINDS.secret, SECRET);
    const outcome = await converge({
      client,
      waiter: "secret",
      sources: [],
      evaluate: (view) => {
        if (view.fetched.key) return { state: "done", message: "read", result: view.fetched.key };
        const need = { type: "get" as const, key: "key", resource: KINDS.secret, name: "key", namespace: NS };
        return { state: "waiting", message: "reading", needs: [{ ...need, metadataOnly: true }, need] };
      },
      timeoutMs: 60_000,
      clock: fakeClock(),
    });
    const read = outcome.result as KubeObject;
    assert.deepEqual(Object.keys(read), ["metadata"], "a secret's data is not kept");
    assert.equal(read.metadata.name, "key");
    assert.equal(outcome.requests, 1, "one read for one key");
  });

  it("sends a patch once and marks it done; observe never sends it", async () => {
    const evaluate = (view: View) =>
      view.patched.approve
        ? { state: "done" as const, message: "approved" }
        : {
            state: "waiting" as const,
            message: "approving",
            needs: [
              {
                type: "patch" as const,
                key: "approve",
                resource: KINDS.installPlan,
                name: "plan",
                namespace: NS,
                patch: { spec: { approved: true } },
              },
            ],
          };
    const observed = memoryClient();
    const e = await observe({ client: observed, waiter: "plan", sources: [], evaluate, timeoutMs: 60_000 });
    assert.equal(e.state, "waiting");
    assert.deepEqual(observed.patches, [], "a read-only observation sent a patch");
    const client = memoryClient();
    const outcome = await converge({
      client,
      waiter: "plan",
      sources: [],
      evaluate,
      timeoutMs: 60_000,
      clock: fakeClock(),
    });
    assert.equal(outcome.message, "approved");
    assert.deepEqual(client.patches, [["installplans/plan", { spec: { approved: true } }]]);
  });

  it("ends an observation with the first evaluation that needs nothing more, whatever its state", async () => {
    const failed = await observe({
      client: memoryClient(),
      waiter: "w",
      sources: [],
      evaluate: () => ({ state: "failed", message: "broken" }),
      timeoutMs: 60_000,
    });
    assert.deepEqual([failed.state, failed.message], ["failed", "broken"]);
  });
});

describe("waiting engine: how a wait ends without success", () => {
  it("fails naming the waiter when the predicate throws", async () => {
    await assert.rejects(
      converge({
        client: memoryClient(),
        waiter: "pool worker",
        sources: [],
        evaluate: () => {
          throw new Error("unexpected shape");
        },
        timeoutMs: 60_000,
        clock: fakeClock(),
      }),
      (e: unknown) => isWaitError(e) && e.kind === "failed" && e.message === "pool worker: unexpected shape",
    );
  });

  it("fails with the predicate's message, which is also the detail", async () => {
    await assert.rejects(
      converge({
        client: memoryClient(),
        waiter: "pool worker",
        sources: [],
        evaluate: () => ({ state: "failed", message: "node n1 degraded" }),
        timeoutMs: 60_000,
        clock: fakeClock(),
      }),
      (e: unknown) =>
        isWaitError(e) &&
        e.kind === "failed" &&
        e.waiter === "pool worker" &&
        e.message === "node n1 degraded" &&
        e.detail === "node n1 degraded",
    );
  });

  it("is aborted at once by a signal aborted before it started, and times out to a tenth of a second", async () => {
    const controller = new AbortController();
    controller.abort();
    const client = memoryClient();
    await assert.rejects(
      converge({
        client,
        waiter: "w",
        sources,
        evaluate: noneLeft([]),
        timeoutMs: 60_000,
        signal: controller.signal,
        clock: fakeClock(),
      }),
      (e: unknown) =>
        isWaitError(e) && e.kind === "aborted" && e.message === "wait for w cancelled: w: connecting",
    );
    assert.equal(client.requests, 0, "nothing sent for a cancelled wait");
    const clock = fakeClock();
    const waiting = memoryClient();
    waiting.put(KINDS.machine, machine("m1"));
    const wait = converge({
      client: waiting,
      waiter: "w",
      sources,
      evaluate: noneLeft([]),
      timeoutMs: 1450,
      clock,
    });
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(1450);
    await assert.rejects(
      wait,
      (e: unknown) =>
        isWaitError(e) && e.kind === "timeout" && e.message === "timed out after 1.5s waiting for w: 1 left",
    );
  });
});

describe("waiting engine: what a wait sends for its predicate", () => {
  /** Asks for `needs` until the machines are gone or a patch or delete was answered. */
  const asking = (needs: Evaluation<string[]>) => (view: View) =>
    (view.sources.machines ?? []).length === 0 || Object.keys(view.patched).length > 0
      ? { state: "done" as const, message: "done", result: Object.keys(view.patched) }
      : needs;

  it("sends a delete once per key, and an observation sends none", async () => {
    const client = memoryClient();
    client.put(KINDS.machine, machine("m1"));
    const deletes: string[] = [];
    const counting = Object.assign(Object.create(client), {
      delete: (...args: Parameters<typeof client.delete>) => (deletes.push(args[1]), client.delete(...args)),
    });
    const del = {
      type: "delete" as const,
      key: "delete/m1",
      resource: KINDS.machine,
      name: "m1",
      namespace: NS,
    };
    const evaluate = asking({ state: "waiting", message: "deleting", needs: [del, del] });
    const options = {
      client: counting,
      waiter: "w",
      sources,
      evaluate,
      timeoutMs: 60_000,
      clock: fakeClock(),
    };
    assert.equal((await observe(options)).state, "waiting");
    assert.deepEqual(deletes, []);
    await converge(options);
    assert.deepEqual(deletes, ["m1"]);
  });

  it("takes a patch of an object gone meanwhile as done only when the need says so", async () => {
    const client = memoryClient();
    client.put(KINDS.machine, machine("m1"));
    const gone = Object.assign(Object.create(client), {
      mergePatch: () =>
        Promise.reject(apiError('machines "m1" not found', { status: 404, reason: "NotFound" })),
    });
    const patch = {
      type: "patch" as const,
      key: "mark/m1",
      resource: KINDS.machine,
      name: "m1",
      namespace: NS,
      patch: {},
    };
    const run = (unlessGone: boolean) =>
      converge({
        client: gone,
        waiter: "w",
        sources,
        evaluate: asking({ state: "waiting", message: "marking", needs: [{ ...patch, unlessGone }] }),
        timeoutMs: 60_000,
        clock: fakeClock(),
      });
    assert.deepEqual((await run(true)).result, ["mark/m1"]);
    await assert.rejects(
      run(false),
      (e: unknown) => isWaitError(e) && /cannot patch Machine m1: HTTP 404/.test(e.message),
    );
  });
});

describe("waiting engine: rechecks, and reads followed by name", () => {
  const SECRET = { metadata: { name: "key", namespace: NS } };
  const read = { type: "get" as const, key: "key", resource: KINDS.secret, name: "key", namespace: NS };

  /**
   * A failure that is final only once it has lasted a minute (persistence.ts, as the MCO's node
   * controller lets a degraded node be for a while): judged when that time comes, nothing changing.
   */
  function lastingFailure(evaluations: number[]) {
    return (view: View): Evaluation<never> => {
      evaluations.push(view.elapsedMs);
      if (view.elapsedMs >= 60_000) return { state: "failed", message: "degraded for a minute" };
      // Each evaluation asks for the time still to go: the earlier ask is superseded, not added.
      return {
        state: "waiting",
        message: "degraded",
        needs: [{ type: "recheck", afterMs: 60_000 - view.elapsedMs }],
      };
    };
  }

  it("evaluates again when a recheck is due, though nothing changed, and leaves no timer behind", async () => {
    const clock = fakeClock();
    // Time is measured from the wait's start, not from the clock's.
    clock.advance(3_600_000);
    const client = memoryClient();
    client.put(KINDS.machine, machine("m1"));
    const evaluations: number[] = [];
    const events: ProgressEvent[] = [];
    const wait = converge({
      client,
      waiter: "pool",
      sources,
      evaluate: lastingFailure(evaluations),
      timeoutMs: 30 * 60_000,
      onProgress: (e) => events.push(e),
      clock,
    });
    await new Promise((resolve) => setImmediate(resolve));
    // A change half-way evaluates again and asks for the rest of the minute.
    clock.advance(30_000);
    client.put(KINDS.machine, machine("m2"));
    clock.advance(29_999);
    assert.deepEqual(evaluations, [0, 30_000]);
    clock.advance(1);
    await assert.rejects(wait, (e: unknown) => isWaitError(e) && e.kind === "failed");
    assert.deepEqual(evaluations, [0, 30_000, 60_000]);
    assert.equal(events[events.length - 1].elapsedMs, 60_000);
    // A timer left would keep `pulumi up` running after the wait ended.
    assert.equal(clock.pending, 0);
  });

  it("keeps one recheck timer, the latest evaluation's, and none once the wait ended", async () => {
    const clock = fakeClock();
    const client = memoryClient();
    const wait = converge({
      ...readingWhileWaiting(client),
      evaluate: (view: View): Evaluation<string> =>
        view.sources.machines?.some((m) => m.metadata.name === "m2")
          ? { state: "done", message: "m2 is there" }
          : { state: "waiting", message: "waiting for m2", needs: [{ type: "recheck", afterMs: 60_000 }] },
      clock,
    });
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(30_000);
    client.put(KINDS.machine, machine("m3"));
    clock.advance(15_000);
    client.put(KINDS.machine, machine("m2"));
    await wait;
    assert.equal(clock.pending, 0);
  });

  it("lists and watches once a source that one evaluation asks for twice", async () => {
    // As the needs of two pools that select the same nodes, put together by one waiter.
    const client = memoryClient();
    const outcome = await converge({
      ...readingWhileWaiting(client),
      sources: [],
      evaluate: (view: View): Evaluation<string> =>
        view.sources.machines
          ? { state: "done", message: "listed" }
          : {
              state: "waiting",
              message: "listing",
              needs: [1, 2].map(() => ({ type: "source", source: sources[1] })),
            },
    });
    assert.equal(outcome.requests, 1);
  });

  it("does not wait for a recheck when it only observes", async () => {
    let evaluation: Evaluation<never> | undefined;
    void observe({
      client: memoryClient(),
      waiter: "pool",
      sources: [],
      evaluate: lastingFailure([]),
      timeoutMs: 60_000,
      clock: fakeClock(),
    }).then((e) => (evaluation = e));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(evaluation?.message, "degraded");
  });

  /** Waits for Machine m2 and asks to read the secret, or only observes: requests tell what was sent. */
  function readingWhileWaiting(client: ReturnType<typeof memoryClient>) {
    return {
      client,
      waiter: "w",
      sources,
      evaluate: (view: View): Evaluation<string> =>
        view.sources.machines?.some((m) => m.metadata.name === "m2")
          ? { state: "done", message: "m2 is there" }
          : { state: "waiting", message: "waiting for m2", needs: [read] },
      timeoutMs: 60_000,
      clock: fakeClock(),
    };
  }

  it("watches by name only a read that found nothing", async () => {
    const client = memoryClient();
    client.put(KINDS.secret, SECRET);
    const wait = converge(readingWhileWaiting(client));
    await new Promise((resolve) => setImmediate(resolve));
    client.put(KINDS.machine, machine("m2"));
    const outcome = await wait;
    // Two lists and two watches for the sources, one read: no list or watch of the secret by name.
    assert.equal(outcome.requests, 5);
  });

  it("neither lists nor watches by name a read an observation found missing, with other needs pending", async () => {
    const client = memoryClient();
    const machines = client.holdLists(KINDS.machine);
    const evaluations: string[] = [];
    const observation = observe({
      ...readingWhileWaiting(client),
      // The read is asked for before every source is listed: its answer comes first.
      sources: [sources[0]],
      evaluate: (view: View): Evaluation<string> => {
        evaluations.push(view.fetched.key === null ? "missing" : "reading");
        return {
          state: "waiting",
          message: "waiting",
          needs: [read, { type: "source", source: sources[1] }],
        };
      },
    });
    await new Promise((resolve) => setImmediate(resolve));
    machines.release();
    assert.equal((await observation).state, "waiting");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(evaluations, ["reading", "missing"]);
    // The MachineSets' and the Machines' lists, and the read.
    assert.equal(client.requests, 3);
  });
});

describe("waiting engine: what a read, a patch or a delete settles", () => {
  const plan = { metadata: { name: "plan", namespace: NS } };
  const target = { resource: KINDS.installPlan, name: "plan", namespace: NS };

  /** The wait, which must end within a few turns of the event loop (answers come at once here). */
  async function settled<T>(wait: Promise<T>): Promise<T> {
    let done = false;
    wait.then(
      () => (done = true),
      () => (done = true),
    );
    for (let i = 0; i < 20 && !done; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.ok(done, "the wait still waits for an answer it had");
    return wait;
  }

  /** Waits for `done(view)`, asking for `needs` meanwhile; nothing is watched. */
  const waitFor = (client: ApiClient, needs: (view: View) => Need[], done: (view: View) => boolean) =>
    settled(
      converge({
        client,
        waiter: "w",
        sources: [],
        evaluate: (view) =>
          done(view)
            ? { state: "done", message: "done" }
            : { state: "waiting", message: "waiting", needs: needs(view) },
        timeoutMs: 60_000,
        clock: fakeClock(),
      }),
    );

  it("sends a patch keyed as the read before it: a read and a patch keep their own answers", async () => {
    const client = memoryClient();
    client.put(KINDS.installPlan, plan);
    await waitFor(
      client,
      (view) => [
        view.fetched.plan
          ? { type: "patch", key: "plan", ...target, patch: { spec: { approved: true } } }
          : { type: "get", key: "plan", ...target },
      ],
      (view) => view.patched.plan === true,
    );
    assert.deepEqual(client.patches, [["installplans/plan", { spec: { approved: true } }]]);
  });

  it("marks a delete done, and a patch of an object gone meanwhile when the need allows it", async () => {
    const client = memoryClient();
    client.put(KINDS.machine, machine("m1"));
    const gone = Object.assign(Object.create(client), {
      mergePatch: () =>
        Promise.reject(apiError('machines "m2" not found', { status: 404, reason: "NotFound" })),
    });
    await waitFor(
      gone,
      () => [
        { type: "delete", key: "delete/m1", resource: KINDS.machine, name: "m1", namespace: NS },
        {
          type: "patch",
          key: "mark/m2",
          resource: KINDS.machine,
          name: "m2",
          namespace: NS,
          patch: {},
          unlessGone: true,
        },
      ],
      (view) => view.patched["delete/m1"] === true && view.patched["mark/m2"] === true,
    );
  });

  it("fails a patch the API refuses, even one allowed to find its object gone", async () => {
    const forbidden = Object.assign(Object.create(memoryClient()), {
      mergePatch: () => Promise.reject(apiError("forbidden", { status: 403, reason: "Forbidden" })),
      delete: () => Promise.reject(apiError("forbidden", { status: 403, reason: "Forbidden" })),
    });
    const mark = { type: "patch" as const, key: "mark", ...target, patch: {}, unlessGone: true };
    await assert.rejects(
      waitFor(
        forbidden,
        () => [mark],
        (view) => view.patched.mark === true,
      ),
      (e: unknown) =>
        isWaitError(e) && e.message === "w: cannot patch InstallPlan plan: HTTP 403 Forbidden: forbidden",
    );
    await assert.rejects(
      waitFor(
        forbidden,
        () => [{ ...mark, type: "delete" }],
        (view) => view.patched.mark === true,
      ),
      (e: unknown) =>
        isWaitError(e) && e.message === "w: cannot delete InstallPlan plan: HTTP 403 Forbidden: forbidden",
    );
  });

  it("stops watching a missing object by name once it appeared", async () => {
    const client = memoryClient();
    const byName: AbortSignal[] = [];
    const watching = Object.assign(Object.create(client), {
      watch: (...args: Parameters<ApiClient["watch"]>) => {
        if (args[1].fieldSelector && args[3]) byName.push(args[3]);
        return client.watch(...args);
      },
    });
    const wait = converge({
      client: watching,
      waiter: "w",
      sources,
      evaluate: (view: View): Evaluation<string> =>
        view.sources.machines?.length
          ? { state: "done", message: "m1 is there" }
          : { state: "waiting", message: "waiting", needs: [{ type: "get", key: "plan", ...target }] },
      timeoutMs: 60_000,
      clock: fakeClock(),
    });
    while (byName.length === 0) await new Promise((resolve) => setImmediate(resolve));
    client.put(KINDS.installPlan, plan);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(byName[0].aborted, true, "still watched once read");
    client.put(KINDS.machine, machine("m1"));
    await wait;
  });
});

describe("waiting engine: what a wait reports as it goes and ends", () => {
  /** A wait for `target` Machines, its progress events kept. */
  function countingWait(client: ApiClient, target: number, clock: FakeClock, signal?: AbortSignal) {
    const events: ProgressEvent[] = [];
    const wait = converge({
      client,
      waiter: "w",
      sources: [sources[1]],
      evaluate: counting(target),
      timeoutMs: 60_000,
      onProgress: (e) => events.push(e),
      signal,
      clock,
    });
    return { wait, events };
  }

  const counting = (target: number) => (view: View) => {
    const machines = view.sources.machines?.length ?? 0;
    return {
      state: machines === target ? ("done" as const) : ("waiting" as const),
      message: `${machines} machines`,
    };
  };

  it("reports progress at most once a second by default, measures from its own start, and lets go of the signal", async () => {
    const clock = fakeClock();
    clock.advance(3_600_000);
    const client = memoryClient();
    // A request of someone else's before the wait: not the wait's.
    await client.get(KINDS.machine, "m0", NS);
    const signal = new AbortController().signal;
    const { wait, events } = countingWait(client, 2, clock, signal);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(500);
    client.put(KINDS.machine, machine("m1"));
    clock.advance(499);
    assert.deepEqual(
      events.map((e) => e.message),
      ["0 machines"],
    );
    clock.advance(1);
    assert.deepEqual(
      events.map((e) => e.message),
      ["0 machines", "1 machines"],
    );
    clock.advance(1000);
    client.put(KINDS.machine, machine("m2"));
    const outcome = await wait;
    assert.equal(outcome.elapsedMs, 2000);
    assert.equal(outcome.requests, 2, "its list and its watch");
    assert.equal(getEventListeners(signal, "abort").length, 0, "the caller's signal still holds the wait");
  });

  it("ends a timeout's progress as failed with the timeout's message, and an API refusal as failed", async () => {
    const clock = fakeClock();
    const { wait, events } = countingWait(memoryClient(), 1, clock);
    await new Promise((resolve) => setImmediate(resolve));
    clock.advance(60_000);
    await assert.rejects(wait, (e: unknown) => isWaitError(e) && e.kind === "timeout");
    const last = events[events.length - 1];
    assert.deepEqual([last.state, last.message], ["failed", "timed out after 60s waiting for w: 0 machines"]);
    const forbidden = Object.assign(Object.create(memoryClient()), {
      list: () => Promise.reject(apiError("forbidden", { status: 403, reason: "Forbidden" })),
    });
    await assert.rejects(
      converge({ client: forbidden, waiter: "w", sources, evaluate: counting(1), timeoutMs: 60_000, clock }),
      (e: unknown) => isWaitError(e) && e.kind === "failed",
    );
  });
});
