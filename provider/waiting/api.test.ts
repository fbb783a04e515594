/**
 * The waiting core's API client against a scripted API server (node:http on the loopback): what each
 * verb asks for, how each answer becomes a result or an ApiError, and how a watch streams. The reflector
 * and the engine decide on these errors (404 = not served or gone, 410 = re-list, 429/5xx/resets =
 * retry, other 4xx = fail), so a wrong status, code or message here is a wrong decision there. The
 * answers follow client-go's REST client (kubernetes/client-go, rest/request.go: `Request.transformResponse`
 * turns a status outside 2xx into an error from the Status body, or from the text when the body is not
 * one; `retryAfterSeconds`; `Request.Watch` fails on any status but 200) and its watch decoder
 * (watch/streamwatcher.go `StreamWatcher.receive`: one JSON event per line, a decode error ends it).
 */
import { strict as assert } from "node:assert";
import { getEventListeners } from "node:events";
import { createServer, IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpsServer } from "node:https";
import { AddressInfo, connect, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient, createApiClient, WatchEvent } from "./api";
import { KINDS } from "./kinds";
import { ApiError, isRetryable } from "./retry";
import { FakeClock, fakeClock } from "../../test/fake-clock";
import { generateServingCertificates } from "../../simulator/apiserver/tls";

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

function send(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify(value));
}

function status(code: number, reason: string, message: string) {
  return { kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message };
}

function kubeconfig(server: string, user: object = { token: "t0k" }, cluster: object = {}): string {
  return JSON.stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server, ...cluster } }],
    users: [{ name: "u", user }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x",
  });
}

async function listen(server: Server, host = "127.0.0.1"): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A user whose token an exec plugin prints, as `oc` or a cloud CLI does (client.authentication.k8s.io). */
const EXEC = {
  exec: {
    apiVersion: "client.authentication.k8s.io/v1",
    command: "sh",
    args: [
      "-c",
      `echo '${JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "from-exec" } })}'`,
    ],
    interactiveMode: "Never",
  },
};

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (e) {
    return e as ApiError;
  }
  assert.fail("expected the request to fail");
}

