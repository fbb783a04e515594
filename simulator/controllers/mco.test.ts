import { CURRENT_CONFIG, DESIRED_CONFIG, MCD_REASON, MCD_STATE } from "../../primitives/openshift";
import * as assert from "node:assert/strict";
import { KubeObject } from "../store/types";
import { decodeDataUrl, mergeMachineConfigs, renderedName } from "./machineconfig";
import { isNodeReady, poolsForNode } from "./mco-pools";
import {
  K,
  Sim,
  annotation,
  condition,
  createMachineConfig,
  fileConfig,
  holdDrainWithBudget,
  startSim,
  status,
} from "./testing";
import { keyOf } from "./util";

interface PoolStatus {
  machineCount: number;
  updatedMachineCount: number;
  readyMachineCount: number;
  unavailableMachineCount: number;
  degradedMachineCount: number;
  observedGeneration: number;
  configuration: { name: string };
}

const ROLE = "machineconfiguration.openshift.io/role";
const poolSpec = (p: KubeObject | undefined) =>
  p?.spec as { configuration: { name: string; source: Array<{ name: string }> }; paused?: boolean };

function workerNodes(sim: Sim): KubeObject[] {
  return sim.store.list("v1", "Node").filter((n) => sim.cluster.workerNodes.includes(n.metadata.name));
}

/** Done as the DOMAIN waiter defines it: target named, reached by every node, status current. */
function rolledOut(sim: Sim, pool: string, mcName?: string): KubeObject | undefined {
  const p = sim.get(K.pool, pool);
  const s = status<PoolStatus>(p);
  const spec = poolSpec(p);
  if (!spec.configuration) return undefined;
  const named = !mcName || spec.configuration.source.some((r) => r.name === mcName);
  const done =
    named &&
    s.configuration?.name === spec.configuration.name &&
    condition(p, "Updated")?.status === "True" &&
    s.updatedMachineCount === s.machineCount &&
    s.degradedMachineCount === 0 &&
    s.observedGeneration === p?.metadata.generation;
  return done ? p : undefined;
}

