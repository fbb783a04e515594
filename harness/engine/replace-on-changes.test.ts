/**
 * How a diff becomes a replacement, case by case as pulumi/pulumi decides it: property paths
 * (sdk/go/common/resource/properties_path.go ParsePropertyPath, String, Contains), the engine's diff
 * (pkg/resource/deploy/step_generator.go diffResource), `replaceOnChanges` (applyReplaceOnChanges, its
 * cases in step_generator_test.go TestApplyReplaceOnChangesEmptyDetailedDiff and the lifecycle test
 * TestReplaceOnChanges), and the steps plan.ts gives Kubernetes and dynamic resources with them.
 */
import * as assert from "node:assert/strict";
import { kubeType } from "../kube";
import { secret } from "../secrets";
import { dynamicPlan, kubePlan } from "./plan";
import {
  applyReplaceOnChanges,
  deletesBeforeReplace,
  engineDiff,
  formatPropertyPath,
  isReplacement,
  parsePropertyPath,
  pathContains,
  ProviderDiff,
} from "./replace-on-changes";

const some = (changedKeys: string[], detailed?: Record<string, boolean>): ProviderDiff => ({
  changes: "some",
  replaceKeys: [],
  changedKeys,
  ...(detailed ? { detailedDiff: detailed } : {}),
  deleteBeforeReplace: false,
});

describe("property paths as the engine reads them (properties_path.go)", () => {
  it("parses names, indices, quoted keys and wildcards, and refuses what ParsePropertyPath refuses", () => {
    assert.deepEqual(parsePropertyPath("root"), ["root"]);
    assert.deepEqual(parsePropertyPath("root.nested.array[0].double[1]"), [
      "root",
      "nested",
      "array",
      0,
      "double",
      1,
    ]);
    assert.deepEqual(parsePropertyPath('root["key with a ."]'), ["root", "key with a ."]);
    assert.deepEqual(parsePropertyPath('["root key with \\"escaped\\" quotes"].nested'), [
      'root key with "escaped" quotes',
      "nested",
    ]);
    assert.deepEqual(parsePropertyPath("root.array[*].field"), ["root", "array", "*", "field"]);
    assert.deepEqual(parsePropertyPath('root.array["*"].field'), ["root", "array", "*", "field"]);
    // Tolerated from old providers: a '.' before a '['; any character up to '.' or '[' makes a name.
    assert.deepEqual(parsePropertyPath("a.[1]"), ["a", 1]);
    assert.deepEqual(parsePropertyPath("foo-bar"), ["foo-bar"]);
    assert.deepEqual(parsePropertyPath(""), []);
    for (const [bad, reason] of [
      [".a", /start with a name or index/],
      ["a.", /end with a name or index/],
      ['a["b', /missing closing quote/],
      ['a["b"', /missing closing bracket/],
      ["a[0", /missing closing bracket/],
      ["a[x]", /invalid array index/],
    ] as const)
      assert.throws(() => parsePropertyPath(bad), reason, bad);
  });

  it("writes a path back with keys of other characters than letters, digits and _ quoted", () => {
    assert.equal(formatPropertyPath(["spec", "containers", 0, "image"]), "spec.containers[0].image");
    assert.equal(
      formatPropertyPath(["metadata", "labels", "node-role.kubernetes.io/infra"]),
      'metadata.labels["node-role.kubernetes.io/infra"]',
    );
    assert.equal(formatPropertyPath(['say "hi"']), '["say \\"hi\\""]');
    const path = ["metadata", "annotations", "a.b/c", 2];
    assert.deepEqual(parsePropertyPath(formatPropertyPath(path)), path);
  });

  it("covers a path by prefix, `*` matching any key or index at its depth (Contains)", () => {
    const covers = (p: string, other: string) => pathContains(parsePropertyPath(p), parsePropertyPath(other));
    assert.ok(covers('foo["bar"][1]', "foo.bar[1].baz"));
    assert.ok(covers("foo.*.baz", "foo.bar.baz.bam"));
    assert.ok(covers("foo.*.baz", "foo[3].baz"));
    assert.ok(covers("*", "anything.at[0].all"));
    assert.ok(covers("", "a"), "the empty path covers every path");
    assert.ok(!covers("foo.bar", "foo"), "a longer path does not cover its parent");
    assert.ok(!covers("foo[1]", 'foo["1"]'), "an index is not a key");
    assert.ok(!covers("foo.bar", "foo.barn"));
  });
});

