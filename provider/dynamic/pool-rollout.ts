import {
  MachineSetOptions,
  NODE_CONFIG_KINDS,
  NodeConfigKind,
  observeMachineSets,
  observePoolRollout,
  PoolRolloutOptions,
  waitForMachineSetsReady,
  waitForNodeConfigRemoval,
  waitForPoolRollout,
} from "../waiting/waiters";
import type { NodeTimings } from "../waiting/machineconfignode";
import type { DeploymentRecord, ObjectLike, PoolImpact } from "../../builders/rollout-impact";
import { replacementPolicy } from "./machineset";
import { keepingRolloutRecord } from "./rollout-baseline";
import {
  ArgsOf,
  ProviderOf,
  defineRemoval,
  defineWaiter,
  labelMap,
  objectName,
  objectNames,
  oneOf,
  output,
  recorded,
} from "./schema";
import * as self from "./pool-rollout";

type PoolWaitOptions = PoolRolloutOptions &
  Partial<MachineSetOptions> & { machineReplacement?: MachineSetOptions["replacement"] };

/**
 * The pool's own machines first, when it names them, then its rollout: one convergence within one
 * deadline. The MCO counts a pool's nodes by its nodeSelector (openshift/machine-config-operator,
 * pkg/controller/node/node_controller.go, getNodesForPool), so a machine not yet a node is not in its
 * machineCount and the pool alone could report rolled out before its new nodes run the render.
 */
async function waitForPool(options: PoolWaitOptions) {
  if (!options.machineSets?.length) return waitForPoolRollout(options);
  const machines = await waitForMachineSetsReady({
    ...options,
    machineSets: options.machineSets,
    replacement: options.machineReplacement,
  });
  const rollout = await waitForPoolRollout({ ...options, timeoutMs: options.timeoutMs - machines.elapsedMs });
  return { ...rollout, result: { ...rollout.result, readyMachineCount: machines.result.readyMachineCount } };
}

/** How the pool stands, its machines first when it names them (for `read`). */
async function observePool(options: PoolWaitOptions) {
  if (options.machineSets?.length) {
    const machines = await observeMachineSets({
      ...options,
      machineSets: options.machineSets,
      replacement: options.machineReplacement,
    });
    // Until its machines are Ready nodes, their state is the pool's: a read keeps the outputs it cannot see.
    if (machines.state !== "done") return { state: machines.state, message: machines.message };
    const rollout = await observePoolRollout(options);
    return rollout.result
      ? { ...rollout, result: { ...rollout.result, readyMachineCount: machines.result!.readyMachineCount } }
      : rollout;
  }
  return observePoolRollout(options);
}

/**
 * Waits until a MachineConfigPool has rolled out the given MachineConfigs on every node: race-free
 * (never on the stale `Updated=True` of the previous render), failing fast with each degraded node and
 * its reason, and on a paused pool. Give `contentHash` of the configurations awaited: a change waits
 * again. MachineConfigs that disappear from `machineConfigs` are not awaited on update: Pulumi deletes
 * removed resources at the end of the deployment, after this update, so their removal is awaited by a
 * NodeConfigRemoval declared before them; name MachineConfigs deleted by other means in
 * `deletedMachineConfigs`. A pool component names its MachineSets too (`machineSets`): their machines
 * become Ready nodes first, then the pool rolls out on them. It also keeps what its component declares
 * (`objects` or `settings`), so that the next preview says what a change does to the nodes.
 */
