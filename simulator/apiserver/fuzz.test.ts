import * as assert from "node:assert/strict";
import * as https from "node:https";
import { KubeObject } from "../store";
import { startTestServer, TestServer } from "./testing";

/** mulberry32: a tiny deterministic PRNG, so a failing run can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SEED = 20260522;
const REQUESTS = 3000;
const CONCURRENCY = 8;

const PREFIXES = [
  "/api/v1",
  "/api/v1/namespaces/fuzz",
  "/api/v1/namespaces/default",
  "/apis/machine.openshift.io/v1beta1",
  "/apis/machine.openshift.io/v1beta1/namespaces/fuzz",
  "/apis/machineconfiguration.openshift.io/v1",
  "/apis/operators.coreos.com/v1alpha1/namespaces/fuzz",
  "/apis/operators.coreos.com/v1/namespaces/fuzz",
  "/apis/imageregistry.operator.openshift.io/v1",
  "/apis",
  "/api",
  "/openapi/v3",
  "/simulator",
  "",
];
const RESOURCES = [
  "namespaces",
  "nodes",
  "configmaps",
  "secrets",
  "events",
  "machinesets",
  "machines",
  "machineconfigpools",
  "machineconfigs",
  "subscriptions",
  "operatorgroups",
  "configs",
  "widgets",
  "",
];
const NAMES = [
  "fuzz",
  "a",
  "b",
  "worker",
  "cluster",
  "fuzz-ns",
  "UPPER",
  "x.y",
  "%2e%2e",
  "..",
  "a%00b",
  "%E0%A4%A",
  "%F0%9F%98%80",
  ".",
  "%2e",
  "%2E%2e",
  "../../sentinel/configmaps/sentinel-cm",
  "%2e%2e/%2e%2e/sentinel",
  "..%2f..%2fsentinel",
  "",
];
/** Namespaces the storm names; every other one, and its objects, must come through unchanged. */
const TARGETED_NAMESPACES = new Set(["fuzz", "default"]);
const SUBRESOURCES = ["", "", "", "status", "scale", "bogus", "status/extra"];
const METHODS = ["GET", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "BREW"];
const CONTENT_TYPES = [
  "application/json",
  "application/yaml",
  "application/merge-patch+json",
  "application/json-patch+json",
  "application/strategic-merge-patch+json",
  "application/apply-patch+yaml",
  "application/vnd.kubernetes.protobuf",
  "text/plain",
  "",
];
const QUERIES = [
  "",
  "?watch=1&timeoutSeconds=0",
  "?labelSelector=a%20in%20(b,c)",
  "?labelSelector=%21%21%21",
  "?fieldSelector=metadata.name%3Dfuzz",
  "?fieldSelector=spec.nodeName%3Dx",
  "?fieldManager=fuzz&force=true",
  "?dryRun=All",
  "?dryRun=Some",
  "?fieldValidation=Strict",
  "?fieldValidation=Loose",
  "?propagationPolicy=Orphan",
  "?resourceVersion=notanumber&watch=true&timeoutSeconds=0",
  "?resourceVersion=1&watch=true&timeoutSeconds=0",
];

