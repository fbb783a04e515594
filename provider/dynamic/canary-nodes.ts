import { CustomResourceOptions, dynamic, Input, Output, secret } from "@pulumi/pulumi";
import { placeCanaryNodes, returnCanaryNodes } from "../waiting/canary";
import {
  changedInputs,
  checkCommon,
  checkDeleteTimeout,
  checkName,
  checkNames,
  deadlineMs,
  providerProgress,
  timeoutsFrom,
  waiterOptions,
} from "./common";
import { currentCredentials, explainRejectedCredentials } from "./credentials";
import { carriedProvider, ProviderOf } from "./schema";
import * as self from "./canary-nodes";

interface CanaryNodesInputs {
  kubeconfig: string;
  pool: string;
  parent: string;
  nodes: string[];
  timeoutSeconds?: number;
  deleteTimeoutSeconds?: number;
}

interface CanaryNodesOutputs extends CanaryNodesInputs {
  labelled: string[];
}

/** The core's options with the credentials current in the provider's host. */
function optionsOf(inputs: CanaryNodesInputs, labelled: string[], seconds: number | undefined) {
  const credentials = currentCredentials(inputs.kubeconfig);
  const { log } = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
  if (credentials.note) void log.warn(`CanaryNodes ${inputs.pool}: ${credentials.note}`);
  const options = {
    kubeconfig: credentials.kubeconfig,
    pool: inputs.pool,
    parent: inputs.parent,
    nodes: inputs.nodes,
    labelled,
    timeoutMs: deadlineMs(seconds),
    onProgress: providerProgress(`CanaryNodes ${inputs.pool}`),
  };
  const explained = (e: unknown) => {
    throw explainRejectedCredentials(e, credentials.source);
  };
  return { options, explained };
}

/** Labels the nodes into the pool (returning those it labelled before and no longer lists) and waits. */
async function place(inputs: CanaryNodesInputs, labelled: string[]): Promise<CanaryNodesOutputs> {
  const { options, explained } = optionsOf(inputs, labelled, inputs.timeoutSeconds);
  const outcome = await placeCanaryNodes(options).catch(explained);
  return { ...inputs, labelled: outcome.result.labelled };
}

/**
 * The provider of `CanaryNodes`: create and update label the listed nodes into the canary pool and
 * wait until they run its render (an update returns the nodes it labelled and no longer lists); delete
 * removes the labels it wrote and waits until those nodes run the parent pool's render again. Its
 * outputs remember which nodes it labelled: a label someone else set is never removed.
 */
export const canaryNodesProvider: dynamic.ResourceProvider = {
  async check(_olds: Record<string, unknown>, news: Record<string, unknown>) {
    const failures = [
      ...checkCommon(news),
      ...checkDeleteTimeout(news),
      ...checkName(news, "pool"),
      ...checkName(news, "parent"),
      ...checkNames(news, "nodes", true),
    ];
    return { inputs: news, failures };
  },
  async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    const replaces = changedInputs(olds, news, ["pool", "parent"]);
    const changes = replaces.length > 0 || changedInputs(olds, news, ["nodes"]).length > 0;
    return { changes, replaces, deleteBeforeReplace: true };
  },
  async create(inputs: CanaryNodesInputs) {
    return { id: `canary/${inputs.pool}`, outs: await place(inputs, []) };
  },
  async update(_id: string, olds: CanaryNodesOutputs, news: CanaryNodesInputs) {
    return { outs: await place(news, olds.labelled ?? []) };
  },
  async read(id: string, props: CanaryNodesOutputs) {
    return { id, props };
  },
  async delete(_id: string, props: CanaryNodesOutputs) {
    const { options, explained } = optionsOf(props, props.labelled ?? [], props.deleteTimeoutSeconds);
    await returnCanaryNodes(options).catch(explained);
  },
};

export interface CanaryNodesArgs {
  /** Kubeconfig YAML of the cluster; stored as a secret whatever is passed. */
  kubeconfig: Input<string>;
  /** The canary MachineConfigPool, whose node role label the nodes get. */
  pool: Input<string>;
  /** The pool the nodes come from and return to. */
  parent: Input<string>;
  /** The nodes that belong in the canary pool. */
  nodes: Input<Input<string>[]>;
  /** Deadline of create and update in seconds; defaults to the longer of customTimeouts create/update, else 30 minutes. */
  timeoutSeconds?: Input<number>;
}

/**
 * Canary nodes (provider/waiting/canary.ts): named nodes of a pool labelled into a custom pool of their
 * own, waited for until they run its render, and returned (their labels removed, waited for until they
 * run the parent's render again) when they leave the list or the resource is deleted.
 */
export class CanaryNodes extends dynamic.Resource {
  /** The nodes whose label this resource wrote, and so removes. */
  declare readonly labelled: Output<string[]>;
  constructor(name: string, args: CanaryNodesArgs, opts?: CustomResourceOptions) {
    const timeouts = timeoutsFrom(args.timeoutSeconds, opts);
    super(
      carriedProvider(canaryNodesProvider, (): ProviderOf => self.canaryNodesProvider),
      name,
      {
        ...args,
        kubeconfig: secret(args.kubeconfig),
        ...(timeouts.timeoutSeconds === undefined ? {} : { timeoutSeconds: timeouts.timeoutSeconds }),
        ...(timeouts.deleteTimeoutSeconds === undefined
          ? {}
          : { deleteTimeoutSeconds: timeouts.deleteTimeoutSeconds }),
        labelled: undefined,
      },
      waiterOptions(opts),
      undefined,
      "CanaryNodes",
    );
  }
}
