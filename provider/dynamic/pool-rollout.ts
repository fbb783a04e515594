import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import { observePoolRollout, waitForPoolRollout } from "../waiting/waiters";
import type { PoolRolloutResult } from "../waiting/pool";
import {
  checkName,
  checkNames,
  WaiterInputs,
  WaiterArgs,
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
 * removal cannot be awaited here; name MachineConfigs deleted by other means in `deletedMachineConfigs`.
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