describe("API server robustness (seeded fuzz)", function () {
  this.timeout(60_000);
  let t: TestServer;
  const sentinels: KubeObject[] = [];

  before(async () => {
    t = await startTestServer({ namespaces: ["default", "fuzz", "sentinel", "openshift-machine-api"] });
    sentinels.push(
      t.store.create({
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "MachineSet",
        metadata: { name: "sentinel-ms", namespace: "sentinel", labels: { keep: "me" } },
        spec: { replicas: 3 },
      }),
      t.store.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "sentinel-cm", namespace: "sentinel" },
        data: { a: "b" },
      }),
      t.store.create({
        apiVersion: "config.openshift.io/v1",
        kind: "Infrastructure",
        metadata: { name: "cluster" },
        spec: { platformSpec: { type: "AWS" } },
      }),
    );
  });

  after(() => t?.stop());

  function randomJson(random: () => number, depth = 0): unknown {
    const pick = Math.floor(random() * (depth > 3 ? 5 : 8));
    switch (pick) {
      case 0:
        return null;
      case 1:
        return random() < 0.5;
      case 2:
        return Math.floor(random() * 2000) - 1000;
      case 3:
        return ["", "x", "fuzz", "0", "-", "😀", "a".repeat(300)][Math.floor(random() * 7)];
      case 4:
        return random() * 1e6;
      case 5:
        return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(random, depth + 1));
      default: {
        const keys = [
          "metadata",
          "spec",
          "status",
          "name",
          "labels",
          "replicas",
          "apiVersion",
          "kind",
          "op",
          "path",
          "value",
          "$patch",
          "__proto__",
          "😀",
          "conditions",
          "constructor",
        ];
        const out: Record<string, unknown> = {};
        for (let i = Math.floor(random() * 5); i > 0; i--)
          out[keys[Math.floor(random() * keys.length)]] = randomJson(random, depth + 1);
        return out;
      }
    }
  }

  function randomBody(random: () => number): string | Buffer | undefined {
    const kind = Math.floor(random() * 11);
    const object = () => ({
      apiVersion: ["v1", "machine.openshift.io/v1beta1", "operators.coreos.com/v1alpha1", 7][
        Math.floor(random() * 4)
      ],
      kind: ["ConfigMap", "MachineSet", "Subscription", "Node", null][Math.floor(random() * 5)],
      metadata:
        random() < 0.8
          ? { name: NAMES[Math.floor(random() * NAMES.length)], labels: randomJson(random, 2) }
          : randomJson(random, 2),
      spec: randomJson(random, 1),
      data: randomJson(random, 2),
    });
    switch (kind) {
      case 0:
        return undefined;
      case 1:
        return JSON.stringify(randomJson(random));
      case 2:
        return JSON.stringify(object());
      case 3:
        return JSON.stringify(object()).slice(0, Math.floor(random() * 40));
      case 4:
        return Buffer.from(
          Array.from({ length: Math.floor(random() * 200) }, () => Math.floor(random() * 256)),
        );
      case 5:
        return "a: [unclosed\n  - {";
      case 6:
        return JSON.stringify([
          {
            op: ["add", "remove", "replace", "move", "copy", "test", "nope"][Math.floor(random() * 7)],
            path: ["/spec/x", "/metadata/labels/a", "", "/", "/spec/0/-", "bad"][Math.floor(random() * 6)],
            from: "/spec",
            value: randomJson(random, 2),
          },
        ]);
      case 7:
        return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzz\n  labels: {a: 1}\ndata: &a [*a, *a]\n";
      case 8: {
        // Deep nesting, which ran the yaml lexer out of memory: brackets, quoted closers, compact sequences.
        const depth = 1000 + Math.floor(random() * 200_000);
        return [`a: ${"[".repeat(depth)}`, `a: ${'[ "]", '.repeat(depth / 4)}`, `${"- ".repeat(depth)}a`][
          Math.floor(random() * 3)
        ];
      }
      case 9:
        return `${"[".repeat(Math.floor(random() * 2000))}`;
      default:
        return JSON.stringify({ fault: random() < 0.5 ? "status" : "nope" });
    }
  }

  const agent = new https.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const failures: string[] = [];

  function send(
    method: string,
    path: string,
    body: string | Buffer | undefined,
    contentType: string,
    token: string,
  ): Promise<number> {
    return new Promise((resolve) => {
      const headers: Record<string, string | number> = { Authorization: `Bearer ${token}` };
      if (contentType) headers["Content-Type"] = contentType;
      if (body !== undefined) headers["Content-Length"] = Buffer.byteLength(body);
      const req = https.request(
        { host: "127.0.0.1", port: t.server.port, path, method, headers, ca: t.server.caCert, agent },
        (res) => {
          // Every watch here has timeoutSeconds=0, so every response ends; the timer only bounds a bug.
          const timer = setTimeout(() => res.destroy(), 2000);
          res.resume();
          res.on("close", () => {
            clearTimeout(timer);
            resolve(res.statusCode ?? 0);
          });
        },
      );
      req.on("error", (error) => {
        failures.push(`${method} ${path}: ${error.message}`);
        resolve(-1);
      });
      req.end(body);
    });
  }

  it("refuses dot segments and deep YAML as kube-apiserver does, touching nothing", async () => {
    // apimachinery path.IsValidPathSegmentName, applied by the handlers' scopeNamer to names and namespaces.
    for (const [method, path] of [
      ["DELETE", "/api/v1/namespaces/sentinel/configmaps/.."],
      ["DELETE", "/api/v1/namespaces/sentinel/configmaps/%2e%2e"],
      ["PATCH", "/api/v1/namespaces/fuzz/configmaps/%2e%2e/%2E%2E/sentinel/configmaps/sentinel-cm"],
      ["PUT", "/api/v1/namespaces/fuzz/configmaps/..%2f..%2fsentinel"],
    ]) {
      const answer = await t.request(method, path, {
        body: { data: { a: "changed" } },
        contentType: "application/merge-patch+json",
      });
      assert.equal(answer.status, 400, `${method} ${path}: ${answer.text}`);
      assert.match(String(answer.json().message), /^invalid resource name ".*": \[may not/);
    }
    const deep = await t.request("POST", "/api/v1/namespaces/fuzz/configmaps", {
      body: `data: ${"[".repeat(1_500_000)}`,
      contentType: "application/yaml",
    });
    assert.equal(deep.status, 400);
    assert.match(String(deep.json().message), /nests deeper than 1000 levels/);
    for (const sentinel of sentinels) {
      const { apiVersion, kind, metadata } = sentinel;
      assert.deepEqual(
        t.store.get({ apiVersion, kind, namespace: metadata.namespace, name: metadata.name }),
        sentinel,
      );
    }
    assert.ok(t.store.get({ apiVersion: "v1", kind: "Namespace", name: "sentinel" }));
  });

  it(`survives ${REQUESTS} random requests with stored objects intact`, async () => {
    const random = prng(SEED);
    const codes = new Map<number, number>();
    const requests = Array.from({ length: REQUESTS }, () => {
      const prefix = PREFIXES[Math.floor(random() * PREFIXES.length)];
      const parts = [
        RESOURCES[Math.floor(random() * RESOURCES.length)],
        NAMES[Math.floor(random() * NAMES.length)],
        SUBRESOURCES[Math.floor(random() * SUBRESOURCES.length)],
      ]
        .slice(0, 1 + Math.floor(random() * 3))
        .filter(Boolean);
      const path = [prefix, ...parts].join("/") + QUERIES[Math.floor(random() * QUERIES.length)];
      return {
        method: METHODS[Math.floor(random() * METHODS.length)],
        path: path.startsWith("/") ? path : `/${path}`,
        body: randomBody(random),
        contentType: CONTENT_TYPES[Math.floor(random() * CONTENT_TYPES.length)],
        token: random() < 0.05 ? "wrong" : t.server.token,
      };
    });
    const reached: string[] = [];
    const unsubscribe = t.store.subscribe(({ type, object }) => {
      const { namespace, name } = object.metadata;
      const targeted = namespace
        ? TARGETED_NAMESPACES.has(namespace)
        : object.kind === "Namespace"
          ? TARGETED_NAMESPACES.has(name)
          : NAMES.includes(name);
      if (!targeted) reached.push(`${type} ${object.kind} ${namespace ?? ""}/${name}`);
    });
    let next = 0;
    const errorsLogged: unknown[] = [];
    const originalError = console.error;
    console.error = (...args: unknown[]) => errorsLogged.push(args);
    try {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < requests.length) {
            const r = requests[next++];
            const code = await send(r.method, r.path, r.body, r.contentType, r.token);
            codes.set(code, (codes.get(code) ?? 0) + 1);
          }
        }),
      );
    } finally {
      console.error = originalError;
      unsubscribe();
    }
    assert.deepEqual(reached, [], "no write reached an object outside the targeted names");
    agent.destroy();
    assert.deepEqual(failures.slice(0, 5), [], "no connection failed");
    assert.equal(
      codes.get(500),
      undefined,
      `no internal errors: ${JSON.stringify(errorsLogged.slice(0, 3))}`,
    );
    assert.ok(
      (codes.get(200) ?? 0) > 0 && (codes.get(404) ?? 0) > 0 && (codes.get(400) ?? 0) > 0,
      JSON.stringify([...codes]),
    );

    for (const sentinel of sentinels) {
      const { apiVersion, kind, metadata } = sentinel;
      assert.deepEqual(
        t.store.get({ apiVersion, kind, namespace: metadata.namespace, name: metadata.name }),
        sentinel,
      );
    }
    for (const [apiVersion, kind] of [
      ["v1", "ConfigMap"],
      ["v1", "Namespace"],
      ["v1", "Node"],
      ["machine.openshift.io/v1beta1", "MachineSet"],
      ["operators.coreos.com/v1alpha1", "Subscription"],
    ]) {
      for (const object of t.store.list(apiVersion, kind)) {
        assert.equal(typeof object.metadata.name, "string");
        assert.match(object.metadata.resourceVersion!, /^\d+$/);
        assert.ok(Object.values(object.metadata.labels ?? {}).every((v) => typeof v === "string"));
      }
    }
    assert.equal((await t.request("GET", "/version")).status, 200);
    assert.equal(
      (
        await t.request(
          "GET",
          "/apis/machine.openshift.io/v1beta1/namespaces/sentinel/machinesets/sentinel-ms",
        )
      ).status,
      200,
    );
    const created = await t.request("POST", "/api/v1/namespaces/sentinel/configmaps", {
      body: { metadata: { name: "after-fuzz" } },
    });
    assert.equal(created.status, 201);
  });
});
