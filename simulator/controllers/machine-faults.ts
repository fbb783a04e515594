/**
 * Machine-level events the simulated cloud and workloads cause, for tests and the control endpoint:
 * a kubelet that stops posting status, a spot instance reclaimed by the cloud, pending pods the
 * cluster autoscaler must find nodes for. The autoscaler and health-check controllers subscribe.
 */
import { field, obj } from "../../primitives/objects";
import { MACHINE_API_NAMESPACE } from "../../primitives/openshift";
import { providerSpecOf } from "../cluster/machines";
import { Store } from "../store/types";
import { Condition, K, keyOf, timestamp } from "./util";

export type ScalingRequest = { kind: "pendingPods"; nodes: number } | { kind: "idleNodes"; nodes: number };

export class MachineFaults {
  private readonly listeners = new Set<(request: ScalingRequest) => void>();
  private readonly heldBoots = new Set<string>();
  private readonly bootListeners = new Set<(machineSet: string) => void>();

  constructor(
    private readonly store: Store,
    private readonly now: () => Date,
  ) {}

  /**
   * The node's kubelet stops posting status: the node lifecycle controller marks Ready Unknown, as it
   * does for a crashed or partitioned host. Nothing heals it but replacing the machine.
   */
  stopKubelet(node: string): void {
    const key = keyOf(K.node, node);
    if (!this.store.get(key)) throw new Error(`node ${node} not found`);
    this.store.mutate(
      key,
      (n) => {
        const status = obj(n.status);
        const ts = timestamp(this.now());
        status.conditions = ((status.conditions as Condition[] | undefined) ?? []).map((c) =>
          c.type === "Ready"
            ? {
                ...c,
                status: "Unknown",
                reason: "NodeStatusUnknown",
                message: "Kubelet stopped posting node status.",
                lastTransitionTime: ts,
              }
            : c,
        );
        n.status = status;
      },
      { subresource: "status" },
    );
  }

  /**
   * The cloud reclaims a spot instance: the termination handler marks the node and the machine is
   * deleted, so its MachineSet creates a replacement. Refused for on-demand machines, which the cloud
   * never interrupts.
   */
  interruptSpot(machine: string): void {
    const key = keyOf(K.machine, machine, MACHINE_API_NAMESPACE);
    const m = this.store.get(key);
    if (!m) throw new Error(`machine ${machine} not found`);
    const spec = providerSpecOf(m);
    if (!spec.spotMarketOptions && !spec.spotVMOptions) {
      throw new Error(`machine ${machine} is not a spot instance: its provider spec has no spot options`);
    }
    const node = field<string>(m, "status", "nodeRef", "name");
    if (node && this.store.get(keyOf(K.node, node))) {
      this.store.mutate(
        keyOf(K.node, node),
        (n) => {
          const status = obj(n.status);
          const ts = timestamp(this.now());
          status.conditions = [
            ...((status.conditions as Condition[] | undefined) ?? []).filter((c) => c.type !== "Terminating"),
            {
              type: "Terminating",
              status: "True",
              reason: "TerminationRequested",
              message: "The cloud provider has marked this instance for termination",
              lastHeartbeatTime: ts,
              lastTransitionTime: ts,
            },
          ];
          n.status = status;
        },
        { subresource: "status" },
      );
    }
    this.store.delete(key);
  }

  /**
   * The instances of `machineSet`'s machines boot but their kubelets do not join, as when the
   * instance cannot reach the machine config server for its Ignition: the Machine stays Provisioned
   * without a Node until `clear()`. Machines it already has keep their nodes.
   */
  holdBoot(machineSet: string): void {
    if (!this.store.get(keyOf(K.machineSet, machineSet, MACHINE_API_NAMESPACE))) {
      throw new Error(`MachineSet ${machineSet} not found in ${MACHINE_API_NAMESPACE}`);
    }
    this.heldBoots.add(machineSet);
  }

  bootHeld(machineSet: string | undefined): boolean {
    return machineSet !== undefined && this.heldBoots.has(machineSet);
  }

  /** Lets held boots go on; the machine-api picks them up again. */
  clear(): void {
    const released = [...this.heldBoots];
    this.heldBoots.clear();
    for (const name of released) for (const l of this.bootListeners) l(name);
  }

  heldMachineSets(): string[] {
    return [...this.heldBoots].sort();
  }

  /** The machine-api re-syncs a MachineSet's machines when their boot is released. */
  onBootReleased(listener: (machineSet: string) => void): () => void {
    this.bootListeners.add(listener);
    return () => this.bootListeners.delete(listener);
  }

  /** Unschedulable pods that need `nodes` more nodes: the cluster autoscaler scales up. */
  pendingPods(nodes: number): void {
    this.request({ kind: "pendingPods", nodes });
  }

  /** `nodes` nodes are unneeded: the cluster autoscaler scales down, never below a group's minimum. */
  idleNodes(nodes: number): void {
    this.request({ kind: "idleNodes", nodes });
  }

  onScalingRequest(listener: (request: ScalingRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private request(request: ScalingRequest): void {
    if (!Number.isInteger(request.nodes) || request.nodes < 1) {
      throw new Error(`"nodes" must be a whole number of 1 or more, got ${JSON.stringify(request.nodes)}`);
    }
    if (this.listeners.size === 0) throw new Error("no cluster autoscaler is running");
    for (const l of this.listeners) l(request);
  }
}
