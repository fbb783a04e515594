/**
 * What a preview reads of a cluster to tell rollout impacts: the MachineConfiguration `cluster` (read
 * first: it also says whether the cluster answers at all), and one list each of MachineConfigPools,
 * MachineConfigs, KubeletConfigs and ContainerRuntimeConfigs. Each read is made on first use and kept,
 * so that every pool and node configuration of a program shares them: a handful of requests over one
 * client per preview, whatever the number of components, instead of a few per component.
 *
 * The MachineConfigs listed are those a pool can render, the ones with a role label. Rendered configs
 * carry no label (the MCO's render controller sets only an owner and annotations) and are the bulk of a
 * long-lived cluster's MachineConfigs: each holds the whole merged Ignition config, often hundreds of
 * KB, and clusters keep one per pool and change. The two a pending rollout compares are read by name.
 * The MachineSets are listed once; a pool's Machines, by its MachineSets' label, when they exist: to
 * tell which lack its node labels and taints, and which run another spec than the one declared.
 * A component that adopts what exists asks the same reads, at `up` too, which of its objects the
 * cluster holds (adoption.ts).
 */
import { MACHINE_API_NAMESPACE, ROLE_LABEL } from "../../primitives/openshift";
import { machinesSelector } from "../../provider/waiting/machineset";
import { createApiClient } from "../../provider/waiting/api";
import { KINDS, KubeObject, ResourceKind } from "../../provider/waiting/kinds";
import { apiError, ApiError, describeApiError } from "../../provider/waiting/retry";

/**
 * How long a preview waits to learn whether the cluster answers at all. Every read, this one
 * included, is tried again as pulumi-kubernetes' reads are (the client's per-request policy, retry.ts):
 * one failed read costs every component its answer, not just the one that sent it.
 */
const REACHABILITY_TIMEOUT_MS = 10_000;

/** The node configuration objects a pool renders, in the order a render merges them. */
export const CONFIG_KINDS = [KINDS.machineConfig, KINDS.kubeletConfig, KINDS.containerRuntimeConfig];

export interface ClusterSnapshot {
  /** Why the cluster does not answer; undefined when it answers (with anything, an error status included). */
  unreachableBecause(): Promise<string | undefined>;
  machineConfiguration(): Promise<KubeObject | undefined>;
  /** undefined when the cluster has no such pool. */
  pool(name: string): Promise<KubeObject | undefined>;
  /**
   * The objects of one of CONFIG_KINDS a pool can render, with their kind (for MachineConfigs, those with a
   * role label); or of another cluster-scoped kind read whole (the nodes a CanaryPool takes, the pools).
   */
  objects(kind: ResourceKind): Promise<KubeObject[]>;
  /** A MachineConfig by name (a rendered one); undefined when there is none. */
  machineConfig(name: string): Promise<KubeObject | undefined>;
  /** The MachineSets of the machine-api's namespace: tens of small objects on any cluster. */
  machineSets(): Promise<KubeObject[]>;
  /** The Machines of these MachineSets, selected by the label the machine-api gives them. */
  machines(machineSets: string[]): Promise<KubeObject[]>;
  /** The objects of a kind in a namespace (an adoption's look for hand-made objects of other names). */
  objectsIn(kind: ResourceKind, namespace: string): Promise<KubeObject[]>;
  /** Any object by name (what an adoption asks of kinds listed nowhere else); undefined when there is none. */
  object(kind: ResourceKind, name: string, namespace?: string): Promise<KubeObject | undefined>;
}

/**
 * Aborts after `ms` of time in which the process could have heard an answer: counted in ticks of a
 * second, a tick that comes late counting once. A preview's program loads and compiles modules while
 * its components first ask the cluster, which can hold the event loop for longer than the whole
 * deadline on a busy machine; a wall-clock timeout would then call a cluster that answered at once
 * unreachable.
 */
function listeningDeadline(ms: number): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  let ticks = Math.ceil(ms / 1000);
  const timer = setInterval(() => {
    if (--ticks <= 0) {
      clearInterval(timer);
      controller.abort();
    }
  }, 1000);
  timer.unref();
  return { signal: controller.signal, clear: () => clearInterval(timer) };
}

export function readCluster(kubeconfig: string): ClusterSnapshot {
  const client = createApiClient(kubeconfig);
  const reads = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, read: () => Promise<T>): Promise<T> => {
    if (!reads.has(key)) reads.set(key, read());
    return reads.get(key) as Promise<T>;
  };
  // The first read of the MachineConfiguration is the reachability probe: its tries are bounded on
  // their own, and one that gets no answer in time is not tried again. It is sent at the next turn of
  // the event loop: components ask while the program's first task may have run for longer than any
  // deadline (ts-node type-checks the program as it loads it), and Node counts a timer from the loop's
  // time, taken when that task began, so the request's own timeout would fire at once.
  const prober = createApiClient(kubeconfig, { requestTimeoutMs: REACHABILITY_TIMEOUT_MS });
  const probe = () =>
    once("probe", async () => {
      await new Promise((resolve) => setImmediate(resolve));
      const deadline = listeningDeadline(REACHABILITY_TIMEOUT_MS);
      return prober
        .get(KINDS.machineConfiguration, "cluster", undefined, deadline.signal)
        .catch((e: ApiError) => {
          throw deadline.signal.aborted
            ? apiError(`no answer within ${REACHABILITY_TIMEOUT_MS} ms`, { code: "ETIMEDOUT" })
            : e;
        })
        .finally(deadline.clear);
    });
  const list = (kind: ResourceKind) =>
    once(kind.plural, async () => {
      const selectors = kind === KINDS.machineConfig ? { labelSelector: ROLE_LABEL } : {};
      const { items } = await client.list(kind, selectors);
      return items.map((o) => ({ ...o, kind: kind.kind }));
    });
  return {
    unreachableBecause: () =>
      once("reachability", () =>
        probe().then(
          () => undefined,
          (e: ApiError) => (e.status === undefined ? describeApiError(e) : undefined),
        ),
      ),
    machineConfiguration: probe,
    pool: async (name) => (await list(KINDS.pool)).find((p) => p.metadata.name === name),
    objects: list,
    machineConfig: (name) =>
      once(`machineConfig/${name}`, async () => {
        const mc = await client.get(KINDS.machineConfig, name);
        return mc && { ...mc, kind: KINDS.machineConfig.kind };
      }),
    machineSets: () =>
      once("machineSets", async () => {
        const selectors = { namespace: MACHINE_API_NAMESPACE };
        return (await client.list(KINDS.machineSet, selectors)).items;
      }),
    machines: (machineSets) => {
      const labelSelector = machinesSelector(machineSets);
      return once(`machines/${labelSelector}`, async () => {
        const selectors = { namespace: MACHINE_API_NAMESPACE, labelSelector };
        return (await client.list(KINDS.machine, selectors)).items;
      });
    },
    objectsIn: (kind, namespace) =>
      once(`${kind.plural}.${kind.group}/${namespace}`, async () => {
        return (await client.list(kind, { namespace })).items;
      }),
    object: (kind, name, namespace) =>
      once(`${kind.plural}.${kind.group}/${namespace ?? ""}/${name}`, () =>
        client.get(kind, name, namespace),
      ),
  };
}
