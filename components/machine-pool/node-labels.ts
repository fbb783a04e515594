/**
 * A pool's node labels and taints on its running nodes: at preview, what each node gets and loses,
 * handed in to the pool's summary (said in the pool's one line, only when something changes); on `up`,
 * the waiter that writes them on the running Machines and Nodes and waits until every node carries them
 * (provider/waiting/node-metadata.ts).
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  NodeMetadataChange,
  NodeMetadataImpact,
  nodeMetadataImpact,
  nodeMetadataPhrase,
} from "../../builders/machineset/node-metadata";
import { NodeLabelsAndTaints } from "../../provider/dynamic";
import { field, KINDS } from "../../provider/waiting/kinds";
import { planMachine } from "../../provider/waiting/node-metadata";
import { MACHINE_API_NAMESPACE } from "../../primitives/openshift";
import { handInToPool, PoolOfPart, PoolPart } from "../cluster/pool-summary";
import { clusterOfThisRun } from "../cluster/preview-run";
import { Waiting } from "../cluster/wait";
import { child } from "../declared";
import { DeclaredMachineSets } from "./machine-sets";

export interface PoolNodeLabels {
  /** At preview, what the pool's running nodes get and lose (also logged on the component). */
  impact: pulumi.Output<NodeMetadataImpact | undefined>;
  /** The waiter that writes them on the running machines and nodes; none without waiting. */
  waiter?: pulumi.Output<NodeLabelsAndTaints>;
}

/**
 * The preview's answer for a pool: the waiting core's plan of each running Machine (not being deleted)
 * of its MachineSets that lacks the declared labels and taints, against its Node as it is, summed into one
 * impact and handed in to the pool's summary. Undefined on `up`, without a kubeconfig, for a cluster
 * that does not answer (the pool's summary warns of it), and when no node changes.
 */
function previewNodeLabels(
  parent: pulumi.Resource,
  pool: PoolOfPart,
  kubeconfig: pulumi.Output<string> | undefined,
  machineSets: DeclaredMachineSets,
): pulumi.Output<NodeMetadataImpact | undefined> {
  if (!pulumi.runtime.isDryRun() || !kubeconfig) return pulumi.output(undefined);
  const impact = pulumi
    .all([pulumi.unsecret(kubeconfig), pool.name, machineSets.names, machineSets.nodeMetadata])
    .apply(async ([config, poolName, names, declared]) => {
      const cluster = clusterOfThisRun(config);
      if ((await cluster.unreachableBecause()) !== undefined) return undefined;
      try {
        // The pool's Machines are read whenever its MachineSets exist: a template that already carries
        // the labels and taints (written by an `up` without waiting) says nothing of the machines made
        // before it, whose nodes this `up`'s waiter then writes. A Machine that carries them, recorded
        // as the stack's, has them on its Node too (nodelink copies them), so only the Nodes of the
        // Machines that lack any are read: one list per pool and no node read when nothing changes.
        const sets = await cluster.machineSets();
        const existing = names.filter((name) => sets.some((m) => m.metadata.name === name));
        if (existing.length === 0) return undefined;
        const target = { namespace: MACHINE_API_NAMESPACE, machineSets: existing, ...declared };
        const machines = (await cluster.machines(existing)).filter(
          (m) => !m.metadata.deletionTimestamp && planMachine(target, m, undefined).machinePatch,
        );
        const changes: NodeMetadataChange[] = [];
        for (const machine of machines) {
          const nodeName = field<string>(machine, "status", "nodeRef", "name");
          const node = nodeName ? await cluster.object(KINDS.node, nodeName) : undefined;
          const live = node && !node.metadata.deletionTimestamp ? node : undefined;
          changes.push(planMachine(target, machine, live).change);
        }
        return nodeMetadataImpact(poolName, changes);
      } catch (e) {
        pulumi.log.warn(`pool ${poolName}: node labels and taints unknown: ${(e as Error).message}`, parent);
        return undefined;
      }
    });
  const part = impact.apply((i): PoolPart => ({
    kind: "nodeMetadata",
    phrases: i ? [nodeMetadataPhrase(i)] : [],
  }));
  // The pool's line says it; the impact is the component's output.
  return pulumi.all([impact, handInToPool(parent, kubeconfig, pool, part)]).apply(([i]) => i);
}

/**
 * The pool's node labels and taints on its running nodes: previewed, and (when the pool waits) written
 * by a waiter declared after `after` (the MachineSets, whose template gives them to the machines they
 * create, and whatever must tolerate a taint before the nodes get it).
 */
export function declareNodeLabels(
  name: string,
  pool: PoolOfPart,
  machineSets: DeclaredMachineSets,
  waiting: Waiting | undefined,
  after: pulumi.Input<pulumi.Input<pulumi.Resource>[]>,
  parent: pulumi.Resource,
): PoolNodeLabels {
  const impact = previewNodeLabels(parent, pool, waiting?.kubeconfig, machineSets);
  const waiter =
    waiting &&
    child(
      NodeLabelsAndTaints,
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