describe("replaceOnChanges (step_generator.go applyReplaceOnChanges)", () => {
  it("leaves a diff without changes alone, and one whose changes nothing covers", () => {
    const none: ProviderDiff = { ...some([]), changes: "none" };
    assert.deepEqual(applyReplaceOnChanges(none, ["*"], false), none);
    assert.deepEqual(applyReplaceOnChanges(some(["a"]), [], false), some(["a"]));
    assert.ok(!isReplacement(applyReplaceOnChanges(some(["a"]), ["b"], false)));
  });

  it("replaces for a changed key it covers, by name or `*`", () => {
    assert.deepEqual(applyReplaceOnChanges(some(["a"]), ["a"], false).replaceKeys, ["a"]);
    assert.deepEqual(applyReplaceOnChanges(some(["a", "b"]), ["*"], false).replaceKeys, ["a", "b"]);
    assert.deepEqual(
      applyReplaceOnChanges(some(["a"]), ["a"], true).replaceKeys,
      ["a"],
      "init errors add nothing without `*`",
    );
  });

  it("replaces for a nested path only through the detailed diff: a changed key is not covered by a path under it", () => {
    assert.ok(!isReplacement(applyReplaceOnChanges(some(["b"]), ["b.c"], false)));
    const detailed = applyReplaceOnChanges(some(["b"], { "b.c": false, "b.d": false }), ["b.c"], false);
    assert.deepEqual(detailed.detailedDiff, { "b.c": true, "b.d": false });
    assert.deepEqual(detailed.replaceKeys, []);
    assert.ok(isReplacement(detailed));
    const wildcard = applyReplaceOnChanges(
      some(["list"], { "list[2].name": false }),
      ["list[*].name"],
      false,
    );
    assert.ok(isReplacement(wildcard));
  });

  it("replaces a resource that failed to initialize when `*` covers it, changed or not", () => {
    const failed = applyReplaceOnChanges({ ...some([]), changes: "none" }, ["*"], true);
    assert.equal(failed.changes, "some");
    assert.deepEqual(failed.replaceKeys, ["#initerror"]);
    const nothingCovers = applyReplaceOnChanges({ ...some([]), changes: "none" }, ["a"], true);
    assert.equal(nothingCovers.changes, "none");
  });

  it("fails on a path the engine cannot parse", () => {
    assert.throws(() => applyReplaceOnChanges(some(["a"]), ['a["b'], false), /missing closing quote/);
  });

  it("deletes before replacing as the program says, true or false, else as the provider asks", () => {
    assert.equal(deletesBeforeReplace(undefined, true), true);
    assert.equal(deletesBeforeReplace(undefined, false), false);
    assert.equal(deletesBeforeReplace(false, true), false);
    assert.equal(deletesBeforeReplace(true, false), true);
  });
});

describe("the engine's diff of inputs (diffResource, PropertyMap.Diff)", () => {
  it("details changes into objects and array elements, an added or removed value whole, secrets revealed", () => {
    const diff = engineDiff(
      { a: 1, b: { c: "foo", d: [1, 2, 3] }, gone: "x", same: secret("s"), unset: null },
      { a: 1, b: { c: "bar", d: [1, 5] }, added: { x: 1 }, same: "s", unset: null },
    );
    assert.equal(diff.changes, "some");
    assert.deepEqual(Object.keys(diff.detailedDiff!).sort(), ["added", "b.c", "b.d[1]", "b.d[2]", "gone"]);
    assert.deepEqual(diff.changedKeys.sort(), ["added", "b", "gone"]);
    assert.equal(engineDiff({ a: [1], b: null }, { a: [1] }).changes, "none");
  });
});

