import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  CLUSTER_AUTOSCALER_API_VERSION,
  clusterAutoscaler,
  ClusterAutoscalerArgs as ClusterAutoscalerSpec,
} from "../../builders/autoscaling";
import { kubeOptions, manifestArgs } from "../cluster/kube";
import { checked } from "../errors";

export interface ClusterAutoscalerArgs {
  /** The autoscaler's settings (resource limits, scale-down, balancing, priority threshold, expanders). */
  spec?: pulumi.Input<ClusterAutoscalerSpec>;
  /** Kubernetes provider for the cluster; default the stack's default provider. */
  provider?: k8s.Provider;
}

/**
 * The cluster-wide ClusterAutoscaler `default`: without it no MachineAutoscaler scales anything. One per
 * cluster; the pools' `autoscaling` bounds say which MachineSets it may scale.
 */
export class ClusterAutoscaler extends pulumi.ComponentResource {
  declare public readonly resource: k8s.apiextensions.CustomResource;

  constructor(name: string, args: ClusterAutoscalerArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:ClusterAutoscaler", name, {}, opts);
    const manifest = pulumi.output(args.spec ?? {}).apply((spec) => checked(() => clusterAutoscaler(spec)));
    this.resource = new k8s.apiextensions.CustomResource(
      `${name}-cluster-autoscaler`,
      manifestArgs(CLUSTER_AUTOSCALER_API_VERSION, "ClusterAutoscaler", manifest, ["metadata", "spec"]),
      kubeOptions(this, args.provider),
    );
    this.registerOutputs({});
  }
}
