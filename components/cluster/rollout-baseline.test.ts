import * as assert from "node:assert/strict";
import { impactLine, impactSincePrevious, PoolImpact } from "../../builders/rollout-impact";
import { mocks, resetMocks, settle } from "../../test/mocks";
import { UNKNOWN } from "../../provider/dynamic/common";
import { keepingRolloutRecord } from "../../provider/dynamic/rollout-baseline";
import { MachineConfig, MachineConfigPool } from "../machine-configuration/machine-configuration";

// The serialized provider runs as Pulumi's dynamic-provider host runs it.
const requireFromString = require("require-from-string") as (code: string) => {
  handler: () => {
    check(olds: object, news: object): Promise<{ inputs: Record<string, unknown> }>;
    diff(id: string, olds: object, news: object): Promise<{ changes: boolean }>;
  };
};

const chrony = (text: string) => ({
  role: "worker",
  files: [{ path: "/etc/chrony.conf", contents: { text } }],
  wait: false as const,
});

/** The registered inputs of a component's PoolRollout, its kubeconfig revealed, as its provider gets them. */
async function waiterOf(name: string): Promise<Record<string, unknown>> {
  await settle();
  const r = mocks.resources.find((x) => x.type === "pulumi-nodejs:dynamic:PoolRollout" && x.name === name);
  assert.ok(r, `${name} registered`);
  return { ...r.inputs, kubeconfig: (r.inputs.kubeconfig as { value: string }).value };
}

/** The registered inputs of the RolloutBaseline of a component, as the engine receives them. */
async function baselineOf(name: string): Promise<Record<string, unknown>> {
  await settle();
  const r = mocks.resources.find(
    (x) => x.type === "pulumi-nodejs:dynamic:RolloutBaseline" && x.name === `${name}-rollout-baseline`,
  );
  assert.ok(r, `${name}-rollout-baseline registered`);
  return r.inputs;
}

