/**
 * A pool's node labels and taints on its running nodes: at preview, what each node gets and loses
 * (one line per pool, only when something changes); on `up`, the waiter that writes them on the
 * running Machines and Nodes and waits until every node carries them (provider/waiting/node-metadata.ts).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  NodeMetadataChange,
  NodeMetadataImpact,
  nodeMetadataImpact,
  nodeMetadataLine,
} from "../../builders/machineset/node-metadata";
import { NodeLabelsAndTaints } from "../../provider/dynamic";
import { field, KINDS } from "../../provider/waiting/kinds";
import { planMachine } from "../../provider/waiting/node-metadata";
import { MACHINE_API_NAMESPACE } from "../../primitives/openshift";
import { clusterOfThisRun } from "../cluster/rollout-impact";
import { Waiting } from "../cluster/wait";
import { DeclaredMachineSets } from "./machine-sets";

export interface PoolNodeLabels {
  /** At preview, what the pool's running nodes get and lose (also logged on the component). */
  impact: pulumi.Output<NodeMetadataImpact | undefined>;
  /** The waiter that writes them on the running machines and nodes; none without waiting. */
  waiter?: NodeLabelsAndTaints;
}

/**
 * The preview's answer for a pool: the waiting core's plan of each running Machine (not being deleted)
 * of its MachineSets, against their Nodes as they are, summed into one impact. Undefined on `up`,
 * without a kubeconfig, for a cluster that does not answer (a warning), and when no node changes.
 */
function previewNodeLabels(
  parent: pulumi.Resource,
  pool: string,
  kubeconfig: pulumi.Output<string> | undefined,
  machineSets: DeclaredMachineSets,
): pulumi.Output<NodeMetadataImpact | undefined> {
  if (!pulumi.runtime.isDryRun() || !kubeconfig) return pulumi.output(undefined);
  return pulumi
    .all([pulumi.unsecret(kubeconfig), machineSets.names, machineSets.nodeMetadata])
    .apply(async ([config, names, declared]) => {
      const cluster = clusterOfThisRun(config);
      const down = await cluster.unreachableBecause();
      if (down !== undefined) {
        pulumi.log.warn(
          `pool ${pool}: node labels and taints unknown: the cluster does not answer: ${down}`,
          parent,
        );
        return undefined;
      }
      try {
        const target = { namespace: MACHINE_API_NAMESPACE, machineSets: names, ...declared };
        const machines = (await cluster.machines(names)).filter((m) => !m.metadata.deletionTimestamp);
        const changes: NodeMetadataChange[] = [];
        for (const machine of machines) {
          const nodeName = field<string>(machine, "status", "nodeRef", "name");
          const node = nodeName ? await cluster.object(KINDS.node, nodeName) : undefined;
          const live = node && !node.metadata.deletionTimestamp ? node : undefined;
          changes.push(planMachine(target, machine, live).change);
        }
        const impact = nodeMetadataImpact(pool, changes);
        if (impact) pulumi.log.info(nodeMetadataLine(impact), parent);
        return impact;
      } catch (e) {
        pulumi.log.warn(`pool ${pool}: node labels and taints unknown: ${(e as Error).message}`, parent);
        return undefined;
      }
    });
}

/**
 * The pool's node labels and taints on its running nodes: previewed, and (when the pool waits) written
 * by a waiter declared after `after` (the MachineSets, whose template gives them to the machines they
 * create, and whatever must tolerate a taint before the nodes get it).
 */
export function declareNodeLabels(
  name: string,
  pool: string,
  machineSets: DeclaredMachineSets,
  waiting: Waiting | undefined,
  after: pulumi.Input<pulumi.Input<pulumi.Resource>[]>,
  parent: pulumi.Resource,
): PoolNodeLabels {
  const impact = previewNodeLabels(parent, pool, waiting?.kubeconfig, machineSets);
  const waiter =
    waiting &&
    new NodeLabelsAndTaints(
      `${name}-node-labels`,
      {
        ...waiting.watching(machineSets.resources as pulumi.Output<k8s.apiextensions.CustomResource[]>),
        machineSets: machineSets.names,
        labels: machineSets.nodeMetadata.apply((m) => m.labels),
        taints: machineSets.nodeMetadata.apply((m) => m.taints),
      },
      waiting.options(after),
    );
  return { impact, waiter };
}
