import * as assert from "node:assert/strict";
import { kubectl, kubectlMinorVersion } from "../apiserver/kubectl";
import { startSimulator } from "../simulator";
import { KubeObject } from "../store/types";
import { CLUSTER_AUTOSCALER, MACHINE_AUTOSCALER, MAX_SIZE, MIN_SIZE } from "./machine-autoscaler";
import { MACHINE_HEALTH_CHECK } from "./machine-health-check";
import { K, Sim, condition, machineSetFrom, startSim, status } from "./testing";
import { keyOf } from "./util";

const NS = "openshift-machine-api";

function machinesOf(sim: Sim, machineSet: string): KubeObject[] {
  return sim.store
    .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
    .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === machineSet);
}

/** Every machine of the set Running with a Ready node, and as many as the set wants. */
function converged(sim: Sim, name: string, replicas: number): string[] | undefined {
  const ms = sim.get(K.machineSet, name, NS);
  const s = status<{ readyReplicas?: number; replicas?: number }>(ms);
  const machines = machinesOf(sim, name);
  return (ms?.spec as { replicas: number }).replicas === replicas &&
    s.replicas === replicas &&
    s.readyReplicas === replicas &&
    machines.length === replicas &&
    machines.every((m) => !m.metadata.deletionTimestamp)
    ? machines.map((m) => m.metadata.name).sort()
    : undefined;
}

function autoscaler(name: string, min: number, max: number): KubeObject {
  return {
    apiVersion: MACHINE_AUTOSCALER.apiVersion,
    kind: MACHINE_AUTOSCALER.kind,
    metadata: { name, namespace: NS },
    spec: {
      minReplicas: min,
      maxReplicas: max,
      scaleTargetRef: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name },
    },
  };
}

function healthCheck(sim: Sim, names: string[], maxUnhealthy: string | number): KubeObject {
  return {
    apiVersion: MACHINE_HEALTH_CHECK.apiVersion,
    kind: MACHINE_HEALTH_CHECK.kind,
    metadata: { name: "infra", namespace: NS },
    spec: {
      selector: {
        matchLabels: { "machine.openshift.io/cluster-api-cluster": sim.cluster.infrastructureId },
        matchExpressions: [
          { key: "machine.openshift.io/cluster-api-machineset", operator: "In", values: names },
        ],
      },
      unhealthyConditions: [
        { type: "Ready", status: "False", timeout: "300s" },
        { type: "Ready", status: "Unknown", timeout: "300s" },
      ],
      maxUnhealthy,
      nodeStartupTimeout: "10m",
    },
  };
}

