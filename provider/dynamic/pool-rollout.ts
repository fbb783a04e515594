import {
  NODE_CONFIG_KINDS,
  NodeConfigKind,
  observePoolRollout,
  waitForNodeConfigRemoval,
  waitForPoolRollout,
} from "../waiting/waiters";
import type { NodeTimings } from "../waiting/machineconfignode";
import {
  ArgsOf,
  ProviderOf,
  defineRemoval,
  defineWaiter,
  objectName,
  objectNames,
  oneOf,
  output,
} from "./schema";
import * as self from "./pool-rollout";

/**
 * Waits until a MachineConfigPool has rolled out the given MachineConfigs on every node: race-free
 * (never on the stale `Updated=True` of the previous render), failing fast with each degraded node and
 * its reason, and on a paused pool. Give `contentHash` of the configurations awaited: a change waits
 * again. MachineConfigs that disappear from `machineConfigs` are not awaited on update: Pulumi deletes
 * removed resources at the end of the deployment, after this update, so their removal is awaited by a
 * NodeConfigRemoval declared before them; name MachineConfigs deleted by other means in
 * `deletedMachineConfigs`.
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
  },
  outputs: {
    /** The rendered config every node of the pool runs. */
    renderedConfig: output<string>(),
    machineCount: output<number>(),
    updatedMachineCount: output<number>(),
    /** Per-node drain and reboot seconds seen in the last rollout, for the next impact estimate; null when none was seen. */
    learnedTimings: output<NodeTimings | null>(null),
  },
  id: (inputs) => `pool/${inputs.pool}`,
  wait: (options) => waitForPoolRollout(options),
  observe: (options) => observePoolRollout(options),
});
export type PoolRollout = InstanceType<typeof PoolRollout>;
export type PoolRolloutArgs = ArgsOf<typeof PoolRollout>;
/** The whole provider, which the one each PoolRollout carries finds by this name: keep it. */
export const poolRolloutProvider = PoolRollout.provider;

/**
 * Makes removing a MachineConfig, KubeletConfig or ContainerRuntimeConfig wait until its pool has
 * rolled out a render without it (or without the MachineConfig generated from it). Pulumi deletes in
 * reverse dependency order, so declare the object with `dependsOn: [removal]`: the object goes first,
 * then this waits for the rollout. An object that still exists and is not being deleted (only this
 * resource removed) is left alone, as is a pool that is gone.
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
