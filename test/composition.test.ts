import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import * as components from "../components";
import { SharedArgs } from "../components/cluster/wait";
import { created, mocks, RegisteredResource, resetMocks, settle } from "./mocks";

/**
 * Components that compose others pass on every shared argument: the waiters and removal guards of a
 * component and of every component inside it reach the cluster with the component's kubeconfig and
 * provider, wait by its `wait` and within its `waitTimeouts`.
 */

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{ name: given, cluster: { server: "https://api.given.example.com:6443" } }]
users: [{ name: u, user: { token: given-token } }]
contexts: [{ name: x, context: { cluster: given, user: u } }]
current-context: x
`;
const TIMEOUTS = { create: "7m", update: "8m", delete: "9m" };
const WAIT_SECONDS = 480;
const DELETE_SECONDS = 540;
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const DYNAMIC = "pulumi-nodejs:dynamic:";
const WAITERS = [
  "MachineSetReady",
  "NodeLabelsAndTaints",
  "PoolRollout",
  "OperatorInstall",
  "ExtensionInstall",
  "WindowsNodesReady",
  "MachineAutoscalerReady",
];
/** Components that declare one object and nothing to wait for: they only pass on the provider (and kubeconfig). */
const WITHOUT_WAITERS = ["ClusterAutoscaler", "NodeDisruptionPolicy"];
const GUARDS = ["MachineSetRemoval", "NodeConfigRemoval", "OperatorRemoval", "ExtensionRemoval"];
/** Steps that change the cluster and wait, declared whether or not the component waits. */
const STEPS = ["CanaryNodes"];
const RSA_PEM = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;

/** Every component the library exports, declared with the shared args and what else it requires. */
const DECLARE: Record<string, (shared: SharedArgs) => void> = {
  InfraNodePool: (shared) =>
    new components.InfraNodePool("infra", {
      zones: ["us-east-2a"],
      autoscaling: { minReplicas: 1, maxReplicas: 2 },
      healthCheck: true,
      ...shared,
    }),
  NodePool: (shared) =>
    new components.NodePool("highmem", {
      role: "highmem",
      zones: ["us-east-2a"],
      taints: [{ key: "example.com/memory", value: "high", effect: "NoSchedule" }],
      ...shared,
    }),
  WindowsNodePool: (shared) =>
    new components.WindowsNodePool("win", {
      zones: ["us-east-2a"],
      privateKey: pulumi.secret(RSA_PEM),
      ...shared,
    }),
  OperatorSubscription: (shared) =>
    new components.OperatorSubscription("logging", {
      packageName: "cluster-logging",
      channel: "stable",
      ...shared,
    }),
  ClusterExtension: (shared) =>
    new components.ClusterExtension("gitops", { packageName: "openshift-gitops-operator", ...shared }),
  MachineConfigPool: (shared) => new components.MachineConfigPool("gpu", { ...shared }),
  CanaryPool: (shared) => new components.CanaryPool("canary", { nodes: ["w1"], ...shared }),
  ClusterAutoscaler: (shared) =>
    new components.ClusterAutoscaler("autoscaler", { provider: shared.provider }),
  NodeDisruptionPolicy: (shared) =>
    new components.NodeDisruptionPolicy("policy", {
      units: [{ name: "chronyd.service", actions: [{ type: "None" }] }],
      provider: shared.provider,
      kubeconfig: shared.kubeconfig,
    }),
  MachineConfig: (shared) =>
    new components.MachineConfig("99-worker-motd", {
      role: "worker",
      files: [{ path: "/etc/motd", contents: { text: "hi\n" } }],
      ...shared,
    }),
  KubeletConfig: (shared) =>
    new components.KubeletConfig("kubelet", { pool: "worker", kubeletConfig: { maxPods: 300 }, ...shared }),
  ContainerRuntimeConfig: (shared) =>
    new components.ContainerRuntimeConfig("crio", {
      pool: "worker",
      containerRuntimeConfig: { pidsLimit: 4096 },
      ...shared,
    }),
};

const kindOf = (r: RegisteredResource) => r.type.slice(DYNAMIC.length);

/** The waiters and removal guards registered, by kind. */
function clusterWaiters(): RegisteredResource[] {
  return created(new RegExp(`^${DYNAMIC}`)).filter((r) =>
    [...WAITERS, ...GUARDS, ...STEPS].includes(kindOf(r)),
  );
}

function revealed(value: unknown): unknown {
  const secret = value as Record<string, unknown>;
  assert.equal(secret?.[SECRET_SIG], "1b47061264138c4ac30d75fd1eb44270", "the kubeconfig is a secret");
  return secret.value;
}

describe("components pass the shared arguments to what they compose", () => {
  beforeEach(() => resetMocks());

  it("every exported component is covered here", () => {
    const exported = Object.entries(components)
      .filter(
        ([, value]) => typeof value === "function" && value.prototype instanceof pulumi.ComponentResource,
      )
      .map(([name]) => name);
    assert.deepEqual(exported.sort(), Object.keys(DECLARE).sort());
  });

  for (const [component, declare] of Object.entries(DECLARE)) {
    it(`${component}: every waiter and guard inside gets its kubeconfig, timeouts and provider`, async () => {
      // The waiters' kubeconfig must reach the provider's cluster (components/cluster/wait.ts).
      const provider = new k8s.Provider("cluster", { kubeconfig: KUBECONFIG });
      declare({ kubeconfig: KUBECONFIG, waitTimeouts: TIMEOUTS, provider });
      await settle();
      const waiters = clusterWaiters();
      if (!WITHOUT_WAITERS.includes(component))
        assert.ok(waiters.length > 0, `${component} declares waiters`);
      for (const r of waiters) {
        const what = `${kindOf(r)} ${r.name}`;
        assert.equal(revealed(r.inputs.kubeconfig), KUBECONFIG, what);
        if (WAITERS.includes(kindOf(r)) || STEPS.includes(kindOf(r)))
          assert.equal(r.inputs.timeoutSeconds, WAIT_SECONDS, what);
        if (!WAITERS.includes(kindOf(r))) assert.equal(r.inputs.deleteTimeoutSeconds, DELETE_SECONDS, what);
      }
      // Reads of cluster objects (facts, the worker MachineSet's image) included.
      for (const r of mocks.resources.filter((m) => m.type.startsWith("kubernetes:"))) {
        assert.match(r.provider ?? "", /::cluster-id$/, `${r.type} ${r.name} uses the given provider`);
      }
    });

    it(`${component}: with wait: false nothing inside waits, and no kubeconfig at hand is no error`, async () => {
      const ambient = process.env.KUBECONFIG;
      // No ambient kubeconfig, which the default provider's cluster would otherwise be compared with.
      process.env.KUBECONFIG = "/nonexistent/kubeconfig";
      try {
        declare({ wait: false, kubeconfig: KUBECONFIG });
        await settle();
        for (const r of clusterWaiters()) {
          assert.ok(
            [...GUARDS, ...STEPS].includes(kindOf(r)),
            `${kindOf(r)} ${r.name} is not declared with wait: false`,
          );
          assert.equal(revealed(r.inputs.kubeconfig), KUBECONFIG);
        }

        await resetMocks();
        declare({ wait: false });
        await settle();
        assert.deepEqual(
          clusterWaiters().map((r) => r.name),
          [],
        );
      } finally {
        process.env.KUBECONFIG = ambient;
      }
    });
  }
});