describe("the API client against a scripted API server", function () {
  const seen: Seen[] = [];
  let handler: Handler;
  let server: Server;
  let base: string;
  let client: ApiClient;
  let reported: string[];
  let clock: FakeClock;

  before(async () => {
    server = createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (c: string) => (body += c));
      req.on("end", () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        handler(req, res, body);
      });
    });
    base = `http://127.0.0.1:${await listen(server)}`;
  });
  after(() => close(server));
  beforeEach(() => {
    seen.length = 0;
    reported = [];
    handler = (_req, res) => send(res, 500, status(500, "InternalError", "unscripted"));
    clock = fakeClock();
    client = createApiClient(kubeconfig(base), {
      onRequest: (method, path) => reported.push(`${method} ${path}`),
      clock,
    });
  });

  describe("list", function () {
    it("asks for the namespace and both selectors, with the user's token, and reads items and resourceVersion", async () => {
      handler = (_req, res) =>
        send(res, 200, { items: [{ metadata: { name: "a" } }], metadata: { resourceVersion: "42" } });
      const answer = await client.list(KINDS.machineSet, {
        namespace: "openshift-machine-api",
        labelSelector: "pool in (infra),tier",
        fieldSelector: "metadata.name=a",
      });
      assert.deepEqual(answer, { items: [{ metadata: { name: "a" } }], resourceVersion: "42" });
      const path =
        "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets" +
        "?labelSelector=pool+in+%28infra%29%2Ctier&fieldSelector=metadata.name%3Da";
      assert.equal(seen[0].url, path);
      assert.equal(seen[0].method, "GET");
      assert.equal(seen[0].headers.authorization, "Bearer t0k");
      assert.equal(seen[0].headers.accept, "application/json");
      assert.deepEqual(reported, [`GET ${path}`]);
      assert.equal(client.requests, 1);
    });

    it("sends no query without selectors; a null item list (apimachinery's nil slice) is empty", async () => {
      handler = (_req, res) => send(res, 200, { items: null });
      const answer = await client.list(KINDS.node, { labelSelector: "", fieldSelector: undefined });
      assert.deepEqual(answer, { items: [], resourceVersion: "" });
      assert.equal(seen[0].url, "/api/v1/nodes");
    });

    it("a 404 means the resource is not served: status 404, NotFound, naming resource and group", async () => {
      // The reflector reads a `servedOrNull` source as null on exactly this (MachineConfigNodes on 4.15).
      handler = (_req, res) =>
        send(res, 404, status(404, "NotFound", "the server could not find the requested resource"));
      const error = await failure(client.list(KINDS.machineConfigNode, {}));
      assert.equal(error.status, 404);
      assert.equal(error.reason, "NotFound");
      assert.equal(
        error.message,
        "the server does not serve machineconfignodes.machineconfiguration.openshift.io",
      );
      const core = await failure(client.list(KINDS.node, {}));
      assert.equal(core.message, "the server does not serve nodes.core");
    });
  });

  describe("get", function () {
    it("returns the object, or undefined when it does not exist (404)", async () => {
      handler = (req, res) =>
        req.url!.endsWith("/present")
          ? send(res, 200, { metadata: { name: "present" } })
          : send(res, 404, status(404, "NotFound", 'secrets "absent" not found'));
      assert.deepEqual(await client.get(KINDS.secret, "present", "ns"), { metadata: { name: "present" } });
      assert.equal(await client.get(KINDS.secret, "absent", "ns"), undefined);
      // A namespace given for a cluster-scoped kind is left out (client-go's Request.NamespaceIfScoped).
      assert.deepEqual(await client.get(KINDS.node, "present", "ns"), { metadata: { name: "present" } });
      assert.deepEqual(
        seen.map((s) => s.url),
        [
          "/api/v1/namespaces/ns/secrets/present",
          "/api/v1/namespaces/ns/secrets/absent",
          "/api/v1/nodes/present",
        ],
      );
    });

    it("fails with the Status body's code, reason and message (403 is final)", async () => {
      handler = (_req, res) => send(res, 403, status(403, "Forbidden", 'nodes "n" is forbidden'));
      const error = await failure(client.get(KINDS.node, "n"));
      assert.equal(error.status, 403);
      assert.equal(error.reason, "Forbidden");
      assert.equal(error.message, 'nodes "n" is forbidden');
      assert.equal(isRetryable(error), false);
    });

    it("a 429 carries its Retry-After in milliseconds, so the retry waits as long as asked", async () => {
      handler = (_req, res) =>
        send(res, 429, status(429, "TooManyRequests", "slow down"), { "Retry-After": "3" });
      const error = await failure(client.get(KINDS.node, "n"));
      assert.equal(error.status, 429);
      assert.equal(error.retryAfterMs, 3000);
      assert.equal(isRetryable(error), true);
      assert.deepEqual(clock.slept, Array<number>(10).fill(3000), "each try again after Retry-After");
    });

    it("a body that is not a Status (a proxy's page) gives its first 200 characters as the message", async () => {
      handler = (_req, res) => {
        res.writeHead(502, { "Content-Type": "text/html" });
        res.end(`<html>${"x".repeat(300)}</html>`);
      };
      const error = await failure(client.get(KINDS.node, "n"));
      assert.equal(error.status, 502);
      assert.equal(error.message, `<html>${"x".repeat(194)}`);
      assert.equal(error.retryAfterMs, undefined);
      assert.equal(isRetryable(error), true);
    });

    it("an empty body gives the status line's text, and without one the status code", async () => {
      handler = (_req, res) => {
        res.writeHead(503);
        res.end();
      };
      assert.equal((await failure(client.get(KINDS.node, "n"))).message, "Service Unavailable");
      // A status line with no reason phrase, as some proxies send.
      handler = (req) => req.socket.end("HTTP/1.1 504 \r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      const error = await failure(client.get(KINDS.node, "n"));
      assert.equal(error.message, "HTTP 504");
      assert.equal(error.status, 504);
    });

    it("a response cut short is a retryable reset, not a parse error", async () => {
      handler = (req, res) => {
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
        res.write('{"metadata":');
        setImmediate(() => req.socket.destroy());
      };
      const error = await failure(client.get(KINDS.node, "n"));
      assert.equal(error.code, "ECONNRESET");
      assert.equal(
        error.message,
        "connection closed before the response ended (GET /api/v1/nodes/n: gave up after 11 tries)",
      );
      assert.equal(isRetryable(error), true);
    });
  });

  describe("mergePatch", function () {
    it("sends a JSON merge patch as the field manager, and fails on 404 (the caller decides if gone is fine)", async () => {
      handler = (_req, res, body) => send(res, 200, { metadata: { name: "m" }, sent: JSON.parse(body) });
      const patch = { metadata: { annotations: { "a/b": "c" } } };
      const patched = await client.mergePatch(KINDS.machine, "m", "ns", patch, undefined, "pulumi-waiter");
      assert.deepEqual(patched, { metadata: { name: "m" }, sent: patch });
      assert.equal(seen[0].method, "PATCH");
      assert.equal(
        seen[0].url,
        "/apis/machine.openshift.io/v1beta1/namespaces/ns/machines/m?fieldManager=pulumi-waiter",
      );
      assert.equal(seen[0].headers["content-type"], "application/merge-patch+json");
      assert.equal(seen[0].headers["content-length"], String(Buffer.byteLength(seen[0].body)));
      assert.deepEqual(JSON.parse(seen[0].body), patch);

      await client.mergePatch(KINDS.pool, "worker", undefined, { spec: { paused: false } });
      assert.equal(seen[1].url, "/apis/machineconfiguration.openshift.io/v1/machineconfigpools/worker");

      handler = (_req, res) => send(res, 404, status(404, "NotFound", 'machines "m" not found'));
      const error = await failure(client.mergePatch(KINDS.machine, "m", "ns", patch));
      assert.equal(error.status, 404);
      assert.equal(error.message, 'machines "m" not found');
    });
  });

  describe("delete", function () {
    it("deletes in the foreground with the preconditions given; true when deleted, false when already gone", async () => {
      handler = (_req, res) => send(res, 200, { metadata: { name: "p" } });
      assert.equal(
        await client.delete(KINDS.installPlan, "p", "ns", undefined, { uid: "u1", resourceVersion: "7" }),
        true,
      );
      assert.equal(seen[0].method, "DELETE");
      assert.equal(seen[0].url, "/apis/operators.coreos.com/v1alpha1/namespaces/ns/installplans/p");
      assert.equal(seen[0].headers["content-type"], "application/json");
      assert.deepEqual(JSON.parse(seen[0].body), {
        kind: "DeleteOptions",
        apiVersion: "v1",
        propagationPolicy: "Foreground",
        preconditions: { uid: "u1", resourceVersion: "7" },
      });
      await client.delete(KINDS.machineConfig, "mc", undefined);
      assert.deepEqual(JSON.parse(seen[1].body), {
        kind: "DeleteOptions",
        apiVersion: "v1",
        propagationPolicy: "Foreground",
      });

      handler = (_req, res) => send(res, 404, status(404, "NotFound", "gone"));
      assert.equal(await client.delete(KINDS.machineConfig, "mc", undefined), false);
    });

    it("a failed precondition (409) is an error, not a deletion", async () => {
      handler = (_req, res) =>
        send(res, 409, status(409, "Conflict", "Precondition failed: UID in precondition: u1"));
      const error = await failure(client.delete(KINDS.secret, "s", "ns", undefined, { uid: "u1" }));
      assert.equal(error.status, 409);
      assert.equal(error.reason, "Conflict");
    });
  });

  describe("watch", function () {
    const events = (list: WatchEvent[]) => list.map((e) => `${e.type} ${e.object.metadata.name}`);

    it("asks from the resourceVersion with bookmarks and selectors, opens, then delivers each line as it comes", async () => {
      const got: WatchEvent[] = [];
      const order: string[] = [];
      handler = (_req, res) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        // One event split over two writes, blank lines, then two in one write; CRLF once.
        res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\r\n{"type":"MODI');
        setImmediate(() => {
          res.write('FIED","object":{"metadata":{"name":"a"}}}\n\n \r\n');
          res.end(
            '{"type":"BOOKMARK","object":{"metadata":{"name":"","resourceVersion":"9"}}}\n' +
              '{"type":"DELETED","object":{"metadata":{"name":"a"}}}\n',
          );
        });
      };
      await client.watch(
        KINDS.machine,
        {
          namespace: "ns",
          resourceVersion: "8",
          labelSelector: "l=v",
          fieldSelector: "metadata.name=a",
          timeoutSeconds: 300,
        },
        {
          onOpen: () => order.push("open"),
          onEvent: (e) => {
            order.push("event");
            got.push(e);
          },
        },
      );
      assert.equal(
        seen[0].url,
        "/apis/machine.openshift.io/v1beta1/namespaces/ns/machines?watch=true&allowWatchBookmarks=true" +
          "&resourceVersion=8&labelSelector=l%3Dv&fieldSelector=metadata.name%3Da&timeoutSeconds=300",
      );
      assert.deepEqual(events(got), ["ADDED a", "MODIFIED a", "BOOKMARK ", "DELETED a"]);
      assert.equal(order[0], "open");
      assert.equal(order.length, 5);
      assert.deepEqual(reported, [`GET ${seen[0].url}`]);
    });

    it("a status other than 200 fails before opening: 410 Expired tells the reflector to list again", async () => {
      handler = (_req, res) => send(res, 410, status(410, "Expired", "too old resource version: 1 (50)"));
      let opened = false;
      const error = await failure(
        client.watch(
          KINDS.node,
          { resourceVersion: "1" },
          { onOpen: () => (opened = true), onEvent: () => {} },
        ),
      );
      assert.equal(error.status, 410);
      assert.equal(error.reason, "Expired");
      assert.equal(error.message, "too old resource version: 1 (50)");
      assert.equal(opened, false);
    });

    it("a refused watch whose body is cut still fails with its status", async () => {
      handler = (req, res) => {
        res.writeHead(503, { "Content-Length": "100" });
        res.write("{");
        setImmediate(() => req.socket.destroy());
      };
      const error = await failure(client.watch(KINDS.node, { resourceVersion: "1" }, { onEvent: () => {} }));
      assert.equal(error.status, 503);
      assert.equal(error.message, "Service Unavailable");
    });

    it("a line that is not JSON ends the watch with an error naming it, after the events before it", async () => {
      const got: WatchEvent[] = [];
      handler = (_req, res) => {
        res.writeHead(200);
        res.write(`{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n<html>${"x".repeat(200)}</html>\n`);
      };
      const error = await failure(
        client.watch(KINDS.node, { resourceVersion: "1" }, { onEvent: (e) => got.push(e) }),
      );
      assert.equal(error.code, "EBADEVENT");
      assert.equal(error.message, `unparsable watch event: <html>${"x".repeat(94)}`);
      assert.equal(error.status, 500);
      assert.equal(error.reason, "InternalError");
      assert.equal(isRetryable(error), true);
      assert.deepEqual(events(got), ["ADDED a"]);
    });

    it("a connection dropped mid-stream is a retryable reset; the server ending the stream is a normal end", async () => {
      handler = (req, res) => {
        res.writeHead(200);
        res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
        setImmediate(() => req.socket.destroy());
      };
      const got: WatchEvent[] = [];
      const error = await failure(
        client.watch(KINDS.node, { resourceVersion: "1" }, { onEvent: (e) => got.push(e) }),
      );
      assert.equal(error.code, "ECONNRESET");
      assert.equal(error.message, "watch connection closed");
      assert.deepEqual(events(got), ["ADDED a"]);
      assert.equal(isRetryable(error), true);
    });

    it("cancelling ends the watch quietly and closes the connection", async () => {
      const stop = new AbortController();
      let closed!: () => void;
      const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
      handler = (req, res) => {
        res.writeHead(200);
        res.write('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
        req.socket.on("close", () => closed());
      };
      await client.watch(KINDS.node, { resourceVersion: "1" }, { onEvent: () => stop.abort() }, stop.signal);
      await serverSawClose;
    });

    it("asks TCP to probe a quiet watch's connection (keepalive), so a vanished server does not hang it", async () => {
      const probed: Array<[boolean | undefined, number | undefined]> = [];
      const original = Socket.prototype.setKeepAlive;
      Socket.prototype.setKeepAlive = function (enable?: boolean, delay?: number) {
        probed.push([enable, delay]);
        return original.call(this, enable, delay);
      };
      try {
        handler = (_req, res) => {
          res.writeHead(200);
          res.end();
        };
        await client.watch(KINDS.node, { resourceVersion: "1" }, { onEvent: () => {} });
      } finally {
        Socket.prototype.setKeepAlive = original;
      }
      // Node's agent asks for its own probes too; the watch's are the 15 s ones.
      assert.ok(probed.some(([enable, delay]) => enable === true && delay === 15_000));
    });

    it("is not bound by the request timeout: a quiet watch stays open", async () => {
      const quiet = createApiClient(kubeconfig(base), { requestTimeoutMs: 20 });
      const got: WatchEvent[] = [];
      handler = (_req, res) => {
        res.writeHead(200);
        setTimeout(() => res.end('{"type":"ADDED","object":{"metadata":{"name":"late"}}}\n'), 100);
      };
      await quiet.watch(KINDS.node, { resourceVersion: "1" }, { onEvent: (e) => got.push(e) });
      assert.deepEqual(events(got), ["ADDED late"]);
    });
  });

  /**
   * Each request is tried again as client-go's rest client tries it (rest/with_retry.go, IsNextRetry
   * and checkWait; rest/request.go, the IsRetryableErrorFunc of `request` and of `Watch`).
   */
  describe("tried again as client-go's rest client does", function () {
    const throttled: Handler = (_req, res) =>
      send(res, 429, status(429, "TooManyRequests", "slow down"), { "Retry-After": "1" });

    /** Fails the first `count` requests with `fail`, then answers as `then` does. */
    function failing(count: number, fail: Handler, then: Handler): Handler {
      let left = count;
      return (req, res, body) => (left-- > 0 ? fail(req, res, body) : then(req, res, body));
    }

    it("a 429 or 5xx with Retry-After, for every verb, after what the server asked", async () => {
      const ok: Handler = (_req, res) => send(res, 200, { metadata: { name: "n" } });
      const unavailable: Handler = (_req, res) =>
        send(res, 503, status(503, "ServiceUnavailable", "busy"), { "Retry-After": "2" });
      handler = failing(2, throttled, ok);
      assert.equal((await client.get(KINDS.node, "n"))?.metadata.name, "n");
      handler = failing(1, unavailable, ok);
      await client.mergePatch(KINDS.node, "n", undefined, { metadata: { labels: { a: "b" } } });
      handler = failing(1, throttled, ok);
      assert.equal(await client.delete(KINDS.node, "n", undefined), true);
      assert.deepEqual(clock.slept, [1000, 1000, 2000, 1000]);
      assert.deepEqual(
        seen.map((s) => s.method),
        ["GET", "GET", "GET", "PATCH", "PATCH", "DELETE", "DELETE"],
        "a write is sent again whole, body included",
      );
      assert.equal(seen[4].body, seen[3].body);
      assert.equal(client.requests, 7, "every try counts");
    });

    it("at most 10 times, then fails naming the request, its status and the tries", async () => {
      handler = throttled;
      const error = await failure(client.list(KINDS.node, { labelSelector: "a=b" }));
      assert.equal(seen.length, 11);
      assert.equal(error.status, 429);
      assert.equal(error.reason, "TooManyRequests");
      assert.equal(error.tries, 11);
      assert.equal(
        error.message,
        "slow down (GET /api/v1/nodes?labelSelector=a%3Db: gave up after 11 tries)",
      );
      assert.equal(isRetryable(error), true, "a wait with time left may still try again");
    });

    it("not an answer without Retry-After, nor one the server meant (4xx), nor a 1st try that succeeds", async () => {
      for (const code of [500, 503, 429]) {
        seen.length = 0;
        handler = (_req, res) => send(res, code, status(code, "X", "no hint"));
        const error = await failure(client.get(KINDS.node, "n"));
        assert.equal(seen.length, 1, `${code} without Retry-After`);
        assert.equal(error.message, "no hint");
        assert.equal(error.tries, undefined);
      }
      seen.length = 0;
      handler = (_req, res) => send(res, 409, status(409, "Conflict", "no"), { "Retry-After": "1" });
      await failure(client.mergePatch(KINDS.node, "n", undefined, {}));
      assert.equal(seen.length, 1, "a 409 with Retry-After");
      assert.deepEqual(clock.slept, []);
    });

    it("a GET whose connection was reset after one second, a write never (the server may have applied it)", async () => {
      const reset: Handler = (req) => req.socket.destroy();
      handler = failing(1, reset, (_req, res) => send(res, 200, { items: [], metadata: {} }));
      await client.list(KINDS.node, {});
      assert.deepEqual(clock.slept, [1000]);
      seen.length = 0;
      handler = failing(1, reset, (_req, res) => send(res, 200, {}));
      const error = await failure(client.mergePatch(KINDS.node, "n", undefined, {}));
      assert.equal(seen.length, 1);
      assert.equal(error.tries, undefined);
      assert.match(error.message, /socket hang up|ECONNRESET|closed/);
    });

    it("the opening of a watch, until the server accepts it", async () => {
      handler = failing(2, throttled, (_req, res) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
      });
      const got: WatchEvent[] = [];
      let opened = 0;
      await client.watch(
        KINDS.node,
        { resourceVersion: "1" },
        { onOpen: () => opened++, onEvent: (e) => got.push(e) },
      );
      assert.equal(opened, 1);
      assert.equal(got.length, 1);
      assert.deepEqual(clock.slept, [1000, 1000]);
    });

    it("nothing more once the caller cancelled during the pause: the request ends as aborted", async () => {
      const stop = new AbortController();
      const slept: number[] = [];
      const cancelling = createApiClient(kubeconfig(base), {
        clock: { ...clock, sleep: async (ms) => (slept.push(ms), stop.abort()) },
      });
      handler = throttled;
      const error = await failure(cancelling.get(KINDS.node, "n", undefined, stop.signal));
      assert.deepEqual(slept, [1000]);
      assert.equal(seen.length, 1);
      assert.equal(error.code, "ABORTED");
      assert.equal(error.message, "aborted");
    });
  });

  describe("every request", function () {
    it("sends nothing once cancelled, and a cancel while waiting for the answer fails as ABORTED", async () => {
      const stop = new AbortController();
      stop.abort();
      const before = await failure(client.get(KINDS.node, "n", undefined, stop.signal));
      assert.equal(before.code, "ABORTED");
      assert.equal(before.message, "aborted");
      assert.equal(client.requests, 0);
      assert.deepEqual(reported, []);

      const later = new AbortController();
      handler = () => later.abort();
      const during = await failure(client.list(KINDS.node, {}, later.signal));
      assert.equal(during.code, "ABORTED");
      assert.equal(during.message, "aborted");
      assert.equal(client.requests, 1);
    });

    it("leaves no listener on the wait's signal once a request is answered (a wait sends thousands)", async () => {
      const wait = new AbortController();
      handler = (_req, res) => send(res, 200, { metadata: { name: "n" } });
      for (let i = 0; i < 3; i++) await client.get(KINDS.node, "n", undefined, wait.signal);
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(getEventListeners(wait.signal, "abort").length, 0);
    });

    it("takes no redirect for an answer: a 3xx (a login page in front of the API) fails with its status", async () => {
      for (const code of [300, 302]) {
        handler = (_req, res) => {
          res.writeHead(code, { Location: "/login" });
          res.end("<html>login</html>");
        };
        const error = await failure(client.get(KINDS.node, "n"));
        assert.equal(error.status, code);
        assert.equal(error.message, "<html>login</html>");
      }
    });

    it("gives up on an answer that does not come within requestTimeoutMs, as a retryable timeout", async () => {
      const impatient = createApiClient(kubeconfig(base), { requestTimeoutMs: 50 });
      handler = () => {};
      const error = await failure(impatient.get(KINDS.node, "n"));
      assert.equal(error.code, "ETIMEDOUT");
      assert.equal(error.message, "no answer within 50 ms");
      assert.equal(isRetryable(error), true);
    });

    it("keeps the server URL's path (an API behind a path prefix), with or without a trailing slash", async () => {
      handler = (_req, res) => send(res, 200, { metadata: { name: "n" } });
      await createApiClient(kubeconfig(`${base}/k8s/clusters/c-1/`)).get(KINDS.node, "n");
      await createApiClient(kubeconfig(`${base}/k8s/clusters/c-1`)).get(KINDS.node, "n");
      assert.deepEqual(
        seen.map((s) => s.url),
        ["/k8s/clusters/c-1/api/v1/nodes/n", "/k8s/clusters/c-1/api/v1/nodes/n"],
      );
    });

    it("reaches a server named by an IPv6 address", async () => {
      const v6 = createServer((_req, res) => send(res, 200, { metadata: { name: "v6" } }));
      const port = await listen(v6, "::1");
      try {
        assert.deepEqual(await createApiClient(kubeconfig(`http://[::1]:${port}`)).get(KINDS.node, "v6"), {
          metadata: { name: "v6" },
        });
      } finally {
        await close(v6);
      }
    });
  });

  it("reads a token file named as client-go names it (tokenFile), which @kubernetes/client-node does not know", async () => {
    const dir = mkdtempSync(join(tmpdir(), "api-test-"));
    try {
      writeFileSync(join(dir, "token"), "from-file\n");
      handler = (_req, res) => send(res, 200, { metadata: { name: "n" } });
      await createApiClient(kubeconfig(base, { tokenFile: join(dir, "token") })).get(KINDS.node, "n");
      assert.equal(seen[0].headers.authorization, "Bearer from-file");
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("sends a request refused with 401 once more when its token file was rotated since it was read, and only then", async () => {
    const dir = mkdtempSync(join(tmpdir(), "api-test-"));
    try {
      const tokenFile = join(dir, "token");
      writeFileSync(tokenFile, "old");
      let valid = "old";
      handler = (req, res) =>
        req.headers.authorization === `Bearer ${valid}`
          ? send(res, 200, { metadata: { name: "n" } })
          : send(res, 401, status(401, "Unauthorized", "Unauthorized"));
      const rotating = createApiClient(kubeconfig(base, { tokenFile }), { clock });
      await rotating.get(KINDS.node, "n");
      // The kubelet wrote a new token and the old one is refused before the client's next read.
      writeFileSync(tokenFile, "new");
      valid = "new";
      assert.equal((await rotating.get(KINDS.node, "n"))?.metadata.name, "n");
      assert.deepEqual(
        seen.map((s) => s.headers.authorization),
        ["Bearer old", "Bearer old", "Bearer new"],
      );
      assert.equal(rotating.requests, 3);
      // A token refused as it is in the file is not sent again: the 401 is the answer.
      valid = "other";
      const refused = await failure(rotating.get(KINDS.node, "n"));
      assert.equal(refused.status, 401);
      assert.equal(seen.length, 4);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  describe("credentials computed by @kubernetes/client-node", function () {
    it("an exec plugin's token over plain http (client-node refuses http unless TLS verification is off)", async () => {
      handler = (_req, res) => send(res, 200, { metadata: { name: "n" } });
      await createApiClient(kubeconfig(base, EXEC)).get(KINDS.node, "n");
      assert.equal(seen[0].headers.authorization, "Bearer from-exec");
    });

    it("an exec plugin over https verifies the server's certificate against the kubeconfig's CA", async () => {
      const certificates = generateServingCertificates();
      const tls = createHttpsServer({ cert: certificates.cert, key: certificates.key }, (req, res) =>
        send(res, 200, { metadata: { name: "tls" }, authorization: req.headers.authorization }),
      );
      const port = await listen(tls);
      const server = `https://127.0.0.1:${port}`;
      try {
        const trusted = kubeconfig(server, EXEC, {
          "certificate-authority-data": Buffer.from(certificates.caCert).toString("base64"),
        });
        assert.deepEqual(await createApiClient(trusted).get(KINDS.node, "tls"), {
          metadata: { name: "tls" },
          authorization: "Bearer from-exec",
        });
        const untrusted = await failure(createApiClient(kubeconfig(server, EXEC)).get(KINDS.node, "tls"));
        assert.match(untrusted.message, /self[- ]signed|unable to verify|issuer/i);
      } finally {
        await close(tls);
      }
    });

    it("a plain-http server behind the kubeconfig's proxy-url is asked through the proxy", async () => {
      // client-node's createAgent gives an http server behind proxy-url an HttpProxyAgent (hpagent),
      // which tunnels with CONNECT; the scripted server is that proxy too and tunnels to itself.
      const tunnels: string[] = [];
      const port = (server.address() as AddressInfo).port;
      const onConnect = (req: IncomingMessage, socket: Socket) => {
        tunnels.push(req.url!);
        const upstream = connect(port, "127.0.0.1", () => {
          socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
          upstream.pipe(socket).pipe(upstream);
        });
      };
      server.on("connect", onConnect);
      try {
        handler = (_req, res) => send(res, 200, { metadata: { name: "n" } });
        const config = kubeconfig("http://api.cluster.invalid:6443", { token: "t" }, { "proxy-url": base });
        assert.deepEqual(await createApiClient(config).get(KINDS.node, "n"), { metadata: { name: "n" } });
        assert.deepEqual(tunnels, ["api.cluster.invalid:6443"]);
        assert.equal(seen[0].url, "/api/v1/nodes/n");
        assert.equal(seen[0].headers.authorization, "Bearer t");
      } finally {
        server.off("connect", onConnect);
      }
    });
  });
});