function pool(
  name: string,
  nodeRole: string,
  roles: string[],
  extra: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfigPool",
    metadata: { name, labels: { [`pools.operator.machineconfiguration.openshift.io/${name}`]: "" } },
    spec: {
      machineConfigSelector: { matchExpressions: [{ key: ROLE, operator: "In", values: roles }] },
      nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${nodeRole}`]: "" } },
      ...extra,
    },
  };
}

function labelNode(sim: Sim, name: string, change: (labels: Record<string, string>) => void): void {
  sim.store.mutate(keyOf(K.node, name), (n) => {
    const labels = { ...(n.metadata.labels ?? {}) };
    change(labels);
    n.metadata.labels = labels;
  });
}

/** Whether any worker node went NotReady (rebooted) or was cordoned, from now until `stop`. */
function disruptions(sim: Sim): { stop(): { rebooted: boolean; cordoned: boolean } } {
  const seen = { rebooted: false, cordoned: false };
  const unwatch = sim.watch(({ object }) => {
    if (object.kind !== "Node" || !sim.cluster.workerNodes.includes(object.metadata.name)) return;
    const ready = (object.status as { conditions: Array<{ type: string; status: string }> }).conditions.find(
      (c) => c.type === "Ready",
    );
    if (ready?.status !== "True") seen.rebooted = true;
    if ((object.spec as { unschedulable?: boolean }).unschedulable) seen.cordoned = true;
  });
  return {
    stop: () => {
      unwatch();
      return seen;
    },
  };
}

describe("MCO: pool membership", () => {
  const node = (labels: Record<string, string>): KubeObject => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n", labels },
  });
  const pools = (...extra: KubeObject[]): KubeObject[] => [
    pool("master", "master", ["master"]),
    pool("worker", "worker", ["worker"]),
    ...extra,
  ];
  const w = "node-role.kubernetes.io/worker";
  const i = "node-role.kubernetes.io/infra";

  it("puts a worker,infra node in the custom infra pool, which wins over worker", () => {
    const result = poolsForNode(
      node({ [w]: "", [i]: "" }),
      pools(pool("infra", "infra", ["worker", "infra"])),
    );
    assert.deepEqual(
      result.pools.map((p) => p.metadata.name),
      ["infra", "worker"],
    );
  });

  it("leaves a worker,infra node in worker when there is no infra pool", () => {
    assert.deepEqual(
      poolsForNode(node({ [w]: "", [i]: "" }), pools()).pools.map((p) => p.metadata.name),
      ["worker"],
    );
  });

  it("manages an infra-only node nowhere when there is no infra pool", () => {
    assert.deepEqual(poolsForNode(node({ [i]: "" }), pools()).pools, []);
  });

  it("refuses a node matching two custom pools: it is managed by none, as the MCO does", () => {
    const result = poolsForNode(
      node({ [w]: "", [i]: "", "node-role.kubernetes.io/gpu": "" }),
      pools(pool("infra", "infra", ["worker", "infra"]), pool("gpu", "gpu", ["worker", "gpu"])),
    );
    assert.deepEqual(result.pools, []);
    assert.match(result.error ?? "", /belongs to 2 custom roles, cannot proceed with this Node/);
  });

  it("keeps a master that also matches a custom pool in master", () => {
    const result = poolsForNode(
      node({ "node-role.kubernetes.io/master": "", [i]: "" }),
      pools(pool("infra", "infra", ["worker", "infra"])),
    );
    assert.equal(result.pools[0].metadata.name, "master");
  });

  it("never manages Windows nodes", () => {
    assert.deepEqual(poolsForNode(node({ [w]: "", "kubernetes.io/os": "windows" }), pools()).pools, []);
  });

  describe("in a running cluster", () => {
    let sim: Sim;
    beforeEach(() => (sim = startSim()));
    afterEach(() => sim.stop());

    it("moves a worker labelled infra into a new infra pool, which renders and rolls out its config", async () => {
      const [moved] = sim.cluster.workerNodes;
      sim.store.create(pool("infra", "infra", ["worker", "infra"]));
      createMachineConfig(sim, "50-infra", "infra", fileConfig([{ path: "/etc/infra-only", text: "infra" }]));
      labelNode(sim, moved, (l) => (l["node-role.kubernetes.io/infra"] = ""));
      const infra = await sim.until("infra pool rolled out", () => rolledOut(sim, "infra", "50-infra"));
      assert.equal(status<PoolStatus>(infra).machineCount, 1);
      assert.match(poolSpec(infra).configuration.name, /^rendered-infra-[0-9a-f]{32}$/);
      // Inherits every worker config plus its own.
      const source = poolSpec(infra).configuration.source.map((s) => s.name);
      assert.ok(
        source.includes("00-worker") && source.includes("99-worker-ssh") && source.includes("50-infra"),
      );
      assert.equal(annotation(sim.get(K.node, moved), CURRENT_CONFIG), poolSpec(infra).configuration.name);
      const worker = await sim.until(
        "worker counts two",
        () => status<PoolStatus>(sim.get(K.pool, "worker")).machineCount === 2 && sim.get(K.pool, "worker"),
      );
      assert.equal(status<PoolStatus>(worker).updatedMachineCount, 2);
    });

    it("stops managing a node that loses its worker label and has no infra pool", async () => {
      const [moved] = sim.cluster.workerNodes;
      labelNode(sim, moved, (l) => {
        delete l["node-role.kubernetes.io/worker"];
        l["node-role.kubernetes.io/infra"] = "";
      });
      await sim.until(
        "worker counts two",
        () => status<PoolStatus>(sim.get(K.pool, "worker")).machineCount === 2,
      );
      assert.equal(status<PoolStatus>(sim.get(K.pool, "master")).machineCount, 3);
    });
  });
});

describe("MCO: rendering", () => {
  let sim: Sim;
  beforeEach(() => (sim = startSim()));
  afterEach(() => sim.stop());

  it("merges MachineConfigs in lexical order of names: the later name wins a file", async () => {
    createMachineConfig(sim, "60-b", "worker", fileConfig([{ path: "/etc/same", text: "from 60-b" }]));
    createMachineConfig(sim, "50-a", "worker", fileConfig([{ path: "/etc/same", text: "from 50-a" }]));
    const p = await sim.until("rendered", () => {
      const w = sim.get(K.pool, "worker");
      return (
        poolSpec(w).configuration.source.some((s) => s.name === "60-b") &&
        poolSpec(w).configuration.source.some((s) => s.name === "50-a") &&
        w
      );
    });
    const rendered = sim.get(K.machineConfig, poolSpec(p).configuration.name)!;
    const file = (
      rendered.spec as {
        config: { storage: { files: Array<{ path: string; contents: { source: string } }> } };
      }
    ).config.storage.files.find((f) => f.path === "/etc/same");
    assert.equal(decodeDataUrl(file?.contents.source), "from 60-b");
    assert.deepEqual(
      poolSpec(p).configuration.source.map((s) => s.name),
      [...poolSpec(p).configuration.source.map((s) => s.name)].sort(),
    );
    assert.equal(rendered.metadata.ownerReferences?.[0].kind, "MachineConfigPool");
  });

  it("lets a custom pool's own configs override inherited worker configs regardless of name", () => {
    const mc = (name: string, role: string, text: string): KubeObject => ({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: { name, labels: { [ROLE]: role } },
      spec: fileConfig([{ path: "/etc/x", text }]),
    });
    const merged = mergeMachineConfigs([
      mc("90-worker-x", "worker", "worker"),
      mc("10-infra-x", "infra", "infra"),
    ]);
    assert.equal(decodeDataUrl(merged.config?.storage?.files?.[0].contents?.source), "infra");
  });

  it("names the rendered config after its content: a change renames it, reverting restores the name", async () => {
    const before = poolSpec(sim.get(K.pool, "worker")).configuration.name;
    createMachineConfig(sim, "50-x", "worker", fileConfig([{ path: "/etc/x", text: "one" }]));
    const first = (await sim.until("rendered with 50-x", () => {
      const w = sim.get(K.pool, "worker");
      return (
        poolSpec(w).configuration.source.some((s) => s.name === "50-x") && poolSpec(w).configuration.name
      );
    })) as string;
    assert.notEqual(first, before);
    sim.store.mutate(
      keyOf(K.machineConfig, "50-x"),
      (o) => (o.spec = fileConfig([{ path: "/etc/x", text: "two" }])),
    );
    const second = await sim.until("re-rendered", () => {
      const name = poolSpec(sim.get(K.pool, "worker")).configuration.name;
      return name !== first && name;
    });
    assert.match(second, /^rendered-worker-[0-9a-f]{32}$/);
    sim.store.delete(keyOf(K.machineConfig, "50-x"));
    await sim.until(
      "back to the seeded name",
      () => poolSpec(sim.get(K.pool, "worker")).configuration.name === before,
    );
    assert.equal(
      renderedName("worker", mergeMachineConfigs([])),
      renderedName("worker", mergeMachineConfigs([])),
    );
  });

  it("names a rendered config by the bytes of its merged spec, unchanged since the name was first given", () => {
    const spec = {
      config: {
        ignition: { version: "3.4.0" },
        storage: { files: [{ path: "/etc/a", contents: { source: "data:,a" } }] },
      },
      extensions: [],
      fips: false,
      kernelArguments: ["nosmt"],
      kernelType: "default",
      osImageURL: "quay.io/x",
    };
    // Key order does not matter; the name is the one the simulator gave before primitives/stable-json.
    const reordered = {
      osImageURL: "quay.io/x",
      kernelType: "default",
      kernelArguments: ["nosmt"],
      fips: false,
      extensions: [],
      config: spec.config,
    };
    for (const s of [spec, reordered])
      assert.equal(renderedName("infra", s as never), "rendered-infra-f03a225e144c84e6562698d5e783e107");
  });

  it("regenerates a rendered config deleted by hand", async () => {
    const name = poolSpec(sim.get(K.pool, "worker")).configuration.name;
    const uid = sim.get(K.machineConfig, name)?.metadata.uid;
    sim.store.delete(keyOf(K.machineConfig, name));
    const again = await sim.until("regenerated", () => {
      const mc = sim.get(K.machineConfig, name);
      return mc && mc.metadata.uid !== uid && mc;
    });
    assert.equal(again.metadata.ownerReferences?.[0].name, "worker");
  });

  for (const [what, spec, message] of [
    ["an unknown kernelType", { kernelType: "fancy" }, "kernelType=fancy is invalid"],
    [
      "an Ignition version the MCO does not know",
      fileConfig([{ path: "/etc/a", text: "a" }], "9.9.0"),
      "parsing Ignition config failed: unknown version. Supported spec versions: 2.2,3.0,3.1,3.2,3.3,3.4,3.5",
    ],
    ["a relative file path", fileConfig([{ path: "etc/a", text: "a" }]), "path not absolute"],
    [
      "a user other than core",
      {
        config: {
          ignition: { version: "3.2.0" },
          passwd: { users: [{ name: "admin", sshAuthorizedKeys: ["ssh-ed25519 AAAA"] }] },
        },
      },
      'base config "50-bad"',
    ],
  ] as const) {
    it(`goes RenderDegraded on ${what}, keeps the old target, and recovers when the config goes`, async () => {
      const target = poolSpec(sim.get(K.pool, "worker")).configuration.name;
      createMachineConfig(sim, "50-bad", "worker", spec as Record<string, unknown>);
      const p = await sim.until(
        "RenderDegraded",
        () =>
          condition(sim.get(K.pool, "worker"), "Degraded")?.status === "True" && sim.get(K.pool, "worker"),
      );
      const rd = condition(p, "RenderDegraded")!;
      assert.equal(rd.status, "True");
      assert.ok(rd.message?.startsWith("Failed to render configuration for pool worker: "), rd.message);
      assert.ok(rd.message?.includes(message), rd.message);
      assert.equal(poolSpec(p).configuration.name, target);
      sim.store.delete(keyOf(K.machineConfig, "50-bad"));
      await sim.until(
        "healthy again",
        () => condition(sim.get(K.pool, "worker"), "Degraded")?.status === "False",
      );
      assert.equal(condition(sim.get(K.pool, "worker"), "RenderDegraded")?.status, "False");
    });
  }

  it("turns a KubeletConfig into 99-<pool>-generated-kubelet and reports Success", async () => {
    sim.store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "KubeletConfig",
      metadata: { name: "max-pods" },
      spec: {
        machineConfigPoolSelector: {
          matchLabels: { "pools.operator.machineconfiguration.openshift.io/worker": "" },
        },
        kubeletConfig: { maxPods: 500 },
      },
    });
    const mc = await sim.until("generated MC", () => sim.get(K.machineConfig, "99-worker-generated-kubelet"));
    assert.equal(mc.metadata.labels?.[ROLE], "worker");
    assert.equal(mc.metadata.ownerReferences?.[0].kind, "KubeletConfig");
    const files = (
      mc.spec as { config: { storage: { files: Array<{ path: string; contents: { source: string } }> } } }
    ).config.storage.files;
    const conf = JSON.parse(
      decodeDataUrl(files.find((f) => f.path === "/etc/kubernetes/kubelet.conf")?.contents.source),
    );
    assert.equal(conf.maxPods, 500);
    assert.equal(conf.kind, "KubeletConfiguration");
    const kc = await sim.until("KubeletConfig status", () => {
      const o = sim.get(K.kubeletConfig, "max-pods");
      return condition(o, "Success")?.status === "True" && o;
    });
    assert.equal(condition(kc, "Accepted")?.status, "True");
    assert.equal(status<{ observedGeneration: number }>(kc).observedGeneration, kc.metadata.generation);
    assert.deepEqual(kc.metadata.finalizers, ["99-worker-generated-kubelet"]);
    await sim.until("rolled out", () => rolledOut(sim, "worker", "99-worker-generated-kubelet"));
    assert.equal(
      poolSpec(sim.get(K.pool, "master")).configuration.source.some(
        (s) => s.name.includes("generated-kubelet") && s.name.startsWith("99-"),
      ),
      false,
    );

    const generated = mc.metadata.uid;
    sim.store.delete(keyOf(K.machineConfig, "99-worker-generated-kubelet"));
    await sim.until("generated MC put back", () => {
      const again = sim.get(K.machineConfig, "99-worker-generated-kubelet");
      return again && again.metadata.uid !== generated;
    });

    sim.store.delete(keyOf(K.kubeletConfig, "max-pods"));
    await sim.until(
      "generated MC removed with the KubeletConfig",
      () => !sim.get(K.machineConfig, "99-worker-generated-kubelet") && !sim.get(K.kubeletConfig, "max-pods"),
    );
  });

  it("suffixes the generated config of a second KubeletConfig on the same pool", async () => {
    const kubeletConfig = (name: string, maxPods: number) =>
      sim.store.create({
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "KubeletConfig",
        metadata: { name },
        spec: {
          machineConfigPoolSelector: {
            matchLabels: { "pools.operator.machineconfiguration.openshift.io/worker": "" },
          },
          kubeletConfig: { maxPods },
        },
      });
    kubeletConfig("first", 300);
    await sim.until("first generated", () => sim.get(K.machineConfig, "99-worker-generated-kubelet"));
    kubeletConfig("second", 400);
    const second = await sim.until("second generated", () =>
      sim.get(K.machineConfig, "99-worker-generated-kubelet-1"),
    );
    assert.equal(second.metadata.ownerReferences?.[0].name, "second");
    assert.equal(
      annotation(sim.get(K.kubeletConfig, "second"), "machineconfiguration.openshift.io/mc-name-suffix"),
      "1",
    );
  });

  it("goes RenderDegraded for a pool whose selector matches no MachineConfig", async () => {
    sim.store.create(pool("empty", "empty", ["nothing"]));
    const p = await sim.until("RenderDegraded", () => {
      const o = sim.get(K.pool, "empty");
      return condition(o, "RenderDegraded")?.status === "True" && o;
    });
    assert.equal(
      condition(p, "RenderDegraded")?.message,
      "Failed to render configuration for pool empty: no MachineConfigs found matching selector machineconfiguration.openshift.io/role in (nothing)",
    );
  });

  it("reports Failure on a KubeletConfig setting a field the MCO forbids, and generates nothing", async () => {
    sim.store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "KubeletConfig",
      metadata: { name: "bad" },
      spec: {
        machineConfigPoolSelector: {
          matchLabels: { "pools.operator.machineconfiguration.openshift.io/worker": "" },
        },
        kubeletConfig: { clusterDomain: "evil.local" },
      },
    });
    const kc = await sim.until(
      "Failure",
      () => condition(sim.get(K.kubeletConfig, "bad"), "Failure") && sim.get(K.kubeletConfig, "bad"),
    );
    assert.equal(
      condition(kc, "Failure")?.message,
      "Error: KubeletConfiguration: clusterDomain is not allowed to be set, but contains: evil.local",
    );
    assert.equal(condition(kc, "Accepted")?.status, "False");
    assert.equal(sim.get(K.machineConfig, "99-worker-generated-kubelet"), undefined);
  });

  it("turns a ContainerRuntimeConfig into 99-<pool>-generated-containerruntime", async () => {
    sim.store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "ContainerRuntimeConfig",
      metadata: { name: "pids" },
      spec: {
        machineConfigPoolSelector: {
          matchLabels: { "pools.operator.machineconfiguration.openshift.io/worker": "" },
        },
        containerRuntimeConfig: { pidsLimit: 2048, logLevel: "debug" },
      },
    });
    const mc = await sim.until("generated MC", () =>
      sim.get(K.machineConfig, "99-worker-generated-containerruntime"),
    );
    const files = (
      mc.spec as { config: { storage: { files: Array<{ path: string; contents: { source: string } }> } } }
    ).config.storage.files;
    assert.match(
      decodeDataUrl(
        files.find((f) => f.path === "/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit")?.contents.source,
      ),
      /pids_limit = 2048/,
    );
    await sim.until(
      "Success",
      () => condition(sim.get(K.containerRuntimeConfig, "pids"), "Success")?.status === "True",
    );
  });
});

describe("MCO: rollouts", () => {
  let sim: Sim;
  beforeEach(() => (sim = startSim()));
  afterEach(() => sim.stop());

  it("reports Updated for the OLD config right after a MachineConfig is created, then rolls to the new one", async () => {
    const old = poolSpec(sim.get(K.pool, "worker")).configuration.name;
    createMachineConfig(sim, "50-file", "worker", fileConfig([{ path: "/etc/mco-test-file", text: "x" }]));
    // The trap the library's waiters avoid: nothing rendered yet, and the pool still says Updated.
    const early = sim.get(K.pool, "worker");
    assert.equal(condition(early, "Updated")?.status, "True");
    assert.equal(status<PoolStatus>(early).configuration.name, old);

    const seen = { updating: false, oldWhileUpdating: true, counts: [] as number[] };
    const unwatch = sim.watch(({ object }) => {
      if (object.kind !== "MachineConfigPool" || object.metadata.name !== "worker") return;
      const s = status<PoolStatus>(object);
      if (condition(object, "Updating")?.status === "True") {
        seen.updating = true;
        seen.counts.push(s.updatedMachineCount);
        if (s.configuration.name !== old) seen.oldWhileUpdating = false;
        assert.equal(condition(object, "Updated")?.status, "False");
        assert.equal(
          condition(object, "Updating")?.message,
          `All nodes are updating to MachineConfig ${poolSpec(object).configuration.name}`,
        );
      }
    });
    const done = await sim.until("rolled out", () => rolledOut(sim, "worker", "50-file"));
    unwatch();
    assert.ok(
      seen.updating && seen.oldWhileUpdating,
      "status.configuration stays on the old config until every node is updated",
    );
    assert.ok(
      seen.counts.some((c) => c > 0 && c < 3),
      "updatedMachineCount counts nodes as they finish",
    );
    const s = status<PoolStatus>(done);
    assert.deepEqual(
      [
        s.machineCount,
        s.updatedMachineCount,
        s.readyMachineCount,
        s.unavailableMachineCount,
        s.degradedMachineCount,
      ],
      [3, 3, 3, 0, 0],
    );
    assert.equal(s.observedGeneration, done.metadata.generation);
    assert.equal(
      condition(done, "Updated")?.message,
      `All nodes are updated with MachineConfig ${poolSpec(done).configuration.name}`,
    );
    for (const n of workerNodes(sim)) {
      assert.equal(annotation(n, CURRENT_CONFIG), poolSpec(done).configuration.name);
      assert.equal(annotation(n, MCD_STATE), "Done");
      assert.ok(isNodeReady(n));
    }
    // Pools update independently: master was never touched.
    assert.equal(status<PoolStatus>(sim.get(K.pool, "master")).updatedMachineCount, 3);
  });

  it("walks each node through Working, cordon, reboot (NotReady), uncordon, Done, one at a time by default", async () => {
    const trace: Record<string, string[]> = {};
    let maxAtOnce = 0;
    const unwatch = sim.watch(({ object }) => {
      if (object.kind !== "Node" || !sim.cluster.workerNodes.includes(object.metadata.name)) return;
      const steps = (trace[object.metadata.name] ??= []);
      const a = object.metadata.annotations ?? {};
      const mark = `${a[MCD_STATE]}${(object.spec as { unschedulable?: boolean }).unschedulable ? "+cordoned" : ""}${
        (object.status as { conditions: Array<{ type: string; status: string }> }).conditions.find(
          (c) => c.type === "Ready",
        )?.status !== "True"
          ? "+notready"
          : ""
      }`;
      if (steps[steps.length - 1] !== mark) steps.push(mark);
      const busy = workerNodes(sim).filter(
        (n) =>
          annotation(n, MCD_STATE) !== "Done" ||
          !isNodeReady(n) ||
          annotation(n, DESIRED_CONFIG) !== annotation(n, CURRENT_CONFIG),
      );
      maxAtOnce = Math.max(maxAtOnce, busy.length);
    });
    createMachineConfig(sim, "50-unit", "worker", {
      config: {
        ignition: { version: "3.2.0" },
        systemd: {
          units: [{ name: "hello.service", enabled: true, contents: "[Unit]\nDescription=hello\n" }],
        },
      },
    });
    await sim.until("rolled out", () => rolledOut(sim, "worker", "50-unit"));
    unwatch();
    assert.equal(maxAtOnce, 1);
    for (const steps of Object.values(trace)) {
      assert.deepEqual(steps.slice(steps.indexOf("Working+cordoned")), [
        "Working+cordoned",
        "Working+cordoned+notready",
        "Working+cordoned",
        "Done",
      ]);
    }
  });

  it("never has more than maxUnavailable nodes unavailable, and uses the capacity it has", async () => {
    // Six workers so that maxUnavailable 2 leaves room to check both bounds.
    for (const ms of sim.cluster.workerMachineSets) {
      sim.store.mutate(
        keyOf(K.machineSet, ms, "openshift-machine-api"),
        (o) => ((o.spec as { replicas: number }).replicas = 2),
      );
    }
    await sim.until("six workers updated", () => {
      const s = status<PoolStatus>(sim.get(K.pool, "worker"));
      return s.machineCount === 6 && s.updatedMachineCount === 6;
    });
    sim.store.mutate(
      keyOf(K.pool, "worker"),
      (p) => ((p.spec as Record<string, unknown>).maxUnavailable = "34%"),
    );
    let peak = 0;
    const unwatch = sim.watch(() => {
      const members = sim.store
        .list("v1", "Node")
        .filter((n) => n.metadata.labels?.["node-role.kubernetes.io/worker"] === "");
      const unavailable = members.filter(
        (n) =>
          !isNodeReady(n) ||
          annotation(n, MCD_STATE) !== "Done" ||
          annotation(n, DESIRED_CONFIG) !== annotation(n, CURRENT_CONFIG),
      ).length;
      peak = Math.max(peak, unavailable);
      assert.ok(unavailable <= 2, `${unavailable} workers unavailable at once with maxUnavailable 34% of 6`);
    });
    createMachineConfig(sim, "50-file", "worker", fileConfig([{ path: "/etc/f", text: "f" }]));
    await sim.until("rolled out", () => rolledOut(sim, "worker", "50-file"));
    unwatch();
    assert.equal(peak, 2);
  });

  it("holds a paused pool: renders and publishes the target, but no node moves until unpaused", async () => {
    const old = poolSpec(sim.get(K.pool, "worker")).configuration.name;
    sim.store.mutate(keyOf(K.pool, "worker"), (p) => ((p.spec as Record<string, unknown>).paused = true));
    createMachineConfig(sim, "50-file", "worker", fileConfig([{ path: "/etc/f", text: "f" }]));
    const held = await sim.until("paused status for the new target", () => {
      const p = sim.get(K.pool, "worker");
      const target = poolSpec(p).configuration.name;
      return (
        target !== old &&
        status<PoolStatus>(p).observedGeneration === p?.metadata.generation &&
        condition(p, "Updating")?.message === `Pool is paused; will not update to MachineConfig ${target}` &&
        p
      );
    });
    assert.equal(condition(held, "Updating")?.status, "False");
    assert.equal(condition(held, "Updated")?.status, "False");
    assert.equal(status<PoolStatus>(held).configuration.name, old);
    assert.equal(status<PoolStatus>(held).updatedMachineCount, 0);
    for (const n of workerNodes(sim)) assert.equal(annotation(n, DESIRED_CONFIG), old);

    sim.store.mutate(keyOf(K.pool, "worker"), (p) => ((p.spec as Record<string, unknown>).paused = false));
    await sim.until("rolled out after unpausing", () => rolledOut(sim, "worker", "50-file"));
  });

  it("applies an SSH key change as the default sshkey policy says: no drain, no reboot", async () => {
    const seen = disruptions(sim);
    sim.store.mutate(keyOf(K.machineConfig, "99-worker-ssh"), (mc) => {
      (mc.spec as Record<string, unknown>).config = {
        ignition: { version: "3.2.0" },
        passwd: {
          users: [
            { name: "core", sshAuthorizedKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINEWKEY new@admin"] },
          ],
        },
      };
    });
    const before = status<PoolStatus>(sim.get(K.pool, "worker")).configuration.name;
    await sim.until("rolled out", () => {
      const p = rolledOut(sim, "worker");
      return p && status<PoolStatus>(p).configuration.name !== before;
    });
    assert.deepEqual(seen.stop(), { rebooted: false, cordoned: false });
  });

  it("reloads a service instead of rebooting as a declared node disruption policy says, once the operator merged it into the status", async () => {
    // pkg/operator/sync.go syncMachineConfiguration: status = MergeClusterPolicies(spec), observedGeneration.
    const chronyd = { type: "Reload", reload: { serviceName: "chronyd.service" } };
    sim.store.mutate(keyOf(K.machineConfiguration, "cluster"), (m) => {
      (m.spec as Record<string, unknown>).nodeDisruptionPolicy = {
        files: [{ path: "/etc/chrony.d", actions: [chronyd] }],
      };
    });
    const merged = await sim.until("the merged policies in the status", () => {
      const m = sim.get(K.machineConfiguration, "cluster");
      const s = status<{
        observedGeneration?: number;
        nodeDisruptionPolicyStatus?: { clusterPolicies: { files: Array<{ path: string }> } };
      }>(m);
      return s.observedGeneration === m?.metadata.generation && s.nodeDisruptionPolicyStatus?.clusterPolicies;
    });
    // The defaults first, in apihelpers.go's order, then the spec's own entry.
    assert.equal(merged.files[0].path, "/var/lib/kubelet/config.json");
    assert.deepEqual(merged.files[merged.files.length - 1], { path: "/etc/chrony.d", actions: [chronyd] });

    const seen = disruptions(sim);
    createMachineConfig(
      sim,
      "50-chrony-pool",
      "worker",
      fileConfig([{ path: "/etc/chrony.d/pool.conf", text: "pool x" }]),
    );
    await sim.until("rolled out", () => rolledOut(sim, "worker", "50-chrony-pool"));
    assert.deepEqual(seen.stop(), { rebooted: false, cordoned: false });
    for (const n of sim.cluster.workerNodes) {
      const done = condition(sim.get(K.machineConfigNode, n), "UpdatePostActionComplete");
      // update.go executeReloadServiceNodeDisruptionAction's message.
      assert.equal(done?.message, "Node has reloaded service chronyd.service", n);
    }
  });

  it("degrades a node that must write outside /etc and /var, halts the rollout, and recovers when the config goes", async () => {
    createMachineConfig(sim, "50-usr", "worker", fileConfig([{ path: "/usr/bin/tool", text: "#!/bin/sh" }]));
    const p = await sim.until(
      "NodeDegraded",
      () =>
        condition(sim.get(K.pool, "worker"), "NodeDegraded")?.status === "True" && sim.get(K.pool, "worker"),
    );
    const degraded = workerNodes(sim).filter((n) => annotation(n, MCD_STATE) === "Degraded");
    assert.equal(degraded.length, 1);
    assert.equal(
      annotation(degraded[0], MCD_REASON),
      'failed to create directory "/usr/bin": mkdir /usr/bin: read-only file system',
    );
    assert.equal(status<PoolStatus>(p).degradedMachineCount, 1);
    assert.equal(condition(p, "Degraded")?.status, "True");
    // The failing node uses up maxUnavailable: no other node is targeted.
    assert.equal(
      workerNodes(sim).filter((n) => annotation(n, DESIRED_CONFIG) === poolSpec(p).configuration.name).length,
      1,
    );

    sim.store.delete(keyOf(K.machineConfig, "50-usr"));
    await sim.until("recovered", () => {
      const w = sim.get(K.pool, "worker");
      return condition(w, "Degraded")?.status === "False" && rolledOut(sim, "worker");
    });
  });

  // machine-config-operator pkg/controller/drain/drain_controller.go drainNode (the failed attempt on
  // the MachineConfigNode, its requeue and DrainThresholdExceeded), k8s.io/kubectl/pkg/drain evictPods
  // ("global timeout reached") and kubernetes pkg/registry/core/pod/storage/eviction.go
  // checkAndDecrement (429 while the budget allows no disruption).
  it("holds a drain on a pod whose PodDisruptionBudget cannot be met, says so on the MachineConfigNode, and drains once the budget goes", async () => {
    const before = poolSpec(sim.get(K.pool, "worker")).configuration.name;
    holdDrainWithBudget(sim.store);
    const pod = await sim.until("the guarded pod running", () =>
      sim.store
        .list("v1", "Pod", { namespace: "shop" })
        .find((p) => condition(p, "Ready")?.status === "True"),
    );
    const node = (pod.spec as { nodeName: string }).nodeName;
    const budget = await sim.until("the budget's status", () => {
      const b = sim.get(K.podDisruptionBudget, "web", "shop");
      return status<{ currentHealthy?: number }>(b).currentHealthy === 1 && b;
    });
    const { expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed } =
      status<Record<string, number>>(budget);
    assert.deepEqual([expectedPods, currentHealthy, desiredHealthy, disruptionsAllowed], [1, 1, 1, 0]);
    createMachineConfig(sim, "50-drain", "worker", fileConfig([{ path: "/etc/drain-test", text: "x" }]));
    const message = await sim.until("the failed drain on the MachineConfigNode", () => {
      const drained = condition(sim.get(K.machineConfigNode, node), "Drained");
      return drained?.message?.startsWith("Error:") && drained.status === "Unknown" && drained.message;
    });
    assert.match(
      message,
      new RegExp(
        `^Error: Node Drain has not succeeded\\. Error is: error when evicting pods/"${pod.metadata.name}" -n "shop": global timeout reached: 1m30s The drain will not be complete until desired drainer drain-rendered-worker-\\w+ matches current drainer`,
      ),
    );
    // Ten minutes on, the controller slows its retries down and says so in an event on the node.
    const event = await sim.until("DrainThresholdExceeded", () =>
      sim.store
        .list("v1", "Event")
        .find(
          (e) =>
            e.reason === "DrainThresholdExceeded" && (e.involvedObject as { name: string }).name === node,
        ),
    );
    assert.match(
      String(event.message),
      /^Drain failed\. Drain has been failing for more than 10 minutes\. Waiting 5 minutes then retrying\. Error message from drain: error when evicting pods/,
    );
    assert.equal(sim.get(K.node, node)?.metadata.annotations?.[CURRENT_CONFIG], before);
    sim.store.delete(keyOf(K.podDisruptionBudget, "web", "shop"));
    await sim.until("rolled out", () => rolledOut(sim, "worker", "50-drain"));
    const moved = sim.store.list("v1", "Pod", { namespace: "shop" });
    assert.ok(
      moved.every((p) => p.metadata.uid !== pod.metadata.uid),
      "the guarded pod was evicted once the budget went",
    );
  });
});
