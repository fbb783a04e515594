import * as assert from "node:assert/strict";
import {
  annotationsOf,
  byName,
  conditionOf,
  field,
  getCondition,
  isObject,
  jsonEqual,
  labelsOf,
  obj,
} from "./objects";

describe("primitives/objects: reading Kubernetes objects as JSON", () => {
  const node = {
    metadata: { name: "n", labels: { a: "1" }, annotations: { b: "2" } },
    status: { conditions: [{ type: "Ready", status: "True" }], addresses: [{ address: "10.0.0.1" }] },
  };

  it("reads nested fields and list items, undefined past a missing or scalar step", () => {
    assert.equal(field(node, "status", "addresses", 0, "address"), "10.0.0.1");
    assert.equal(field(node, "status", "missing", "x"), undefined);
    assert.equal(field(node, "metadata", "name", "length"), undefined);
    assert.equal(field(null, "a"), undefined);
  });

  it("labels, annotations and conditions, empty when absent", () => {
    assert.deepEqual(labelsOf(node), { a: "1" });
    assert.deepEqual(annotationsOf(node), { b: "2" });
    assert.deepEqual(labelsOf({ metadata: { name: "x" } }), {});
    assert.deepEqual(annotationsOf(undefined), {});
    assert.equal(conditionOf(node, "Ready")?.status, "True");
    assert.equal(conditionOf(node, "Degraded"), undefined);
    assert.equal(getCondition("not a list", "Ready"), undefined);
  });

  it("tells JSON objects from arrays and null", () => {
    assert.equal(isObject({}), true);
    assert.equal(isObject([]), false);
    assert.equal(isObject(null), false);
    assert.deepEqual(obj([1]), {});
    assert.deepEqual(obj({ a: 1 }), { a: 1 });
  });

  it("compares JSON structurally, ignoring key order and undefined members", () => {
    assert.equal(jsonEqual({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] }), true);
    assert.equal(jsonEqual({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
    assert.equal(jsonEqual({ a: 1 }, { a: 1, b: 2 }), false);
    assert.equal(jsonEqual([1, 2], [2, 1]), false);
    assert.equal(jsonEqual({ a: [] }, { a: {} }), false);
    assert.equal(jsonEqual(null, {}), false);
  });

  it("orders by name as Go's string comparison does, equal names as equal", () => {
    const named = (...names: string[]) => names.map((name) => ({ metadata: { name } }));
    // Byte order, not locale order: upper case and digits before lower case, "-" before letters.
    const sorted = named("worker-b", "Worker", "worker-10", "worker-2", "worker").sort(byName);
    assert.deepEqual(
      sorted.map((o) => o.metadata.name),
      ["Worker", "worker", "worker-10", "worker-2", "worker-b"],
    );
    const [a, b] = named("same", "same");
    assert.equal(byName(a, b), 0);
    assert.equal(byName(b, a), 0);
    assert.equal(byName(...(named("a", "b") as [typeof a, typeof b])), -1);
    assert.equal(byName(...(named("b", "a") as [typeof a, typeof b])), 1);
  });
});
