import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import { created, mocks, poolHolds, resetMocks, settle, valueOf } from "../../test/mocks";
import { CanaryPool } from "./canary-pool";
import {
  ContainerRuntimeConfig,
  KubeletConfig,
  MachineConfig,
  MachineConfigPool,
} from "./machine-configuration";

const API = "kubernetes:machineconfiguration.openshift.io/v1";

describe("machine-configuration components", () => {
  beforeEach(() => resetMocks());

  it("render one object each, named after the resource unless a name is given", async () => {
    const pool = new MachineConfigPool("gpu", { maxUnavailable: "50%" });
    const mc = new MachineConfig("99-gpu-sysctl", {
      role: pool.objectName,
      files: [{ path: "/etc/sysctl.d/90-gpu.conf", contents: { text: "vm.max_map_count=262144\n" } }],
      kernelArguments: ["hugepages=64"],
    });
    const kubelet = new KubeletConfig("gpu-kubelet", {
      name: "gpu-max-pods",
      pool: "gpu",
      kubeletConfig: { maxPods: 300 },
    });
    new ContainerRuntimeConfig("gpu-crio", { pool: "gpu", containerRuntimeConfig: { pidsLimit: 4096 } });
    assert.equal(await valueOf(mc.objectName), "99-gpu-sysctl");
    assert.equal(await valueOf(kubelet.objectName), "gpu-max-pods");
    await settle();

    const [poolObject] = created(`${API}:MachineConfigPool`);
    assert.equal((poolObject.inputs.spec as any).maxUnavailable, "50%");
    const [machineConfig] = created(`${API}:MachineConfig`);
    assert.deepEqual((machineConfig.inputs.metadata as any).labels, {
      "machineconfiguration.openshift.io/role": "gpu",
    });
    const file = (machineConfig.inputs.spec as any).config.storage.files[0];
    assert.equal(file.path, "/etc/sysctl.d/90-gpu.conf");
    assert.equal(file.mode, 0o644);
    assert.equal(
      decodeURIComponent(file.contents.source.replace(/^data:,/, "")),
      "vm.max_map_count=262144\n",
    );
    const [crio] = created(`${API}:ContainerRuntimeConfig`);
    assert.deepEqual((crio.inputs.spec as any).machineConfigPoolSelector, {
      matchLabels: { "pools.operator.machineconfiguration.openshift.io/gpu": "" },
    });
  });

  it("wait for the pool to roll each object out, with a content hash that changes only with the content", async () => {
    const chrony = (text: string) =>
      new MachineConfig("99-infra-chrony", {
        role: "infra",
        files: [{ path: "/etc/chrony.conf", contents: { text } }],
      });
    const waiterInputs = async (text: string) => {
      await resetMocks();
      await valueOf(chrony(text).renderedConfig);
      await settle();
      return mocks.resources.find((r) => r.type === "pulumi-nodejs:dynamic:PoolRollout")!.inputs;
    };
    const first = await waiterInputs("pool a iburst\n");
    assert.equal(first.pool, "infra");
    assert.deepEqual(first.machineConfigs, ["99-infra-chrony"]);
    assert.match(
      JSON.stringify(first.kubeconfig),
      /4dabf18193072939515e22adb298388d/,
      "the kubeconfig must be a secret",
    );
    assert.equal((await waiterInputs("pool a iburst\n")).contentHash, first.contentHash);
    assert.notEqual((await waiterInputs("pool b iburst\n")).contentHash, first.contentHash);

    await resetMocks();
    new KubeletConfig("infra-kubelet", { pool: "infra", kubeletConfig: { maxPods: 300 }, wait: false });
    await settle();
    // No waiter; only the baseline that keeps the inputs for the next preview, which reads nothing.
    assert.deepEqual(
      mocks.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic")).map((r) => r.type),
      ["pulumi-nodejs:dynamic:RolloutBaseline"],
    );
  });

  it("guard the removal of node configuration, but not of a pool, with a NodeConfigRemoval declared first", async () => {
    new MachineConfigPool("gpu");
    new MachineConfig("99-gpu-sysctl", { role: "gpu", kernelArguments: ["hugepages=64"] });
    new KubeletConfig("gpu-kubelet", { pool: "gpu", kubeletConfig: { maxPods: 300 } });
    new ContainerRuntimeConfig("gpu-crio", { pool: "gpu", containerRuntimeConfig: { pidsLimit: 4096 } });
    await settle();
    const removals = created("pulumi-nodejs:dynamic:NodeConfigRemoval").map((r) => [
      r.name,
      r.inputs.pool,
      r.inputs.kind,
      r.inputs.name,
    ]);
    assert.deepEqual(removals, [
      ["99-gpu-sysctl-removal", "gpu", "MachineConfig", "99-gpu-sysctl"],
      ["gpu-kubelet-removal", "gpu", "KubeletConfig", "gpu-kubelet"],
      ["gpu-crio-removal", "gpu", "ContainerRuntimeConfig", "gpu-crio"],
    ]);
  });

  const bad: Array<[string, () => pulumi.ComponentResource & { objectName: pulumi.Output<string> }, string]> =
    [
      ["a custom pool named worker", () => new MachineConfigPool("worker"), "name"],
      ["maxUnavailable 0", () => new MachineConfigPool("infra", { maxUnavailable: 0 }), "maxUnavailable"],
      [
        "maxUnavailable over 100%",
        () => new MachineConfigPool("infra", { maxUnavailable: "150%" }),
        "maxUnavailable",
      ],
      [
        "a file outside /etc and /var",
        () =>
          new MachineConfig("99-x", {
            role: "infra",
            files: [{ path: "/usr/local/bin/x", contents: { text: "" } }],
          }),
        "files[0].path",
      ],
      [
        "a file mode that is not octal",
        () =>
          new MachineConfig("99-x", {
            role: "infra",
            files: [{ path: "/etc/x", mode: "0999", contents: { text: "" } }],
          }),
        "files[0].mode",
      ],
      [
        "an unknown kernelType",
        () => new MachineConfig("99-x", { role: "infra", kernelType: "rt" }),
        "kernelType",
      ],
      [
        "Ignition 2.2.0",
        () => new MachineConfig("99-x", { role: "infra", ignitionVersion: "2.2.0" }),
        "ignitionVersion",
      ],
      [
        "a unit without a suffix",
        () =>
          new MachineConfig("99-x", {
            role: "infra",
            systemd: { units: [{ name: "chronyd", enabled: true }] },
          }),
        "systemd.units[0].name",
      ],
      [
        "the same path twice",
        () =>
          new MachineConfig("99-x", {
            role: "infra",
            files: [
              { path: "/etc/a", contents: { text: "1" } },
              { path: "/etc/a", contents: { text: "2" } },
            ],
          }),
        "files[1].path",
      ],
      [
        "a bad CRI-O log level",
        () =>
          new ContainerRuntimeConfig("c", {
            pool: "infra",
            containerRuntimeConfig: { logLevel: "loud" as "info" },
          }),
        "containerRuntimeConfig.logLevel",
      ],
    ];
  for (const [what, make, propertyPath] of bad) {
    it(`rejects ${what} at ${propertyPath}`, async () => {
      await assert.rejects(valueOf(make().objectName), (e: unknown) => {
        assert.ok(pulumi.InputPropertyError.isInstance(e), `not an InputPropertyError: ${String(e)}`);
        assert.equal(e.propertyPath, propertyPath);
        // The reason says what is allowed; the message puts the path (and the component) in front of it.
        assert.ok(e.message.endsWith(`${propertyPath}: ${e.reason}`), e.message);
        return true;
      });
    });
  }

  /** The PoolRollout waiters declared, as `<name> <pool>`, sorted. */
  const poolRollouts = () =>
    created("pulumi-nodejs:dynamic:PoolRollout")
      .map((r) => `${r.name} ${r.inputs.pool}`)
      .sort();

  /** Fails the test unless the output `make` declares is refused at `path` for `reason`. */
  const refused = async (make: () => pulumi.Output<unknown>, path: string, reason: RegExp) => {
    await resetMocks();
    await assert.rejects(valueOf(make()), (e: unknown) => {
      assert.ok(pulumi.InputPropertyError.isInstance(e), String(e));
      assert.equal(e.propertyPath, path);
      assert.match(e.reason, reason);
      return true;
    });
  };

  it("a pool after the workers: paused before and resumed after each object it renders, the worker config it inherits waited for on it; bad orders refused", async () => {
    new MachineConfigPool("canary", { rollOutAfter: ["worker"] });
    new MachineConfig("99-worker-ntp", {
      role: "worker",
      files: [{ path: "/etc/ntp.conf", contents: { text: "pool ntp.example.com\n" } }],
    });
    new MachineConfig("99-infra-ntp", {
      role: "infra",
      files: [{ path: "/etc/ntp.conf", contents: { text: "pool ntp.example.com\n" } }],
    });
    await settle();
    assert.deepEqual(poolHolds(), [
      "99-worker-ntp-canary-pause: pause canary after worker",
      "99-worker-ntp-canary-resume: resume canary after worker",
      "canary-canary-pause: pause canary after worker",
      "canary-canary-resume: resume canary after worker",
    ]);
    assert.deepEqual(poolRollouts(), [
      "99-infra-ntp-rollout infra",
      "99-worker-ntp-canary-rollout canary",
      "99-worker-ntp-rollout worker",
      "canary-rollout canary",
    ]);
    await refused(
      () => new MachineConfigPool("a", { rollOutAfter: ["a"] }).objectName,
      "rollOutAfter",
      /cannot roll out after itself/,
    );
    await refused(
      () => new MachineConfigPool("a", { rollOutAfter: ["w"], paused: true }).objectName,
      "rollOutAfter",
      /leave paused out/,
    );
    await refused(
      () => new MachineConfigPool("a", { rollOutAfter: ["Worker"] }).objectName,
      "rollOutAfter",
      /must list pool names/,
    );
    await refused(
      () => {
        new MachineConfigPool("b", { rollOutAfter: ["a"] });
        return new MachineConfigPool("a", { rollOutAfter: ["b"] }).objectName;
      },
      "rollOutAfter",
      /b already rolls out after a: the order has a cycle/,
    );
  });

  it("a canary of the workers: its pool, its nodes placed after it, worker held until both and the canary's waiter of each worker object are done; bad input refused", async () => {
    const canary = new CanaryPool("canary", { nodes: ["w3"] });
    new MachineConfig("99-worker-ntp", {
      role: "worker",
      files: [{ path: "/etc/ntp.conf", contents: { text: "pool ntp.example.com\n" } }],
    });
    await settle();
    assert.equal(canary.poolName, "canary");
    const pools = created("kubernetes:machineconfiguration.openshift.io/v1:MachineConfigPool");
    assert.deepEqual(
      pools.map((p) => (p.inputs.spec as { nodeSelector: unknown }).nodeSelector),
      [{ matchLabels: { "node-role.kubernetes.io/canary": "" } }],
    );
    const placed = created("pulumi-nodejs:dynamic:CanaryNodes").map((r) => [
      r.name,
      r.inputs.pool,
      r.inputs.parent,
      r.inputs.nodes,
    ]);
    assert.deepEqual(placed, [["canary-nodes", "canary", "worker", ["w3"]]]);
    assert.deepEqual(poolHolds(), [
      "99-worker-ntp-worker-pause: pause worker after canary",
      "99-worker-ntp-worker-resume: resume worker after canary",
    ]);
    assert.deepEqual(poolRollouts(), [
      "99-worker-ntp-canary-rollout canary",
      "99-worker-ntp-rollout worker",
      "canary-rollout canary",
    ]);
    await refused(() => new CanaryPool("c", { nodes: [] }).labelled, "nodes", /one or more worker nodes/);
    await refused(
      () => {
        new CanaryPool("gpu", { nodes: ["w1"] });
        return new MachineConfigPool("gpu").objectName;
      },
      "name",
      /a CanaryPool of the program is named gpu/,
    );
    await refused(
      () => new CanaryPool("c", { nodes: ["w1"], name: "worker" }).labelled,
      "name",
      /a pool every cluster already has/,
    );
    await refused(
      () => new CanaryPool("c", { nodes: ["w1"], name: pulumi.output("c") as never }).labelled,
      "name",
      /plain string/,
    );
    await refused(
      () => {
        new CanaryPool("c", { nodes: ["w1"] });
        return new CanaryPool("d", { nodes: ["w2"], name: "c" }).labelled;
      },
      "name",
      /another CanaryPool of the program is named c/,
    );
    await refused(
      () => {
        new MachineConfigPool("c", { rollOutAfter: ["worker"] });
        return new CanaryPool("c-canary", { nodes: ["w2"], name: "c" }).labelled;
      },
      "name",
      /MachineConfigPool "c" declares pool c: a canary needs a pool of its own/,
    );
  });
});
