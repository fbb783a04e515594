import * as assert from "node:assert/strict";
import {
  DeploymentRecord,
  deadlineSincePrevious,
  impactLine,
  impactSincePrevious,
  ObjectLike,
  rolloutImpact,
} from ".";

/** Pulumi's marker of a value a preview does not know (provider/dynamic/common.ts UNKNOWN). */
const UNKNOWN = "04da6b54-80e4-46f7-96ec-b56ff0331ba9";
const chrony = (text: string): ObjectLike => ({
  kind: "MachineConfig",
  metadata: { name: "99-infra-chrony", labels: { "machineconfiguration.openshift.io/role": "infra" } },
  spec: {
    config: { storage: { files: [{ path: "/etc/chrony.conf", contents: { source: `data:,${text}` } }] } },
  },
});
const previous: DeploymentRecord = { pool: "infra", objects: [chrony("a")], machineCount: 3 };
const since = (declared: DeploymentRecord, before: DeploymentRecord | undefined) =>
  impactSincePrevious(before, declared, UNKNOWN);
/** The cluster's answer at preview: 5 nodes drain and reboot. */
const fromCluster = rolloutImpact({
  pool: "infra",
  before: { machineConfigs: [] },
  after: { machineConfigs: [chrony("b") as never] },
  machineCount: 5,
});

// What a preview says without a cluster, from the previous deployment's record (provider/dynamic/
// rollout-baseline.ts keeps it); the cluster's answer, when there is one, wins.
describe("rollout impact since the previous deployment", () => {
  it("the cluster's answer wins, retimed with the timings the pool's last rollout showed, if any", () => {
    assert.equal(since({ pool: "infra", clusterImpact: fromCluster }, undefined), fromCluster);
    assert.equal(
      since({ pool: "infra", clusterImpact: fromCluster }, { ...previous, learnedTimings: {} }),
      fromCluster,
    );
    const learned = since(
      { pool: "infra", objects: [chrony("a")], clusterImpact: fromCluster },
      { ...previous, learnedTimings: { drainSeconds: 10, rebootSeconds: 20 } },
    )!;
    // 5 waves of 30 s applying, 10 s draining, 20 s rebooting.
    assert.deepEqual([learned.timingsLearned, learned.durationSeconds], [true, 5 * 60]);
    // A null answer (none at that preview) is no answer.
    assert.equal(
      since({ pool: "infra", objects: [chrony("b")], clusterImpact: null as never }, previous)?.machineCount,
      3,
    );
  });

  it("else the objects declared now against those of the previous deployment, on the nodes it counted", () => {
    const impact = since({ pool: "infra", objects: [chrony("b")], settings: { paused: true } }, previous)!;
    assert.equal(
      impactLine(impact),
      "pool infra: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file /etc/chrony.conf of " +
        "99-infra-chrony); against the previous deployment's inputs; the pool is paused: the rollout waits for unpausing",
    );
    assert.equal(impact.timingsLearned, undefined);
    const learned = since(
      { pool: "infra", objects: [chrony("b")] },
      { ...previous, learnedTimings: { rebootSeconds: 30 } },
    )!;
    assert.deepEqual(
      [learned.timingsLearned, learned.durationSeconds, learned.paused],
      [true, 3 * (30 + 60 + 30), false],
    );
    // A first deployment counted no nodes.
    assert.equal(since({ pool: "infra", objects: [chrony("b")] }, { pool: "infra" })!.machineCount, 0);
  });

  it("unpausing a pool the previous deployment paused starts what it held, which is unknown without a cluster", () => {
    const paused = { ...previous, settings: { paused: true } };
    assert.equal(since({ pool: "infra", objects: [chrony("a")], settings: {} }, paused)!.unpauses, true);
    assert.equal(
      since({ pool: "infra", objects: [chrony("a")], settings: { paused: true } }, paused)!.unpauses,
      undefined,
    );
    assert.equal(
      since({ pool: "infra", objects: [chrony("a")], settings: {} }, previous)!.unpauses,
      undefined,
    );
  });

  it("nothing to say without a previous deployment of the pool, or while what is declared is unknown", () => {
    for (const [declared, before] of [
      [{ pool: "infra", objects: [chrony("b")] }, undefined],
      [{ pool: UNKNOWN, objects: [chrony("b")] }, previous],
      [{ pool: "worker", objects: [chrony("b")] }, previous],
      [{ pool: "infra", objects: [chrony(UNKNOWN)] }, previous],
      [{ pool: "infra", objects: [chrony("b")], settings: { maxUnavailable: UNKNOWN } }, previous],
    ] as Array<[DeploymentRecord, DeploymentRecord | undefined]>)
      assert.equal(since(declared, before), undefined, JSON.stringify(declared));
  });
});

describe("a pool waiter's deadline when given none", () => {
  const pooled = { pool: "infra", settings: {} };
  const policy = { maxSurge: 1, maxUnavailable: 0, replicas: { "infra-a": 2 } };

  it("twice the render's rollout, or the replacement's with the timings learned, whichever is longer", () => {
    const record = { ...pooled, machineCount: 30, learnedTimings: { drainSeconds: 240 } };
    // 2 machines one at a time, each 300 s to a Ready node and 240 s to drain the old one.
    assert.equal(
      deadlineSincePrevious(
        record,
        { ...pooled, machineSets: ["infra-a"], machineReplacement: policy },
        UNKNOWN,
      ),
      Math.max(1800, 2 * 2 * 540),
    );
  });

  it("no replacement without a policy or MachineSets; no previous deployment counts no machines", () => {
    const record = { ...pooled, machineCount: 30 };
    assert.equal(deadlineSincePrevious(record, { ...pooled, machineReplacement: policy }, UNKNOWN), 1800);
    assert.equal(
      deadlineSincePrevious(record, { ...pooled, machineSets: ["infra-a", "infra-b"] }, UNKNOWN),
      1800,
    );
    const autoscaled = { maxSurge: 0, maxUnavailable: 1 };
    assert.equal(
      deadlineSincePrevious(
        undefined,
        { ...pooled, machineSets: ["infra-a"], machineReplacement: autoscaled },
        UNKNOWN,
      ),
      1800,
    );
  });
});
