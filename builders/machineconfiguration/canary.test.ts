/**
 * What a canary of the worker pool may take, checked at preview: node names, each a node of the worker
 * pool as the MCO's GetPoolsForNode decides (master first, one custom pool over worker, two custom
 * pools none), not every worker, and a role no other node carries.
 */
import { strict as assert } from "node:assert";
import { CanaryCluster, canaryClusterProblems, canaryNodesProblems, poolOutsideCanary } from "./canary";

const pool = (name: string, role = name) => ({
  metadata: { name },
  spec: { nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${role}`]: "" } } },
});
const node = (name: string, ...roles: string[]) => ({
  metadata: { name, labels: Object.fromEntries(roles.map((r) => [`node-role.kubernetes.io/${r}`, ""])) },
});
const cluster = (labelledByUs: string[] = []): CanaryCluster => ({
  nodes: [
    node("w1", "worker"),
    node("w2", "worker"),
    node("w3", "worker", "canary"),
    node("m1", "master", "worker"),
    node("i1", "worker", "infra"),
    node("x1", "worker", "infra", "gpu"),
  ],
  pools: [pool("master"), pool("worker"), pool("infra"), pool("gpu"), pool("canary")],
  labelledByUs,
});
const problems = (errors: Array<{ propertyPath: string; reason: string }>) =>
  errors.map((e) => `${e.propertyPath}: ${e.reason}`);

describe("canary pool checks", () => {
  it("places a node as GetPoolsForNode does, the canary's own label left out", () => {
    const { nodes, pools } = cluster();
    assert.deepEqual(
      nodes.map((n) => poolOutsideCanary(n, pools, "canary")),
      ["worker", "worker", "worker", "master", "infra", undefined],
    );
  });

  it("refuses nodes that are no list of distinct names", () => {
    assert.deepEqual(problems(canaryNodesProblems([])), [
      "nodes: must list the names of one or more worker nodes, got []",
    ]);
    assert.deepEqual(problems(canaryNodesProblems(["w1", "W 2", "w1"])), [
      'nodes[1]: must be a node name, got "W 2"',
      "nodes[2]: w1 is listed twice",
    ]);
  });

  it("refuses nodes the cluster lacks or that are not workers, all of worker's nodes, and a role others carry", () => {
    assert.deepEqual(problems(canaryClusterProblems("canary", ["w1"], cluster(["w3"]))), []);
    assert.deepEqual(problems(canaryClusterProblems("canary", ["w9", "m1", "i1", "x1"], cluster(["w3"]))), [
      "nodes[0]: the cluster has no node w9",
      "nodes[1]: m1 is in pool master, not worker: a canary takes worker nodes only (a node in two custom pools is managed by none)",
      "nodes[2]: i1 is in pool infra, not worker: a canary takes worker nodes only (a node in two custom pools is managed by none)",
      "nodes[3]: x1 is in no pool, not worker: a canary takes worker nodes only (a node in two custom pools is managed by none)",
    ]);
    assert.deepEqual(problems(canaryClusterProblems("canary", ["w1", "w2", "w3"], cluster())), [
      "nodes: 3 of the 3 nodes of worker: leave at least one to roll out after the canary",
    ]);
    assert.deepEqual(problems(canaryClusterProblems("canary", ["w1"], cluster())), [
      "name: nodes w3 already carry node-role.kubernetes.io/canary, set by someone else: they would join the canary pool too; choose another name",
    ]);
  });
});