describe("rollout impact without a cluster: against the previous deployment's inputs", () => {
  it("a component that does not wait keeps what it declares in a RolloutBaseline, whose check compares it with the last deployment", async () => {
    await resetMocks(undefined, { preview: true });
    new MachineConfig("99-worker-chrony", chrony("server a\n"));
    const first = await baselineOf("99-worker-chrony");
    const provider = requireFromString(first.__provider as string).handler();
    // A first deployment without a cluster has nothing to compare with.
    const created = await provider.check({}, first);
    assert.equal(created.inputs.impact, null);
    // What the engine kept, with the machine count the pool's waiter reported.
    const deployed = { ...created.inputs, machineCount: 3 };

    await resetMocks(undefined, { preview: true });
    new MachineConfig("99-worker-chrony", chrony("server b\n"));
    const next = await baselineOf("99-worker-chrony");
    const impact = (await provider.check(deployed, next)).inputs.impact as PoolImpact;
    assert.deepEqual(
      [impact.newRender, impact.action, impact.machineCount, impact.waves, impact.against],
      [true, "reboot", 3, 3, "previous deployment"],
    );
    assert.equal(
      impactLine(impact),
      "pool worker: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min " +
        "(file /etc/chrony.conf of 99-worker-chrony); against the previous deployment's inputs",
    );
    assert.equal((await provider.diff("id", deployed, next)).changes, true);
    // The impact itself and the cluster's answer are per preview, never a change to keep.
    assert.equal(
      (await provider.diff("id", deployed, { ...deployed, impact, clusterImpact: impact })).changes,
      false,
    );
    // Nor what its waiter observed since (a refresh reading the pool's machines): it rides along with
    // the next declared change.
    const observed = { machineCount: 5, learnedTimings: { drainSeconds: 30, rebootSeconds: 90 } };
    assert.equal((await provider.diff("id", deployed, { ...deployed, ...observed })).changes, false);
    assert.equal((await provider.diff("id", deployed, { ...next, ...observed })).changes, true);
  });

  it("a component that waits keeps the record in its pool waiter, whose diff says what the change does against its previous state", async () => {
    await resetMocks();
    // An update, which reads no cluster; the kubeconfig is the ambient one (test/fixtures/kubeconfig.yaml).
    const waiting = (text: string) => ({ ...chrony(text), wait: true });
    new MachineConfig("99-worker-chrony", waiting("server a\n"));
    await settle();
    const types = mocks.resources
      .filter((r) => r.type.startsWith("pulumi-nodejs:dynamic:"))
      .map((r) => r.type);
    assert.ok(!types.includes("pulumi-nodejs:dynamic:RolloutBaseline"), types.join(", "));
    const first = await waiterOf("99-worker-chrony-rollout");
    assert.deepEqual(
      (first.objects as Array<{ kind: string; metadata: { name: string } }>).map((o) => [
        o.kind,
        o.metadata.name,
      ]),
      [["MachineConfig", "99-worker-chrony"]],
    );
    // What the engine kept of the last deployment: the inputs echoed, and what the waiter observed.
    const deployed = {
      ...first,
      renderedConfig: "rendered-worker-1",
      machineCount: 3,
      learnedTimings: { drainSeconds: 30, rebootSeconds: 90 },
    };

    await resetMocks();
    new MachineConfig("99-worker-chrony", waiting("server b\n"));
    const next = await waiterOf("99-worker-chrony-rollout");
    const provider = requireFromString(next.__provider as string).handler();
    const lines: string[] = [];
    const log = console.log;
    console.log = (line: string) => lines.push(line);
    const diff = await provider.diff("pool/worker", deployed, next).finally(() => (console.log = log));
    assert.equal(diff.changes, true);
    assert.deepEqual(lines, [
      "info: [runtime] pool worker: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 8 min " +
        "learned from the last rollout (file /etc/chrony.conf of 99-worker-chrony); against the previous deployment's inputs",
    ]);
    // A stack deployed before the waiter kept the record: nothing to compare with, nothing said.
    const older = { ...deployed, objects: undefined };
    lines.length = 0;
    console.log = (line: string) => lines.push(line);
    await provider.diff("pool/worker", older, next).finally(() => (console.log = log));
    assert.deepEqual(lines, []);
  });

  it("the timings its waiter learned in the last rollout replace the defaults, and say so", () => {
    const mc = (text: string) => ({
      kind: "MachineConfig",
      metadata: { name: "99-worker-chrony", labels: { "machineconfiguration.openshift.io/role": "worker" } },
      spec: { config: { storage: { files: [{ path: "/etc/chrony.conf", contents: { source: text } }] } } },
    });
    const previous = {
      pool: "worker",
      objects: [mc("data:,a")],
      machineCount: 3,
      learnedTimings: { drainSeconds: 30, rebootSeconds: 90 },
    };
    const impact = impactSincePrevious(previous, { pool: "worker", objects: [mc("data:,b")] }, UNKNOWN)!;
    // apply 30 (default) + drain 30 + reboot 90 (learned), 3 waves.
    assert.deepEqual(
      [impact.perNodeSeconds, impact.durationSeconds, impact.timingsLearned],
      [150, 450, true],
    );
    assert.match(impactLine(impact), /3 waves, about 8 min learned from the last rollout \(file/);
    // A cluster's answer wins; the learned timings still refine its estimate.
    const cluster = {
      ...impact,
      machineCount: 6,
      waves: 6,
      against: "cluster" as const,
      timingsLearned: false,
    };
    const refined = impactSincePrevious(previous, { pool: "worker", clusterImpact: cluster }, UNKNOWN)!;
    assert.deepEqual([refined.against, refined.machineCount, refined.durationSeconds], ["cluster", 6, 900]);
    // Not yet known at preview: no answer rather than a wrong one.
    assert.equal(
      impactSincePrevious(previous, { pool: "worker", objects: [UNKNOWN as never] }, UNKNOWN),
      undefined,
    );
    // No change: no new render.
    assert.equal(
      impactLine(impactSincePrevious(previous, { pool: "worker", objects: [mc("data:,a")] }, UNKNOWN)!),
      "pool worker: no new render; nodes unchanged since the previous deployment",
    );
  });

  it("a pool component keeps its settings; unpausing it says what it may start", async () => {
    await resetMocks(undefined, { preview: true });
    new MachineConfigPool("infra", { maxUnavailable: 2, paused: true, wait: false });
    const inputs = await baselineOf("infra");
    assert.deepEqual([inputs.pool, inputs.settings], ["infra", { maxUnavailable: 2, paused: true }]);
    const provider = requireFromString(inputs.__provider as string).handler();
    const deployed = { ...(await provider.check({}, inputs)).inputs, machineCount: 3 };
    const unpaused = { ...inputs, settings: { maxUnavailable: 2, paused: false } };
    const impact = (await provider.check(deployed, unpaused)).inputs.impact as PoolImpact;
    assert.equal(
      impactLine(impact),
      "pool infra: no new render; nodes unchanged since the previous deployment; " +
        "unpausing starts any rollout the pool held (unknown without the cluster)",
    );
  });
});

describe("a pool waiter's deadline when the program gives none", () => {
  // The waiter's update gets the deadline its change needs by the previous deployment's record
  // (deadlineSincePrevious); kept in its state, it would read as the program's at the next diff.
  it("is twice the change's estimate, passed to the wait and not kept; a given one is the program's", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const inner = {
      create: async (inputs: Record<string, unknown>) => ({ id: "pool/infra", outs: { ...inputs } }),
      update: async (_id: string, _olds: unknown, news: Record<string, unknown>) => {
        seen.push(news);
        return { outs: { ...news } };
      },
    };
    const provider = keepingRolloutRecord(inner);
    const mc = (text: string) => ({
      kind: "MachineConfig",
      metadata: { name: "99-infra-chrony", labels: { "machineconfiguration.openshift.io/role": "infra" } },
      spec: { config: { storage: { files: [{ path: "/etc/chrony.conf", contents: { source: text } }] } } },
    });
    const olds = { pool: "infra", objects: [mc("data:,a")], machineCount: 30 };
    const updated = await provider.update!("pool/infra", olds, { pool: "infra", objects: [mc("data:,b")] });
    // 30 nodes that drain and reboot one at a time, 240 s each: 2 h, twice that.
    assert.equal(seen[0].timeoutSeconds, 4 * 3600);
    assert.equal(updated.outs!.timeoutSeconds, undefined);
    await provider.update!("pool/infra", olds, {
      pool: "infra",
      objects: [mc("data:,b")],
      timeoutSeconds: 600,
    });
    assert.equal(seen[1].timeoutSeconds, 600);
  });
});