describe("machine autoscaling, health checks and spot interruptions", () => {
  let sim: Sim;
  let infra: string;
  beforeEach(() => {
    sim = startSim();
    infra = `${sim.cluster.infrastructureId}-infra-us-east-2a`;
  });
  afterEach(() => sim.stop());

  it("puts a MachineAutoscaler's bounds on its MachineSet, reports lastTargetRef, and takes them away on delete", async () => {
    machineSetFrom(sim, infra, { replicas: 1 });
    sim.store.create(autoscaler(infra, 1, 3));
    const ms = await sim.until("annotated", () => {
      const s = sim.get(K.machineSet, infra, NS);
      return s?.metadata.annotations?.[MAX_SIZE] === "3" && s;
    });
    assert.equal(ms.metadata.annotations?.[MIN_SIZE], "1");
    const ma = await sim.until("lastTargetRef", () => {
      const m = sim.get(MACHINE_AUTOSCALER, infra, NS);
      return status(m).lastTargetRef ? m : undefined;
    });
    assert.deepEqual(status(ma).lastTargetRef, {
      apiVersion: "machine.openshift.io/v1beta1",
      kind: "MachineSet",
      name: infra,
    });
    sim.store.delete(keyOf(MACHINE_AUTOSCALER, infra, NS));
    await sim.until("autoscaler gone", () => !sim.get(MACHINE_AUTOSCALER, infra, NS));
    const after = sim.get(K.machineSet, infra, NS)!.metadata.annotations ?? {};
    assert.equal(after[MIN_SIZE], undefined);
    assert.equal(after[MAX_SIZE], undefined);
  });

  it("scales autoscaled MachineSets for pending pods within their bounds, only with a ClusterAutoscaler default", async () => {
    const other = `${sim.cluster.infrastructureId}-infra-us-east-2b`;
    machineSetFrom(sim, infra, { replicas: 1 });
    machineSetFrom(sim, other, { replicas: 1 });
    sim.store.create(autoscaler(infra, 1, 3));
    sim.store.create(autoscaler(other, 1, 2));
    await sim.until("annotated", () => sim.get(K.machineSet, other, NS)?.metadata.annotations?.[MAX_SIZE]);
    assert.throws(() => sim.controllers.machineFaults.pendingPods(2), /no ClusterAutoscaler "default"/);

    sim.store.create({
      apiVersion: CLUSTER_AUTOSCALER.apiVersion,
      kind: CLUSTER_AUTOSCALER.kind,
      metadata: { name: "default" },
      spec: { balanceSimilarNodeGroups: true },
    });
    sim.controllers.machineFaults.pendingPods(10);
    await sim.until("scaled to the maximum", () => converged(sim, infra, 3) && converged(sim, other, 2));
    assert.throws(() => sim.controllers.machineFaults.pendingPods(1), /all at their maximum/);

    sim.controllers.machineFaults.idleNodes(10);
    await sim.until("scaled to the minimum", () => converged(sim, infra, 1) && converged(sim, other, 1));
  });

  it("replaces the machine of a node that stays NotReady past the timeout", async () => {
    // 40% of 3 machines allows one remediation; of 2 it would allow none (the machine-api rounds down).
    machineSetFrom(sim, infra, { replicas: 3 });
    const before = await sim.until("running", () => converged(sim, infra, 3));
    sim.store.create(healthCheck(sim, [infra], "40%"));
    await sim.until("healthy", () => status(sim.get(MACHINE_HEALTH_CHECK, "infra", NS)).currentHealthy === 3);
    const victim = machinesOf(sim, infra).find((m) => m.metadata.name === before[0])!;
    const node = (victim.status as { nodeRef: { name: string } }).nodeRef.name;
    sim.controllers.machineFaults.stopKubelet(node);
    const after = await sim.until("replaced", () => {
      const names = converged(sim, infra, 3);
      return names && !names.includes(before[0]) && names;
    });
    assert.ok(after.includes(before[1]) && after.includes(before[2]), "the healthy machines are kept");
    assert.equal(sim.get(K.node, node), undefined);
    const mhc = await sim.until("healthy again", () => {
      const m = sim.get(MACHINE_HEALTH_CHECK, "infra", NS);
      return status(m).currentHealthy === 3 && m;
    });
    assert.equal(condition(mhc, "RemediationAllowed")?.status, "True");
  });

  it("stops remediating when more machines than maxUnhealthy are unhealthy", async () => {
    machineSetFrom(sim, infra, { replicas: 2 });
    const names = await sim.until("running", () => converged(sim, infra, 2));
    sim.store.create(healthCheck(sim, [infra], 1));
    for (const m of machinesOf(sim, infra)) {
      sim.controllers.machineFaults.stopKubelet((m.status as { nodeRef: { name: string } }).nodeRef.name);
    }
    const mhc = await sim.until("short-circuited", () => {
      const m = sim.get(MACHINE_HEALTH_CHECK, "infra", NS);
      return condition(m, "RemediationAllowed")?.status === "False" && m;
    });
    assert.equal(condition(mhc, "RemediationAllowed")?.reason, "TooManyUnhealthy");
    assert.deepEqual(status(mhc).currentHealthy, 0);
    assert.deepEqual(
      machinesOf(sim, infra).map((m) => [m.metadata.name, !!m.metadata.deletionTimestamp]),
      names.map((n) => [n, false]),
    );
  });

  it("replaces an interrupted spot machine, and refuses to interrupt an on-demand one", async () => {
    const base = sim.get(K.machineSet, sim.cluster.workerMachineSets[0], NS)!;
    const providerSpec = (base.spec as { template: { spec: { providerSpec: { value: object } } } }).template
      .spec.providerSpec.value;
    machineSetFrom(sim, infra, { replicas: 1, providerSpec: { ...providerSpec, spotMarketOptions: {} } });
    const [spot] = await sim.until("running", () => converged(sim, infra, 1));
    const [onDemand] = machinesOf(sim, sim.cluster.workerMachineSets[0]);
    assert.throws(
      () => sim.controllers.machineFaults.interruptSpot(onDemand.metadata.name),
      /not a spot instance/,
    );
    sim.controllers.machineFaults.interruptSpot(spot);
    await sim.until("replaced", () => {
      const names = converged(sim, infra, 1);
      return names && names[0] !== spot;
    });
  });

  it("answers kubectl get machineautoscaler,mhc", async function () {
    if (kubectlMinorVersion() === undefined) this.skip();
    const simulator = await startSimulator({ speed: 1000 });
    try {
      simulator.store.create(autoscaler(`${simulator.cluster.infrastructureId}-worker-us-east-2a`, 1, 2));
      simulator.store.create({
        ...healthCheck(sim, ["x"], "40%"),
        metadata: { name: "infra", namespace: NS },
      });
      const result = await kubectl(simulator.kubeconfigPath, ["get", "machineautoscaler,mhc", "-n", NS]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /machineautoscaler\.autoscaling\.openshift\.io\/\S+-worker-us-east-2a/);
      assert.match(result.stdout, /machinehealthcheck\.machine\.openshift\.io\/infra/);
      const short = await kubectl(simulator.kubeconfigPath, ["get", "ma,mhc", "-n", NS, "-o", "name"]);
      assert.equal(short.code, 0, short.stderr);
    } finally {
      await simulator.stop();
    }
  });
});
