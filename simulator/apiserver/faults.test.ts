import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as https from "node:https";
import { CoreV1Api, KubeConfig, Watch } from "@kubernetes/client-node";
import { FaultTarget, ServerFaults } from "./faults";
import { startTestServer, TestServer } from "./testing";

describe("API server fault injection", function () {
  let t: TestServer;
  let kc: KubeConfig;

  before(async () => {
    t = await startTestServer();
    kc = new KubeConfig();
    kc.loadFromString(t.server.kubeconfig);
  });

  afterEach(() => t.server.faults.reset());
  after(() => t?.stop());

  /** Opens a watch and resolves once it is established; `ended` settles when the stream closes. */
  async function openWatch(query: Record<string, string> = {}) {
    const events: Array<{ type: string; object: { code?: number } }> = [];
    let resolveEnded: (error: unknown) => void = () => undefined;
    const ended = new Promise<unknown>((resolve) => (resolveEnded = resolve));
    const controller = await new Watch(kc).watch(
      "/api/v1/namespaces/default/configmaps",
      query,
      (type, object) => events.push({ type, object }),
      (error) => resolveEnded(error),
    );
    return { events, ended, controller };
  }

  it("drops every open watch", async () => {
    const first = await openWatch();
    const second = await openWatch();
    assert.equal(t.server.faults.dropWatches(), 2);
    await Promise.all([first.ended, second.ended]);
    assert.equal(t.server.faults.dropWatches(), 0);
  });

  it("expires the next watch resume with 410, then resumes normally", async () => {
    const rv = t.store.resourceVersion;
    t.server.faults.expireNextWatchResume();
    const expired = await openWatch({ resourceVersion: rv });
    await expired.ended;
    assert.equal(expired.events[0]?.type, "ERROR");
    assert.equal(expired.events[0].object.code, 410);
    const resumed = await openWatch({ resourceVersion: rv });
    t.store.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "after-expiry", namespace: "default" },
    });
    for (let i = 0; i < 200 && resumed.events.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    resumed.controller.abort();
    assert.deepEqual(
      resumed.events.map((e) => e.type),
      ["ADDED"],
    );
  });

  it("resets the connection of every open watch", async () => {
    const first = await openWatch();
    assert.equal(t.server.faults.resetWatches(), 1);
    assert.ok((await first.ended) instanceof Error, "the client sees the connection fail, not end");
    assert.equal(t.server.faults.resetWatches(), 0);
  });

  it("answers every resuming watch with 410 during a 410 storm, until reset", async () => {
    const rv = t.store.resourceVersion;
    t.server.faults.startGoneStorm();
    for (let i = 0; i < 3; i++) {
      const expired = await openWatch({ resourceVersion: rv });
      await expired.ended;
      assert.deepEqual(
        expired.events.map((e) => [e.type, e.object.code]),
        [["ERROR", 410]],
      );
    }
    assert.equal(t.server.faults.status().goneStorm, true);
    t.server.faults.reset();
    const resumed = await openWatch({ resourceVersion: rv });
    resumed.controller.abort();
    assert.equal(t.server.faults.status().goneStorm, false);
    assert.ok(!resumed.events.some((e) => e.type === "ERROR"));
  });

  it("leaves the next watches open and silent: no event, no bookmark, as behind a half-open connection", async () => {
    t.server.faults.silenceNextWatches(1);
    const silent = await openWatch({ allowWatchBookmarks: "true" });
    assert.equal(t.server.faults.status().pendingSilentWatches, 0);
    const heard = await openWatch({ allowWatchBookmarks: "true" });
    t.store.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "unheard", namespace: "default" },
    });
    // Bookmarks come every second: the ordinary watch's bookmark after the change proves time passed.
    for (let i = 0; i < 300 && !heard.events.some((e) => e.type === "BOOKMARK"); i++)
      await new Promise((r) => setTimeout(r, 10));
    const types = heard.events.map((e) => e.type);
    assert.ok(types.includes("ADDED") && types.includes("BOOKMARK"), types.join(" "));
    assert.deepEqual(silent.events, []);
    assert.equal(t.server.faults.dropWatches(), 2, "the silent watch is still open");
    await silent.ended;
  });

  for (const code of [429, 500, 503] as const) {
    it(`answers the next requests with ${code}`, async () => {
      t.server.faults.failNextRequests(2, code, 3);
      for (let i = 0; i < 2; i++) {
        const res = await t.request("GET", "/api/v1/namespaces");
        assert.equal(res.status, code);
        assert.equal(res.json().kind, "Status");
        assert.equal(res.headers["retry-after"], "3");
      }
      assert.equal((await t.request("GET", "/api/v1/namespaces")).status, 200);
    });
  }

  it("answers every request of a storm with its error, for as long as the storm lasts, whatever their number", () => {
    let now = 1_000;
    const faults = new ServerFaults({} as FaultTarget, () => now);
    faults.failRequestsFor(2, 429, 1);
    for (let i = 0; i < 50; i++) assert.deepEqual(faults.takeError(), { code: 429, retryAfterSeconds: 1 });
    assert.equal(faults.status().errorStormMs, 2000);
    now += 1999;
    assert.deepEqual(faults.takeError(), { code: 429, retryAfterSeconds: 1 });
    now += 1;
    assert.equal(faults.takeError(), undefined, "over when its time is");
    assert.equal(faults.status().errorStormMs, 0);
    faults.failRequestsFor(5, 503, 2);
    faults.reset();
    assert.equal(faults.takeError(), undefined, "a reset ends it");
  });

  it("starts a storm over HTTP for a number of seconds, which a reset ends", async () => {
    const set = await t.request("POST", "/simulator/faults", {
      body: { fault: "errors", seconds: 60, code: 503, retryAfterSeconds: 2 },
    });
    assert.equal(set.status, 200);
    assert.ok((set.json().errorStormMs as number) > 59_000);
    for (let i = 0; i < 3; i++) {
      const res = await t.request("GET", "/api/v1/namespaces");
      assert.equal(res.status, 503);
      assert.equal(res.headers["retry-after"], "2");
    }
    await t.request("POST", "/simulator/faults", { body: { fault: "reset" } });
    assert.equal((await t.request("GET", "/api/v1/namespaces")).status, 200);
  });

  it("resets the connections of the next requests before answering them", async () => {
    t.server.faults.resetNextRequests(1);
    const error = await t.request("GET", "/api/v1/namespaces").then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e.code,
    );
    assert.equal(error, "ECONNRESET");
    assert.equal(t.server.faults.status().pendingResets, 0);
    assert.equal((await t.request("GET", "/api/v1/namespaces")).status, 200);
  });

  it("adds latency to every response", async () => {
    t.server.faults.setLatency(150);
    const started = Date.now();
    assert.equal((await t.request("GET", "/version")).status, 200);
    assert.ok(Date.now() - started >= 150);
  });

  it("refuses connections for a while, then serves again on the same port", async () => {
    const port = t.server.port;
    const refusing = t.server.faults.refuseConnections(0.3);
    await new Promise((resolve) => setImmediate(resolve));
    const error = await t.request("GET", "/version").then(
      () => undefined,
      (e: NodeJS.ErrnoException) => e.code,
    );
    assert.ok(error === "ECONNREFUSED" || error === "ECONNRESET", `got ${error}`);
    await refusing;
    assert.equal(t.server.port, port);
    assert.equal((await t.request("GET", "/version")).status, 200);
  });

  it("takes faults over HTTP, authenticated, and routes cluster faults to their handlers", async () => {
    const seen: Array<Record<string, unknown>> = [];
    t.server.faults.register("degradeNode", (params) => {
      seen.push(params);
      return "degraded";
    });
    assert.equal(
      (await t.request("POST", "/simulator/faults", { body: { fault: "errors" }, token: null })).status,
      401,
    );
    const set = await t.request("POST", "/simulator/faults", {
      body: { fault: "errors", count: 1, code: 500 },
    });
    assert.equal(set.status, 200);
    assert.equal((await t.request("GET", "/version")).status, 500);
    assert.equal((await t.request("GET", "/version")).status, 200);

    const cluster = await t.request("POST", "/simulator/faults", {
      body: { fault: "degradeNode", node: "n1", reason: "disk" },
    });
    assert.deepEqual(cluster.json(), { result: "degraded" });
    assert.deepEqual(seen, [{ node: "n1", reason: "disk" }]);

    const unknown = await t.request("POST", "/simulator/faults", { body: { fault: "meteor" } });
    assert.equal(unknown.status, 400);
    assert.match(unknown.json().message as string, /unknown fault "meteor"/);
    const listed = (await t.request("GET", "/simulator/faults")).json() as { faults: string[] };
    assert.ok(listed.faults.includes("degradeNode") && listed.faults.includes("refuseConnections"));

    const refuse = await t.request("POST", "/simulator/faults", {
      body: { fault: "refuseConnections", seconds: 0.2 },
    });
    assert.equal(refuse.status, 200);
    await waitUntilServing(t.server.port, t.server.caCert);
  });
});

