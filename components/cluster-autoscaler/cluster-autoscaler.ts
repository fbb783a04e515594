import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { child } from "../declared";
import {
  CLUSTER_AUTOSCALER_API_VERSION,
  CLUSTER_AUTOSCALER_NAME,
  clusterAutoscaler,
  ClusterAutoscalerArgs as ClusterAutoscalerSpec,
} from "../../builders/autoscaling";
import { within } from "../../builders/errors";
import { adoptOption, kubeOptions, manifestArgs } from "../cluster/kube";
import { InputChecks } from "../errors";

export interface ClusterAutoscalerArgs {
  /** The autoscaler's settings (resource limits, scale-down, balancing, priority threshold, expanders). */
  spec?: pulumi.Input<ClusterAutoscalerSpec>;
  /**
   * Kubernetes provider for the cluster, of its object; default the `provider` or
   * `providers` option's (the component's or a parent's), else the stack's default provider.
   */
  provider?: k8s.Provider;
  /**
   * Adopt the cluster's `default` ClusterAutoscaler (often made in the console): Pulumi's `import`, so the
   * first `up` reads it and applies only what `spec` declares differently, each field in the preview's
   * diff; fields it leaves out stay as they are. It must exist.
   */
  adopt?: boolean;
}

/** The manifest of `spec`, its errors at the paths the user wrote (`spec.scaleDown.unneededTime`). */
const manifestOf = (spec: ClusterAutoscalerSpec | undefined) =>
  within("spec", () => clusterAutoscaler(spec ?? {}));

/**
 * The cluster-wide ClusterAutoscaler `default`: without it no MachineAutoscaler scales anything. One per
 * cluster; the pools' `autoscaling` bounds say which MachineSets it may scale.
 */
export class ClusterAutoscaler extends pulumi.ComponentResource {
  /** The ClusterAutoscaler object, declared once its spec is checked. */
  declare public readonly resource: pulumi.Output<k8s.apiextensions.CustomResource>;
  /** `default`, the one name the machine-api acts on; fails with every mistake of `spec` when any. */
  declare public readonly clusterAutoscalerName: pulumi.Output<string>;

  constructor(name: string, args: ClusterAutoscalerArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:ClusterAutoscaler", name, {}, opts);
    const checks = new InputChecks(`ClusterAutoscaler "${name}"`);
    // Every part of spec is checked as soon as it is known, whatever else is still unknown.
    checks.asKnown((a: { spec?: ClusterAutoscalerSpec }) => manifestOf(a.spec), { spec: args.spec });
    const valid = checks.valid();
    const manifest = pulumi.all([valid, args.spec]).apply(([, spec]) => manifestOf(spec));
    this.resource = child(
      k8s.apiextensions.CustomResource,
      `${name}-cluster-autoscaler`,
      manifestArgs(CLUSTER_AUTOSCALER_API_VERSION, "ClusterAutoscaler", manifest, ["metadata", "spec"]),
      // Declared from a checked manifest only: nothing reaches the cluster from bad input.
      kubeOptions(this, args.provider, adoptOption(args.adopt, CLUSTER_AUTOSCALER_NAME)),
    );
    this.clusterAutoscalerName = this.resource.apply((r) => r.metadata.name);
    this.registerOutputs({ clusterAutoscalerName: this.clusterAutoscalerName });
  }
}
