import * as pulumi from "@pulumi/pulumi";
import {
  CANARY_PARENT,
  CanaryCluster,
  canaryClusterProblems,
  canaryNodesProblems,
} from "../../builders/machineconfiguration/canary";
import { InputError, InputErrors } from "../../builders/errors";
import { machineConfigPool } from "../../builders/machineconfiguration";
import { field } from "../../primitives/objects";
import { nodeRoleLabel } from "../../primitives/openshift";
import { CanaryNodes } from "../../provider/dynamic/canary-nodes";
import { CANARY_FIELD_MANAGER } from "../../provider/waiting/canary";
import { KINDS, type KubeObject } from "../../provider/waiting/kinds";
import { handInToPool } from "../cluster/pool-summary";
import { clusterOfThisRun } from "../cluster/preview-run";
import { declareCanary, rolloutOf } from "../cluster/rollout-order";
import { clusterAccess, SharedArgs } from "../cluster/wait";
import { child } from "../declared";
import { checked, InputChecks } from "../errors";
import { MachineConfigPool } from "./machine-configuration";

export interface CanaryPoolArgs extends SharedArgs {
  /**
   * The worker nodes a change reaches first, by name (`oc get nodes -l node-role.kubernetes.io/worker`):
   * they get the label `node-role.kubernetes.io/<name>` and so join the canary pool, and leave it when
   * removed from the list or on destroy. Plain strings; checked at preview against the cluster: each
   * must be a node of the worker pool, and at least one worker must stay out.
   */
  nodes: string[];
  /**
   * The canary pool's name and node role; default the resource name. A plain string, neither `master`
   * nor `worker`, and no role other nodes already carry.
   */
  name?: string;
  /** Canary nodes updated at once (number or percentage); default 1. */
  maxUnavailable?: pulumi.Input<number | string>;
}

/**
 * A canary of the worker pool, the OpenShift docs' canary rollout as one component: named worker nodes
 * labelled into a custom MachineConfigPool of their own that inherits the worker configs, and the
 * worker pool declared to roll out after it (as `rollOutAfter`), so that on each `up` a change of the
 * worker configuration reaches the canary nodes first and the other workers only once the canary pool
 * has rolled it out. The labels are the stack's: written with a field manager of its own, removed on
 * destroy (the nodes then return to worker, with no rollout while the canary pool adds no config of its
 * own), never one someone else set. `wait: false` leaves out the pool's own waiter only: the nodes'
 * move is what the worker pool resumes after, and is waited for whatever it says.
 */
export class CanaryPool extends pulumi.ComponentResource {
  /** The canary pool's name. */
  declare public readonly poolName: string;
  /** The canary MachineConfigPool. */
  declare public readonly machineConfigPool: MachineConfigPool;
  /** The nodes whose label the stack wrote (those it removes on destroy), once in place. */
  declare public readonly labelled: pulumi.Output<string[]>;

  constructor(name: string, args: CanaryPoolArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:CanaryPool", name, {}, opts);
    const { provider, kubeconfig, waitTimeouts, wait } = args;
    const checks = new InputChecks(`CanaryPool "${name}"`);
    const pool = checks.now(() => plainName(args.name ?? name), name);
    const nodes = checks.now(() => {
      InputErrors.throwIfAny(canaryNodesProblems(args.nodes));
      return args.nodes;
    }, []);
    checks.now(() => declareCanary(pool, CANARY_PARENT), undefined);
    // The nodes' move is the step the worker pool resumes after: declared whatever `wait` says.
    const waits = checks.now(
      () => clusterAccess({ provider, kubeconfig, waitTimeouts, wait }, this),
      undefined,
    );
    if (waits) checks.add(waits.check);
    const cluster =
      waits && pulumi.runtime.isDryRun() ? clusterOf(waits.kubeconfig, pool) : pulumi.output(undefined);
    checks.add(
      cluster.apply((c) => {
        if (c && nodes.length > 0)
          checked(() => InputErrors.throwIfAny(canaryClusterProblems(pool, nodes, c)));
      }),
    );
    const valid = checks.valid();

    this.poolName = pool;
    this.machineConfigPool = new MachineConfigPool(
      name,
      {
        // Nothing of the canary is declared from bad input: the pool waits for its checks.
        name: valid.apply(() => pool),
        maxUnavailable: args.maxUnavailable,
        provider,
        kubeconfig,
        waitTimeouts,
        wait,
      },
      { parent: this },
    );
    // The nodes join once the pool selects them and has rendered (its waiter); the worker pool's
    // objects resume only once they run its render (rolloutOf).
    const placed =
      waits &&
      child(
        CanaryNodes,
        `${name}-nodes`,
        {
          kubeconfig: waits.kubeconfig,
          pool,
          parent: CANARY_PARENT,
          nodes: valid.apply(() => nodes),
        },
        waits.options(
          pulumi
            .all([this.machineConfigPool.resource, this.machineConfigPool.rollout])
            .apply(([p, r]) => (r ? [p, r] : [p])),
        ),
      );
    if (placed) rolloutOf(pool, placed);
    handInToPool(
      this,
      waits?.kubeconfig,
      { name: pool, renders: true },
      pulumi.all([valid, cluster]).apply(([, c]) => ({
        kind: "canary" as const,
        parent: CANARY_PARENT,
        joining: nodes.filter((n) => !(c && nodeRoleLabel(pool) in labelsOf(c, n))),
        returning: (c?.labelledByUs ?? []).filter((n) => !nodes.includes(n)),
      })),
    );
    this.labelled = placed ? placed.apply((p) => p.labelled) : pulumi.output([]);
    this.registerOutputs({ labelled: this.labelled });
  }
}

/** The canary's pool name: plain (the order of the pools is known before anything resolves), a custom pool's. */
function plainName(given: unknown): string {
  if (typeof given !== "string")
    throw new InputError(
      "name",
      `must be a plain string: the order of the pools is known before anything resolves`,
    );
  return machineConfigPool({ name: given }).metadata.name;
}

function labelsOf(cluster: CanaryCluster, node: string): Record<string, string> {
  return cluster.nodes.find((n) => n.metadata.name === node)?.metadata.labels ?? {};
}

/** Whether the canary label of `node` is owned by the library's field manager. */
function labelledByUs(node: KubeObject, pool: string): boolean {
  const entries = (node.metadata.managedFields ?? []) as Array<{ manager?: string; fieldsV1?: unknown }>;
  return entries.some(
    (e) =>
      e.manager === CANARY_FIELD_MANAGER &&
      field(e.fieldsV1, "f:metadata", "f:labels", `f:${nodeRoleLabel(pool)}`) !== undefined,
  );
}

/** At preview, the cluster's nodes and pools; undefined when it does not answer (the pool lines say so). */
function clusterOf(
  kubeconfig: pulumi.Output<string>,
  pool: string,
): pulumi.Output<CanaryCluster | undefined> {
  return pulumi.unsecret(kubeconfig).apply(async (config) => {
    const cluster = clusterOfThisRun(config);
    if ((await cluster.unreachableBecause()) !== undefined) return undefined;
    // A cluster that refuses the reads is no answer: the pool lines say what they could not read.
    const read = await Promise.all([cluster.objects(KINDS.node), cluster.objects(KINDS.pool)]).catch(
      () => undefined,
    );
    if (!read) return undefined;
    const [nodes, pools] = read;
    return {
      nodes,
      pools,
      labelledByUs: nodes.filter((n) => labelledByUs(n, pool)).map((n) => n.metadata.name),
    } as CanaryCluster;
  });
}