export const PoolRollout = defineWaiter({
  kind: "PoolRollout",
  locate: (): ProviderOf => self.poolRolloutProvider,
  inputs: {
    /** The MachineConfigPool, e.g. `worker` or `infra`. */
    pool: objectName({ required: true }),
    /**
     * MachineConfigs (created or changed) the pool must roll out. Name every one the change touches: the
     * waiter proves the render contains them, which is what makes it race-free. With none named it can
     * only wait for the pool to converge on whatever it targets when the wait starts.
     */
    machineConfigs: objectNames(),
    /** MachineConfigs deleted outside this stack that the pool must drop. */
    deletedMachineConfigs: objectNames(),
    /** KubeletConfigs selecting the pool; awaited through their generated MachineConfigs. */
    kubeletConfigs: objectNames(),
    containerRuntimeConfigs: objectNames(),
    /** A pool component's own MachineSets: their replicas become Ready nodes before it rolls out. */
    machineSets: objectNames(),
    /** Their namespace; default `openshift-machine-api`. */
    namespace: objectName(),
    /** Labels every node of the MachineSets carries (the pool's role labels), which narrow the nodes listed. */
    nodeLabels: labelMap(),
    /**
     * Replace the MachineSets' machines whose provider spec is not their template's, through the
     * machine-api, before the pool is awaited (`provider/waiting/replacement.ts`).
     */
    machineReplacement: replacementPolicy(),
    /** The MachineConfig, KubeletConfig or ContainerRuntimeConfig its component declares, for the next preview. */
    objects: recorded<ObjectLike[]>("list"),
    /** The pool settings its pool component declares, for the next preview. */
    settings: recorded<NonNullable<DeploymentRecord["settings"]>>("object"),
    /** The impact the program read from the cluster at this preview: the cluster wins. */
    clusterImpact: recorded<PoolImpact | undefined>("object"),
  },
  outputs: {
    /** The rendered config every node of the pool runs. */
    renderedConfig: output<string>(),
    machineCount: output<number>(),
    updatedMachineCount: output<number>(),
    /** Per-node drain and reboot seconds seen in the last rollout, for the next impact estimate; null when none was seen. */
    learnedTimings: output<NodeTimings | null>(null),
    /** Nodes that are Ready: the pool's own machines when it names its MachineSets. */
    readyMachineCount: output<number>(),
    /** What the change did to the pool's nodes against the previous deployment; null when unknown. */
    impact: output<PoolImpact | null>(null),
  },
  id: (inputs) => `pool/${inputs.pool}`,
  wait: (options) => waitForPool(options),
  observe: (options) => observePool(options),
  extend: (provider) => keepingRolloutRecord(provider),
});
export type PoolRollout = InstanceType<typeof PoolRollout>;
export type PoolRolloutArgs = ArgsOf<typeof PoolRollout>;
/** The whole provider, which the one each PoolRollout carries finds by this name: keep it. */
export const poolRolloutProvider = PoolRollout.provider;

/**
 * Makes removing a MachineConfig, KubeletConfig or ContainerRuntimeConfig wait until its pool has
 * rolled out a render without it (or without the MachineConfig generated from it). Pulumi deletes in
 * reverse dependency order, so declare the object with `dependsOn: [removal]`: the object goes first,
 * then this waits for the rollout. An object of that name that is not being deleted is not the one
 * the stack deleted (only this resource was removed, or someone created it anew, even during the wait)
 * and is left alone, as is a pool that is gone. Pulumi deletes the object by name before this runs
 * (pulumi-kubernetes, await.go, Deletion), so no UID is needed to tell the two apart, and this guard,
 * declared before the object, could take none without a dependency cycle.
 */
export const NodeConfigRemoval = defineRemoval({
  kind: "NodeConfigRemoval",
  locate: (): ProviderOf => self.nodeConfigRemovalProvider,
  inputs: {
    /** The pool the object configures. */
    pool: objectName({ required: true }),
    kind: oneOf(Object.keys(NODE_CONFIG_KINDS) as NodeConfigKind[]),
    name: objectName({ required: true }),
  },
  id: (inputs) => `node-config-removal/${inputs.pool}/${inputs.kind}/${inputs.name}`,
  // `read` reports how the pool stands.
  observe: (options) => observePoolRollout(options),
  remove: (options) => waitForNodeConfigRemoval(options),
});
export type NodeConfigRemoval = InstanceType<typeof NodeConfigRemoval>;
export type NodeConfigRemovalArgs = ArgsOf<typeof NodeConfigRemoval>;
/** The whole provider, which the one each NodeConfigRemoval carries finds by this name: keep it. */
export const nodeConfigRemovalProvider = NodeConfigRemoval.provider;
