import * as assert from "node:assert/strict";
import { KubeObject } from "../store";
import { evaluateJsonPath } from "./jsonpath";
import { decodeProtobuf, ProtobufError } from "./protobuf";
import { parseFieldSelector, parseLabelSelector, SelectorError } from "./selectors";
import { humanDuration, nodeRoles } from "./table";

describe("selectors", () => {
  it("evaluates equality and set-based label selectors", () => {
    const labels = { role: "infra", zone: "a" };
    const cases: Array<[string, boolean]> = [
      ["", true],
      ["role=infra", true],
      ["role==infra,zone=a", true],
      ["role!=infra", false],
      ["role in (worker, infra)", true],
      ["role notin (infra)", false],
      ["missing notin (x)", true],
      ["zone", true],
      ["!zone", false],
      ["!missing", true],
      ["node-role.kubernetes.io/infra", false],
    ];
    for (const [selector, expected] of cases)
      assert.equal(parseLabelSelector(selector)(labels), expected, selector);
    for (const bad of ["role in (a", "=x", "a=b=c", "bad key!=x"]) {
      assert.throws(() => parseLabelSelector(bad), SelectorError, bad);
    }
  });

  it("supports the field selectors of each kind", () => {
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", namespace: "n" },
      spec: { nodeName: "node-1" },
    } as KubeObject;
    assert.equal(parseFieldSelector("spec.nodeName=node-1,metadata.namespace=n", "Pod")(pod), true);
    assert.equal(parseFieldSelector("metadata.name!=p", "Pod")(pod), false);
    assert.throws(
      () => parseFieldSelector("spec.nodeName=x", "ConfigMap"),
      /field label not supported: spec.nodeName/,
    );
  });
});

describe("JSONPath for printer columns", () => {
  const pool = {
    metadata: { labels: { "machine.openshift.io/zone": "a" }, annotations: { "a.b/c": "d" } },
    status: {
      conditions: [
        { type: "Updated", status: "True" },
        { type: "Degraded", status: "False" },
      ],
    },
    spec: { names: ["x", "y"] },
  };
  it("evaluates the expressions CRDs use", () => {
    assert.deepEqual(evaluateJsonPath(pool, '.status.conditions[?(@.type=="Updated")].status'), ["True"]);
    assert.deepEqual(evaluateJsonPath(pool, ".metadata.labels['machine\\.openshift\\.io/zone']"), ["a"]);
    assert.deepEqual(evaluateJsonPath(pool, ".metadata.annotations.a\\.b/c"), ["d"]);
    assert.deepEqual(evaluateJsonPath(pool, ".spec.names[0]"), ["x"]);
    assert.deepEqual(evaluateJsonPath(pool, ".spec.names[*]"), ["x", "y"]);
    assert.deepEqual(evaluateJsonPath(pool, ".status.missing"), []);
  });
});

describe("table helpers", () => {
  it("prints ages like kubectl", () => {
    const s = 1000;
    assert.equal(humanDuration(5 * s), "5s");
    assert.equal(humanDuration(200 * s), "3m20s");
    assert.equal(humanDuration(49 * 60 * s), "49m");
    assert.equal(humanDuration(3 * 3600 * s + 31 * 60 * s), "3h31m");
    assert.equal(humanDuration(30 * 3600 * s), "30h");
    assert.equal(humanDuration((3 * 24 + 6) * 3600 * s), "3d6h");
  });

  it("computes node roles sorted and comma-joined", () => {
    assert.equal(
      nodeRoles({ "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/infra": "" }),
      "infra,worker",
    );
    assert.equal(nodeRoles({ "kubernetes.io/role": "master" }), "master");
    assert.equal(nodeRoles({}), "<none>");
  });
});

describe("protobuf decoding", () => {
  const varint = (n: number): Buffer => {
    const out: number[] = [];
    do {
      out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
      n >>>= 7;
    } while (n > 0);
    return Buffer.from(out);
  };
  const field = (num: number, value: Buffer | string): Buffer => {
    const bytes = Buffer.isBuffer(value) ? value : Buffer.from(value);
    return Buffer.concat([varint((num << 3) | 2), varint(bytes.length), bytes]);
  };
  const envelope = (apiVersion: string, kind: string, object: Buffer) =>
    Buffer.concat([
      Buffer.from("k8s\0", "latin1"),
      field(1, Buffer.concat([field(1, apiVersion), field(2, kind)])),
      field(2, object),
    ]);

  it("decodes a Secret as kubectl create secret sends it", () => {
    const meta = Buffer.concat([
      field(1, "cloud-private-key"),
      field(3, "wmco"),
      field(11, Buffer.concat([field(1, "a"), field(2, "b")])),
    ]);
    const secret = Buffer.concat([
      field(1, meta),
      field(2, Buffer.concat([field(1, "private-key.pem"), field(2, "KEY")])),
      field(3, "Opaque"),
    ]);
    assert.deepEqual(decodeProtobuf(envelope("v1", "Secret", secret)), {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "cloud-private-key", namespace: "wmco", labels: { a: "b" } },
      data: { "private-key.pem": Buffer.from("KEY").toString("base64") },
      type: "Opaque",
    });
  });

  it("refuses other kinds and garbage", () => {
    assert.throws(
      () => decodeProtobuf(envelope("apps/v1", "Deployment", Buffer.alloc(0))),
      (e: unknown) => e instanceof ProtobufError && e.unsupported,
    );
    assert.throws(() => decodeProtobuf(Buffer.from("not protobuf")), ProtobufError);
    assert.throws(
      () => decodeProtobuf(Buffer.concat([Buffer.from("k8s\0", "latin1"), Buffer.from([0x0a, 0x7f])])),
      ProtobufError,
    );
  });
});
