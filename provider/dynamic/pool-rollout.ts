import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import { observePoolRollout, waitForMachineConfigRemoval, waitForPoolRollout } from "../waiting/waiters";
import type { PoolRolloutResult } from "../waiting/pool";
import {
  checkName,
  checkNames,
  RemovalArgs,
  RemovalInputs,
  removalProps,
  removalProvider,
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
}

/**
 * The provider of PoolRollout. MachineConfigs that disappear from `machineConfigs` are not awaited on
 * update: Pulumi deletes removed resources at the end of the deployment, after this update, so their
 * removal is awaited by a MachineConfigRemoval declared before them; name MachineConfigs deleted by
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
  observe: (inputs) => observePoolRollout({ ...inputs, timeoutMs: 60_000 }),
  outputs: (result) => ({
    renderedConfig: result.renderedConfig,
    machineCount: result.machineCount,
    updatedMachineCount: result.updatedMachineCount,
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
        ["renderedConfig", "machineCount", "updatedMachineCount", "durationSeconds"],
      ),
      waiterOptions(opts),
      undefined,
      "PoolRollout",
    );
  }
}

export interface MachineConfigRemovalInputs extends RemovalInputs {
  pool: string;
  machineConfig: string;
}

/** The provider of MachineConfigRemoval: nothing to do on create; on delete, the wait for the rollout. */
export const machineConfigRemovalProvider = removalProvider<MachineConfigRemovalInputs, PoolRolloutResult>({
  kind: "MachineConfigRemoval",
  inputKeys: ["pool", "machineConfig"],
  check: (inputs) => [...checkName(inputs, "pool"), ...checkName(inputs, "machineConfig")],
  id: (inputs) => `machineconfig-removal/${inputs.pool}/${inputs.machineConfig}`,
  // `read` reports how the pool stands.
  observe: (inputs) => observePoolRollout({ ...inputs, timeoutMs: 60_000 }),
  remove: (options) => waitForMachineConfigRemoval(options),
});

export interface MachineConfigRemovalArgs extends RemovalArgs {
  /** The pool the MachineConfig is for. */
  pool: Input<string>;
  machineConfig: Input<string>;
}

/**
 * Makes removing a MachineConfig wait until its pool has rolled out a render without it. Pulumi deletes
 * in reverse dependency order, so declare the MachineConfig with `dependsOn: [removal]`: the
 * MachineConfig goes first, then this waits for the rollout. One that still exists and is not being
 * deleted (only this resource removed) is left alone, as is a pool that is gone.
 */
export class MachineConfigRemoval extends dynamic.Resource {
  declare public readonly machineConfig: Output<string>;

  constructor(name: string, args: MachineConfigRemovalArgs, opts?: CustomResourceOptions) {
    super(
      machineConfigRemovalProvider,
      name,
      removalProps(args, opts, { pool: args.pool, machineConfig: args.machineConfig }),
      waiterOptions(opts),
      undefined,
      "MachineConfigRemoval",
    );
  }
}
