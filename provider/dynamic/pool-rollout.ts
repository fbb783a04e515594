import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import {
  NODE_CONFIG_KINDS,
  NodeConfigKind,
  observePoolRollout,
  waitForNodeConfigRemoval,
  waitForPoolRollout,
} from "../waiting/waiters";
import type { PoolRolloutResult } from "../waiting/pool";
import type { NodeTimings } from "../waiting/machineconfignode";
import {
  checkName,
  checkNames,
  RemovalArgs,
  RemovalInputs,
  removalProps,
  removalProvider,
  UNKNOWN,
  WaiterArgs,
  WaiterInputs,
  waiterOptions,
  waiterProps,
  waiterProvider,
} from "./common";

export interface PoolRolloutInputs extends WaiterInputs {
  pool: string;
  machineConfigs?: string[];
  deletedMachineConfigs?: string[];
  kubeletConfigs?: string[];
  containerRuntimeConfigs?: string[];
}

export interface PoolRolloutOutputs {
  renderedConfig: string;
  machineCount: number;
  updatedMachineCount: number;
  /**
   * Per-node drain and reboot seconds seen in the rollout; null when no node was seen in them (an absent
   * output would read as unknown at every preview, and so change whatever takes it as input).
   */
  learnedTimings: NodeTimings | null;
}

/**
 * The provider of PoolRollout. MachineConfigs that disappear from `machineConfigs` are not awaited on
 * update: Pulumi deletes removed resources at the end of the deployment, after this update, so their
 * removal is awaited by a NodeConfigRemoval declared before them; name MachineConfigs deleted by
 * other means in `deletedMachineConfigs`.
 */
export const poolRolloutProvider = waiterProvider<PoolRolloutInputs, PoolRolloutOutputs, PoolRolloutResult>({
  kind: "PoolRollout",
  inputKeys: [
    "kubeconfig",
    "pool",
    "machineConfigs",
    "deletedMachineConfigs",
    "kubeletConfigs",
    "containerRuntimeConfigs",
    "contentHash",
    "timeoutSeconds",
  ],
  check: (inputs) => [
    ...checkName(inputs, "pool"),
    ...checkNames(inputs, "machineConfigs"),
    ...checkNames(inputs, "deletedMachineConfigs"),
    ...checkNames(inputs, "kubeletConfigs"),
    ...checkNames(inputs, "containerRuntimeConfigs"),
  ],
  id: (inputs) => `pool/${inputs.pool}`,
  wait: (options) => waitForPoolRollout(options),
  observe: (options) => observePoolRollout(options),
  outputs: (result) => ({
    renderedConfig: result.renderedConfig,
    machineCount: result.machineCount,
    updatedMachineCount: result.updatedMachineCount,
    learnedTimings: result.learnedTimings ?? null,
  }),
});

export interface PoolRolloutArgs extends WaiterArgs {
  /** The MachineConfigPool, e.g. `worker` or `infra`. */
  pool: Input<string>;
  /**
   * MachineConfigs (created or changed) the pool must roll out. Name every one the change touches: the
   * waiter proves the render contains them, which is what makes it race-free. With none named it can
   * only wait for the pool to converge on whatever it targets when the wait starts.
   */
  machineConfigs?: Input<Input<string>[]>;
  /** MachineConfigs deleted outside this stack that the pool must drop. */
  deletedMachineConfigs?: Input<Input<string>[]>;
  /** KubeletConfigs selecting the pool; awaited through their generated MachineConfigs. */
  kubeletConfigs?: Input<Input<string>[]>;
  containerRuntimeConfigs?: Input<Input<string>[]>;
  /** Hash of the configurations awaited (see `contentHash`): a change waits again. */
  contentHash?: Input<string>;
}

/**
 * Waits until a MachineConfigPool has rolled out the given MachineConfigs on every node: race-free
 * (never on the stale `Updated=True` of the previous render), failing fast with each degraded node and
 * its reason, and on a paused pool.
 */
export class PoolRollout extends dynamic.Resource {
  declare public readonly pool: Output<string>;
  /** The rendered config every node of the pool runs. */
  declare public readonly renderedConfig: Output<string>;
  declare public readonly machineCount: Output<number>;
  declare public readonly updatedMachineCount: Output<number>;
  declare public readonly durationSeconds: Output<number>;
  /** Per-node drain and reboot seconds seen in the last rollout, for the next impact estimate. */
  declare public readonly learnedTimings: Output<NodeTimings | null>;

  constructor(name: string, args: PoolRolloutArgs, opts?: CustomResourceOptions) {
    super(
      poolRolloutProvider,
      name,
      waiterProps(
        args,
        opts,
        {
          pool: args.pool,
          machineConfigs: args.machineConfigs,
          deletedMachineConfigs: args.deletedMachineConfigs,
          kubeletConfigs: args.kubeletConfigs,
          containerRuntimeConfigs: args.containerRuntimeConfigs,
        },
        ["renderedConfig", "machineCount", "updatedMachineCount", "durationSeconds", "learnedTimings"],
      ),
      waiterOptions(opts),
      undefined,
      "PoolRollout",
    );
  }
}

export interface NodeConfigRemovalInputs extends RemovalInputs {
  pool: string;
  kind: NodeConfigKind;
  name: string;
}

/** The provider of NodeConfigRemoval: nothing to do on create; on delete, the wait for the rollout. */
export const nodeConfigRemovalProvider = removalProvider<NodeConfigRemovalInputs, PoolRolloutResult>({
  kind: "NodeConfigRemoval",
  inputKeys: ["pool", "kind", "name"],
  check: (inputs) => [
    ...checkName(inputs, "pool"),
    ...checkName(inputs, "name"),
    ...(inputs.kind === UNKNOWN || Object.hasOwn(NODE_CONFIG_KINDS, String(inputs.kind))
      ? []
      : [
          {
            property: "kind",
            reason: `kind must be one of ${Object.keys(NODE_CONFIG_KINDS).join(", ")}, got ${JSON.stringify(inputs.kind)}`,
          },
        ]),
  ],
  id: (inputs) => `node-config-removal/${inputs.pool}/${inputs.kind}/${inputs.name}`,
  // `read` reports how the pool stands.
  observe: (options) => observePoolRollout(options),
  remove: (options) => waitForNodeConfigRemoval(options),
});

export interface NodeConfigRemovalArgs extends RemovalArgs {
  /** The pool the object configures. */
  pool: Input<string>;
  kind: Input<NodeConfigKind>;
  name: Input<string>;
}

/**
 * Makes removing a MachineConfig, KubeletConfig or ContainerRuntimeConfig wait until its pool has
 * rolled out a render without it (or without the MachineConfig generated from it). Pulumi deletes in
 * reverse dependency order, so declare the object with `dependsOn: [removal]`: the object goes first,
 * then this waits for the rollout. An object that still exists and is not being deleted (only this
 * resource removed) is left alone, as is a pool that is gone.
 */
export class NodeConfigRemoval extends dynamic.Resource {
  declare public readonly kind: Output<NodeConfigKind>;
  declare public readonly name: Output<string>;

  constructor(name: string, args: NodeConfigRemovalArgs, opts?: CustomResourceOptions) {
    super(
      nodeConfigRemovalProvider,
      name,
      removalProps(args, opts, { pool: args.pool, kind: args.kind, name: args.name }),
      waiterOptions(opts),
      undefined,
      "NodeConfigRemoval",
    );
  }
}