describe("steps with replaceOnChanges (plan.ts)", () => {
  const old = { inputs: { a: 1, b: { c: "foo" } } };
  const unknown = { changes: "unknown" as const, replaces: [], deleteBeforeReplace: false };
  const dynamic = (inputs: object, replaceOnChanges: string[], extra: object = {}) =>
    dynamicPlan(old, { inputs: inputs as never, replaceOnChanges, ...extra }, unknown, false);

  it("a dynamic provider without diff: the engine's diff, so a covered key, a nested path or `*` replaces (lifecycle TestReplaceOnChanges, engine diff)", () => {
    assert.equal(dynamic({ a: 2, b: { c: "foo" } }, ["a"]).op, "replace");
    assert.deepEqual(dynamic({ a: 1, b: { c: "bar" } }, ["b.c"]), {
      op: "replace",
      diffs: ["b.c"],
      deleteBeforeReplace: false,
    });
    assert.equal(dynamic({ a: 3, b: { c: "baz" } }, ["*"]).op, "replace");
    assert.deepEqual(dynamic({ a: 4, b: { c: "foo" } }, []), {
      op: "update",
      diffs: ["a"],
      deleteBeforeReplace: false,
    });
    assert.equal(dynamic({ a: 2, b: { c: "foo" } }, ["b.c"]).op, "update", "an uncovered change updates");
    assert.equal(dynamic(old.inputs, ["*"]).op, "same");
  });

  it("a dynamic provider whose diff says only `changes`: nothing for replaceOnChanges to match, so it updates", () => {
    const answer = { changes: "some" as const, replaces: [], deleteBeforeReplace: false };
    const r = { inputs: { a: 2, b: { c: "foo" } }, replaceOnChanges: ["a", "*"] };
    assert.equal(dynamicPlan(old, r, answer, false).op, "update");
    assert.equal(dynamicPlan(old, r, { ...answer, changes: "none" }, false).op, "same");
    assert.equal(dynamicPlan(old, r, { ...answer, replaces: ["a"] }, false).op, "replace");
    assert.equal(
      dynamicPlan({ ...old, initErrors: ["not ready"] }, r, { ...answer, changes: "none" }, false).op,
      "replace",
      "`*` with init errors",
    );
  });

  it("the old dynamic resource goes first as the program says, else as the provider asks", () => {
    const asks = { changes: "some" as const, replaces: ["a"], deleteBeforeReplace: true };
    const r = { inputs: { a: 2 }, replaceOnChanges: [] };
    assert.equal(dynamicPlan(old, r, asks, false).deleteBeforeReplace, true);
    assert.equal(
      dynamicPlan(old, { ...r, deleteBeforeReplace: false }, asks, false).deleteBeforeReplace,
      false,
    );
    assert.equal(
      dynamic({ a: 2, b: { c: "foo" } }, ["a"], { deleteBeforeReplace: true }).deleteBeforeReplace,
      true,
    );
  });

  it("a Kubernetes object: a label key with dots, an array element and a wildcard in replaceOnChanges", () => {
    const type = kubeType("kubernetes:core/v1:Pod")!;
    const settings = {
      upsertExistingObjects: false,
      enableSecretMutable: false,
      enableConfigMapMutable: false,
      enablePatchForce: false,
    };
    const pod = (role: string, image: string) => ({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name: "p", labels: { "node-role.kubernetes.io/infra": role, app: "x" } },
      spec: { containers: [{ name: "c", image }] },
    });
    const before = pod("a", "one");
    const state = { inputs: before, outputs: { ...before, __inputs: before } };
    const plan = (inputs: object, replaceOnChanges: string[]) =>
      kubePlan(type, state, { inputs: inputs as never, ignoreChanges: [], replaceOnChanges }, settings, false)
        .op;
    const label = 'metadata.labels["node-role.kubernetes.io/infra"]';
    assert.equal(plan(pod("b", "one"), [label]), "replace");
    assert.equal(plan(pod("a", "two"), [label]), "update");
    assert.equal(plan(pod("a", "two"), ["spec.containers[0].image"]), "replace");
    assert.equal(plan(pod("a", "two"), ["spec.containers[1].image"]), "update");
    assert.equal(plan(pod("a", "two"), ["spec.*[*].image"]), "replace");
    assert.equal(plan(pod("b", "one"), ["metadata.labels"]), "replace");
  });
});