describe("API server token rotation", () => {
  let t: TestServer;
  before(async () => (t = await startTestServer()));
  after(() => t?.stop());

  it("rejects the old token with 401 as OpenShift does, accepts the new one and writes it to the kubeconfig", async () => {
    const old = t.server.token;
    const answer = await t.request("POST", "/simulator/faults", { body: { fault: "rotateToken" } });
    assert.equal(answer.status, 200);
    const { token, kubeconfig } = answer.json() as { token: string; kubeconfig: string };
    assert.notEqual(token, old);
    assert.equal(t.server.token, token);

    const rejected = await t.request("GET", "/api/v1/namespaces", { token: old });
    assert.equal(rejected.status, 401);
    assert.deepEqual(
      { kind: rejected.json().kind, reason: rejected.json().reason, code: rejected.json().code },
      { kind: "Status", reason: "Unauthorized", code: 401 },
    );
    assert.equal((await t.request("GET", "/api/v1/namespaces", { token })).status, 200);

    // The returned kubeconfig and the file both carry the new token, and a real client gets through.
    assert.equal(fs.readFileSync(t.server.kubeconfigPath, "utf8"), kubeconfig);
    const kc = new KubeConfig();
    kc.loadFromString(kubeconfig);
    assert.equal(kc.getCurrentUser()?.token, token);
    const core = kc.makeApiClient(CoreV1Api);
    const namespaces = await core.listNamespace();
    assert.ok(namespaces.items.some((n) => n.metadata?.name === "default"));

    assert.equal(t.server.faults.rotateToken().token, t.server.token);
    assert.notEqual(t.server.token, token);
  });
});

/** Polls until the server accepts TLS connections again. */
async function waitUntilServing(port: number, ca: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const req = https.get({ host: "127.0.0.1", port, path: "/healthz", ca, agent: false }, (res) => {
        res.resume();
        resolve(true);
      });
      req.on("error", () => resolve(false));
    });
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("server did not come back");
}
