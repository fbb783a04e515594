/**
 * Test helpers shared by the waiter tests: one simulator per suite at test speed, and the simulator's
 * own fixtures (MachineSets cloned from the installer's, the WMCO subscription) bound to it.
 */
import { startSimulator, Simulator, SimulatorOptions } from "../simulator/simulator";
import { holdDrainWithBudget, K, machineSetFrom, Sim, subscribeWmco } from "../simulator/controllers/testing";
import { keyOf } from "../simulator/controllers/util";
import { busyFactor } from "./busy";
import { KubeObject as StoreObject } from "../simulator/store/types";

/** Fast enough for a 3-node rollout in about 0.1 s. */
export const SPEED = 1000;
/**
 * Deadline of every wait in tests: generous, it only turns a hang into a failure; stretched on a busy
 * machine (a 3-node rollout took over 10 s at a load of 20 on 2 cores).
 */
export const DEADLINE_MS = Math.round(10_000 * busyFactor());

export { holdDrainWithBudget, K, keyOf };
export type { Simulator };

export async function startTestSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  return startSimulator({ speed: SPEED, ...options });
}

/** The simulator's test fixtures take its in-process harness; this is the same view of a running simulator. */
function fixtureView(sim: Simulator): Sim {
  return {
    store: sim.store,
    cluster: sim.cluster,
    get: (kind: { apiVersion: string; kind: string }, name: string, namespace?: string) =>
      sim.store.get(keyOf(kind, name, namespace)),
  } as unknown as Sim;
}

export function createMachineSet(
  sim: Simulator,
  name: string,
  options: Parameters<typeof machineSetFrom>[2] = {},
): StoreObject {
  return machineSetFrom(fixtureView(sim), name, options);
}

export function subscribeToWmco(sim: Simulator, options: Parameters<typeof subscribeWmco>[1] = {}): void {
  subscribeWmco(fixtureView(sim), options);
}

export function machineConfig(name: string, files: Record<string, string>, role = "worker"): StoreObject {
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name, labels: { "machineconfiguration.openshift.io/role": role } },
    spec: {
      config: {
        ignition: { version: "3.2.0" },
        storage: {
          files: Object.entries(files).map(([path, text]) => ({
            path,
            mode: 420,
            contents: { source: `data:,${encodeURIComponent(text)}` },
          })),
        },
      },
    },
  };
}

export function workerNodes(sim: Simulator): StoreObject[] {
  return sim.store
    .list("v1", "Node")
    .filter(
      (n) =>
        n.metadata.labels?.["node-role.kubernetes.io/worker"] !== undefined &&
        n.metadata.labels?.["kubernetes.io/os"] !== "windows",
    );
}

export function poolTarget(sim: Simulator, pool = "worker"): string {
  return (sim.store.get(keyOf(K.pool, pool))?.spec as { configuration: { name: string } }).configuration.name;
}

/** Resolves at the first store change after which `check` holds; bounded like every wait in tests. */
export function storeUntil<T>(sim: Simulator, what: string, check: () => T | undefined | false): Promise<T> {
  return new Promise((resolve, reject) => {
    const first = check();
    if (first) return resolve(first);
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out waiting for ${what}`));
    }, DEADLINE_MS);
    const unsubscribe = sim.store.subscribe(() =>
      queueMicrotask(() => {
        const value = check();
        if (!value) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(value);
      }),
    );
  });
}
