import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  containerRuntimeConfig,
  ContainerRuntimeConfigArgs as ContainerRuntimeConfigSpec,
  kubeletConfig,
  KubeletConfigArgs as KubeletConfigSpec,
  machineConfig,
  MachineConfigArgs as MachineConfigSpec,
  MACHINECONFIGURATION_API_VERSION,
  machineConfigPool,
  MachineConfigPoolArgs as MachineConfigPoolSpec,
} from "../../builders/machineconfiguration";
import { kubeOptions, manifestArgs } from "../cluster/kube";
import { checked } from "../errors";

/** Every field of a builder's args as a Pulumi input, the object name optional (default: resource name). */
type Inputs<T> = { [K in keyof T]: pulumi.Input<T[K]> };
type ComponentArgs<T extends { name: string }> = Omit<Inputs<T>, "name"> & {
  /** Object name in the cluster; default the Pulumi resource name. */
  name?: pulumi.Input<string>;
  /** Kubernetes provider for the cluster; default the stack's default provider. */
  provider?: k8s.Provider;
};

export type MachineConfigPoolArgs = ComponentArgs<MachineConfigPoolSpec>;
export type MachineConfigArgs = ComponentArgs<MachineConfigSpec>;
export type KubeletConfigArgs = ComponentArgs<KubeletConfigSpec>;
export type ContainerRuntimeConfigArgs = ComponentArgs<ContainerRuntimeConfigSpec>;

/**
 * The machine-configuration components each own one cluster-scoped object built by a pure builder:
 * inputs resolved, checked (bad input is an InputPropertyError naming the property), rendered, applied.
 */
abstract class MachineConfigurationObject<T extends { name: string }> extends pulumi.ComponentResource {
  /** The object's name in the cluster. */
  declare public readonly objectName: pulumi.Output<string>;
  /** The Kubernetes object. */
  declare public readonly resource: k8s.apiextensions.CustomResource;

  protected constructor(
    type: string,
    kind: string,
    build: (spec: T) => { metadata: { name: string } },
    name: string,
    args: ComponentArgs<T>,
    opts: pulumi.ComponentResourceOptions,
  ) {
    super(`openshift-topology:index:${type}`, name, {}, opts);
    const { provider, ...inputs } = args;
    const manifest = pulumi
      .output(inputs as pulumi.Input<Record<string, unknown>>)
      .apply((values) => checked(() => build({ ...values, name: values.name ?? name } as unknown as T)));
    this.resource = new k8s.apiextensions.CustomResource(
      name,
      manifestArgs(MACHINECONFIGURATION_API_VERSION, kind, manifest, ["metadata", "spec"]),
      kubeOptions(this, provider),
    );
    this.objectName = manifest.apply((m) => m.metadata.name);
    this.registerOutputs({ objectName: this.objectName });
  }
}

/** A custom MachineConfigPool that inherits worker configs (seed 000), for nodes of one role. */
export class MachineConfigPool extends MachineConfigurationObject<MachineConfigPoolSpec> {
  constructor(name: string, args: MachineConfigPoolArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    super("MachineConfigPool", "MachineConfigPool", machineConfigPool, name, args, opts);
  }
}

/**
 * A MachineConfig for the pool of `role`: Ignition files, systemd units, kernel settings. The machine
 * config server is reachable from the node network, so never put secrets in one.
 */
export class MachineConfig extends MachineConfigurationObject<MachineConfigSpec> {
  constructor(name: string, args: MachineConfigArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("MachineConfig", "MachineConfig", machineConfig, name, args, opts);
  }
}

/** Kubelet settings for one pool, which the MCO turns into a generated MachineConfig. */
export class KubeletConfig extends MachineConfigurationObject<KubeletConfigSpec> {
  constructor(name: string, args: KubeletConfigArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("KubeletConfig", "KubeletConfig", kubeletConfig, name, args, opts);
  }
}

/** CRI-O settings for one pool, which the MCO turns into a generated MachineConfig. */
export class ContainerRuntimeConfig extends MachineConfigurationObject<ContainerRuntimeConfigSpec> {
  constructor(name: string, args: ContainerRuntimeConfigArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("ContainerRuntimeConfig", "ContainerRuntimeConfig", containerRuntimeConfig, name, args, opts);
  }
}
