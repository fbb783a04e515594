/**
 * Cluster-level fault injection. Plain methods, so tests call them in process and the API server can
 * expose them on its control endpoint. The controllers consult the registry and re-sync on changes, so
 * a fault shows up exactly where the real component would report it (node annotations, pool
 * conditions, CSV phase) and clearing it lets them converge again.
 */
import { field } from "../../primitives/objects";
import { CURRENT_CONFIG } from "../../primitives/openshift";
import { Store } from "../store/types";
import { filePaths, specOf } from "./machineconfig";
import { isWindowsNode } from "./mco-pools";
import { K, keyOf } from "./util";

export interface NodeFault {
  kind: "degraded" | "drift";
  /** What the daemon writes into `machineconfiguration.openshift.io/reason`. */
  reason: string;
  /** The drifted file, for drift faults. */
  path?: string;
}

export interface CsvFault {
  reason: string;
  message: string;
}

export type FaultTarget = { kind: "node"; name: string } | { kind: "csv"; namespace: string; name: string };

export interface FaultSummary {
  nodes: Record<string, NodeFault>;
  csvs: Record<string, CsvFault>;
}

export class ClusterFaults {
  private readonly nodes = new Map<string, NodeFault>();
  private readonly csvs = new Map<string, CsvFault>();
  private readonly heldUpdates = new Set<string>();
  private readonly listeners = new Set<(target: FaultTarget) => void>();

  constructor(private readonly store: Store) {}

  /** The daemon reports the node Degraded with this reason until `clear()`. */
  degradeNode(node: string, reason: string): void {
    this.requireNode(node);
    if (!reason) throw new Error("a degraded node needs a reason");
    this.nodes.set(node, { kind: "degraded", reason });
    this.notify({ kind: "node", name: node });
  }

  /**
   * Someone edited `path` on the node behind the MCO's back. The daemon notices only files its current
   * config manages, as the MCD's drift monitor does, so other paths are refused.
   */
  driftFile(node: string, path: string): void {
    const current = this.requireNode(node);
    const config = current ? this.store.get(keyOf(K.machineConfig, current)) : undefined;
    if (!config || !filePaths(specOf(config)).includes(path)) {
      throw new Error(
        `file ${path} is not managed by the current MachineConfig ${current ?? "(none)"} of node ${node}; the daemon would not notice the drift`,
      );
    }
    this.nodes.set(node, {
      kind: "drift",
      reason: `content mismatch for file ${JSON.stringify(path)}`,
      path,
    });
    this.notify({ kind: "node", name: node });
  }

  /**
   * The daemon's update of `node` stays in its file and OS step until `clear()`, as a slow OS image
   * pull keeps update.go applyOSChanges (rpm-ostree rebase) busy: nothing changes on the node meanwhile.
   */
  holdOsUpdate(node: string): void {
    this.requireNode(node);
    this.heldUpdates.add(node);
    this.notify({ kind: "node", name: node });
  }

  osUpdateHeld(node: string): boolean {
    return this.heldUpdates.has(node);
  }

  /** The CSV goes to phase Failed with this reason until `clear()`. */
  failCsv(namespace: string, name: string, reason = "ComponentUnhealthy", message?: string): void {
    const csv = this.store.get(keyOf(K.csv, name, namespace));
    if (!csv) throw new Error(`ClusterServiceVersion ${namespace}/${name} not found`);
    const deployment = field<string>(csv, "spec", "install", "spec", "deployments", 0, "name") ?? name;
    message ??= `installing: waiting for deployment ${deployment} to become ready: deployment "${deployment}" not available: Deployment does not have minimum availability.`;
    this.csvs.set(`${namespace}/${name}`, { reason, message });
    this.notify({ kind: "csv", namespace, name });
  }

  /** Removes every cluster fault; the components recover as they would after a fix. */
  clear(): void {
    const targets: FaultTarget[] = [
      ...[...new Set([...this.nodes.keys(), ...this.heldUpdates])].map(
        (name) => ({ kind: "node", name }) as FaultTarget,
      ),
      ...[...this.csvs.keys()].map((k) => {
        const [namespace, name] = k.split("/");
        return { kind: "csv", namespace, name } as FaultTarget;
      }),
    ];
    this.nodes.clear();
    this.heldUpdates.clear();
    this.csvs.clear();
    for (const t of targets) this.notify(t);
  }

  nodeFault(node: string): NodeFault | undefined {
    return this.nodes.get(node);
  }

  csvFault(namespace: string, name: string): CsvFault | undefined {
    return this.csvs.get(`${namespace}/${name}`);
  }

  list(): FaultSummary {
    return { nodes: Object.fromEntries(this.nodes), csvs: Object.fromEntries(this.csvs) };
  }

  /** Controllers subscribe to re-sync what a fault touches. */
  onChange(listener: (target: FaultTarget) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private requireNode(node: string): string | undefined {
    const object = this.store.get(keyOf(K.node, node));
    if (!object) throw new Error(`node ${node} not found`);
    if (isWindowsNode(object)) throw new Error(`node ${node} is a Windows node: the MCO does not manage it`);
    return object.metadata.annotations?.[CURRENT_CONFIG];
  }

  private notify(target: FaultTarget): void {
    for (const l of this.listeners) l(target);
  }
}
