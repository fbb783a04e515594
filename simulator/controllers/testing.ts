/**
 * Test scaffolding: a seeded MemoryStore with controllers on a fast clock, and `until`, which waits for
 * a condition by watching store events (no polling, no sleeps) with a generous bound so a broken
 * controller fails the test instead of hanging it.
 */
import { Clock, createClock } from "../clock";
import { SeededCluster, seedCluster } from "../cluster/seed";
import { PlatformName } from "../cluster/platforms";
import { MemoryStore } from "../store/memory-store";
import { KubeObject, StoreEvent } from "../store/types";
import { RunningControllers, startControllers } from "./index";
import { K, KindRef, keyOf } from "./util";
import type { Delays } from "./context";

/** Fast enough for a 3-node rollout in well under a second, slow enough to observe every step. */
export const TEST_SPEED = 1000;
/** Bound of any single wait; generous, it only turns a hang into a readable failure. */
const WAIT_BOUND_MS = 8000;

export interface Sim {
  store: MemoryStore;
  clock: Clock;
  controllers: RunningControllers;
  cluster: SeededCluster;
  stop(): void;
  get(kind: KindRef, name: string, namespace?: string): KubeObject | undefined;
  /** Resolves with the first truthy value of `check`, evaluated now and after every store event. */
  until<T>(what: string, check: () => T | undefined | false | null): Promise<T>;
  /** Calls `observe` on every store event until stopped; returns the unsubscribe function. */
  watch(observe: (event: StoreEvent) => void): () => void;
}

/** `delays` overrides simulated durations: a test of the healthy path holds OLM's install timeout off. */
export function startSim(platform: PlatformName = "aws", speed = TEST_SPEED, delays?: Partial<Delays>): Sim {
  const clock = createClock(speed);
  const store = new MemoryStore({ now: () => clock.now() });
  const cluster = seedCluster(store, { platform, now: clock.now() });
  const controllers = startControllers({ store, clock, platform, delays });
  return {
    store,
    clock,
    controllers,
    cluster,
    stop() {
      controllers.stop();
      clock.stop();
    },
    get: (kind, name, namespace) => store.get(keyOf(kind, name, namespace)),
    watch: (observe) => store.subscribe(observe),
    until<T>(what: string, check: () => T | undefined | false | null): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        let done = false;
        let unsubscribe = () => undefined as void;
        const finish = (error: Error | undefined, value?: T) => {
          if (done) return;
          done = true;
          unsubscribe();
          clearTimeout(timer);
          if (error) reject(error);
          else resolve(value as T);
        };
        const evaluate = () => {
          try {
            const value = check();
            if (value) finish(undefined, value);
          } catch (error) {
            finish(error as Error);
          }
        };
        const timer = setTimeout(() => finish(new Error(`timed out waiting for ${what}`)), WAIT_BOUND_MS);
        unsubscribe = store.subscribe(() => queueMicrotask(evaluate));
        evaluate();
      });
    },
  };
}

export { K };

type Labels = Record<string, string>;

/** A MachineSet cloned from the installer's worker MachineSet of the first zone, as seed 001 builds one. */
export function machineSetFrom(
  sim: Sim,
  name: string,
  options: {
    replicas?: number;
    nodeLabels?: Labels;
    taints?: unknown[];
    machineLabels?: Labels;
    providerSpec?: Record<string, unknown>;
  } = {},
): KubeObject {
  const base = sim.get(K.machineSet, sim.cluster.workerMachineSets[0], "openshift-machine-api")!;
  const template = structuredClone(
    (base.spec as { template: { metadata: { labels: Labels }; spec: Record<string, unknown> } }).template,
  );
  const selector = {
    "machine.openshift.io/cluster-api-cluster": sim.cluster.infrastructureId,
    "machine.openshift.io/cluster-api-machineset": name,
  };
  template.metadata.labels = { ...template.metadata.labels, ...selector, ...options.machineLabels };
  template.spec.metadata = options.nodeLabels ? { labels: options.nodeLabels } : {};
  if (options.taints) template.spec.taints = options.taints;
  const providerSpec = template.spec.providerSpec as { value: Record<string, unknown> };
  providerSpec.value = { ...providerSpec.value, ...options.providerSpec };
  return sim.store.create({
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
    metadata: {
      name,
      namespace: "openshift-machine-api",
      labels: { "machine.openshift.io/cluster-api-cluster": sim.cluster.infrastructureId },
    },
    spec: { replicas: options.replicas ?? 1, selector: { matchLabels: selector }, template },
  });
}

/**
 * A Deployment `<namespace>/web` of one pod on a worker and a PodDisruptionBudget `web` with
 * minAvailable 1 over it: no eviction of that pod is ever allowed, so a drain of its node is held until
 * the budget goes (disruption.ts).
 */
export function holdDrainWithBudget(store: Pick<Sim["store"], "create">, namespace = "shop"): void {
  const labels = { app: "web" };
  store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
  store.create({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          nodeSelector: { "node-role.kubernetes.io/worker": "" },
          containers: [{ name: "web", image: "registry.example.com/web:1" }],
        },
      },
    },
  });
  store.create({
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "web", namespace },
    spec: { minAvailable: 1, selector: { matchLabels: labels } },
  });
}

export function createMachineConfig(
  sim: Sim,
  name: string,
  role: string,
  spec: Record<string, unknown>,
): KubeObject {
  return sim.store.create({
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name, labels: { "machineconfiguration.openshift.io/role": role } },
    spec,
  });
}

export function fileConfig(
  files: Array<{ path: string; text: string }>,
  version = "3.2.0",
): Record<string, unknown> {
  return {
    config: {
      ignition: { version },
      storage: {
        files: files.map((f) => ({
          path: f.path,
          mode: 420,
          contents: { source: `data:,${encodeURIComponent(f.text)}` },
        })),
      },
    },
  };
}

export const WMCO_NAMESPACE = "openshift-windows-machine-config-operator";

/** Namespace, OperatorGroup and Subscription of seed 002 (the OperatorGroup can be left out). */
export function subscribeWmco(
  sim: Sim,
  options: {
    approval?: "Automatic" | "Manual";
    startingCSV?: string;
    operatorGroup?: boolean;
    channel?: string;
    pkg?: string;
  } = {},
): void {
  if (!sim.get(K.namespace, WMCO_NAMESPACE)) {
    sim.store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: WMCO_NAMESPACE } });
  }
  if (options.operatorGroup !== false) {
    sim.store.create({
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      metadata: { name: "windows-machine-config-operator", namespace: WMCO_NAMESPACE },
      spec: { targetNamespaces: [WMCO_NAMESPACE] },
    });
  }
  sim.store.create({
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "Subscription",
    metadata: { name: "windows-machine-config-operator", namespace: WMCO_NAMESPACE },
    spec: {
      channel: options.channel ?? "stable",
      installPlanApproval: options.approval ?? "Automatic",
      name: options.pkg ?? "windows-machine-config-operator",
      source: "redhat-operators",
      sourceNamespace: "openshift-marketplace",
      ...(options.startingCSV ? { startingCSV: options.startingCSV } : {}),
    },
  });
}

export function annotation(object: KubeObject | undefined, key: string): string | undefined {
  return object?.metadata.annotations?.[key];
}

export function status<T = Record<string, unknown>>(object: KubeObject | undefined): T {
  return (object?.status ?? {}) as T;
}

export function condition(
  object: KubeObject | undefined,
  type: string,
): { status: string; reason?: string; message?: string } | undefined {
  const conditions = (
    object?.status as
      { conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> } | undefined
  )?.conditions;
  return conditions?.find((c) => c.type === type);
}
