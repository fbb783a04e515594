import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  entriesHeldByOthers,
  ManagedFieldsOf,
  MACHINE_CONFIGURATION_API_VERSION,
  nodeDisruptionPolicyPatch,
  nodeDisruptionPolicyProblems,
  NodeDisruptionPolicyArgs as PolicySpec,
  policyPaths,
} from "../../builders/machineconfiguration/node-disruption-policy";
import type { DisruptionAction, NodeDisruptionPolicy as Policy } from "../../builders/rollout-impact";
import { InputErrors } from "../../builders/errors";
import { patchTarget } from "../../builders/patch";
import { manifestArgs, patchFieldManager, withAnnotations } from "../cluster/kube";
import { clusterAccess } from "../cluster/wait";
import { released } from "../cluster/released";
import { clusterOfThisRun } from "../cluster/preview-run";
import { declarePolicy, handInPolicy } from "../cluster/pool-summary";
import { checked, InputChecks } from "../errors";
import { child } from "../declared";

export interface NodeDisruptionPolicyArgs {
  /**
   * What a node does when a file a MachineConfig writes at `path` changes (or under it, for a
   * directory; the closest path wins), instead of draining and rebooting: e.g. `[{ type: "Reload",
   * reload: { serviceName: "crio.service" } }]`. Actions: Reboot, None, Drain, Reload, Restart,
   * DaemonReload. A path the cluster already has a policy for, set by someone else, is refused at
   * preview: remove it there first.
   */
  files?: pulumi.Input<PolicySpec["files"]>;
  /** What a node does when the systemd unit `name` (e.g. `chronyd.service`) of a MachineConfig changes. */
  units?: pulumi.Input<PolicySpec["units"]>;
  /** What a node does when the `core` user's SSH keys change; the cluster's default is None. */
  sshkey?: pulumi.Input<{ actions: DisruptionAction[] }>;
  /**
   * Kubernetes provider for the cluster; default the `provider` or `providers` option's (the
   * component's or a parent's), else the stack's default provider.
   */
  provider?: k8s.Provider;
  /**
   * Kubeconfig of the cluster, for the preview's read of its policies and for giving back on destroy
   * what the patch took; kept secret in state. Default: the one the Kubernetes provider connects with.
   * @secret
   */
  kubeconfig?: pulumi.Input<string>;
}

/** The field manager of a policy's patch: its own, so that it owns its entries and no other policy's. */
export function policyFieldManager(name: string): string {
  return patchFieldManager(`policy-${name}`)["pulumi.com/patchFieldManager"];
}

/**
 * Node disruption policies the program declares: its own entries of `spec.nodeDisruptionPolicy` of
 * `MachineConfiguration/cluster` (files by path, units by name, sshkey), applied with a field manager
 * of its own so that entries others set stay theirs, and given back on destroy. The machine config
 * daemon then restarts or reloads a service instead of draining and rebooting for a change those
 * entries cover (pkg/daemon/update.go calculatePostConfigChangeNodeDisruptionAction), and the pool
 * lines of the same preview say so. MachineConfigs, KubeletConfigs, ContainerRuntimeConfigs and
 * MachineConfigPools declared after it in the program are applied after it, and their removal waits
 * for it: declare it first.
 */
export class NodeDisruptionPolicy extends pulumi.ComponentResource {
  /** The policies this component declares, as applied. */
  declare public readonly policy: pulumi.Output<Policy>;
  /** The patch of `MachineConfiguration/cluster`. */
  declare public readonly patch: pulumi.Output<k8s.apiextensions.CustomResourcePatch>;

  constructor(name: string, args: NodeDisruptionPolicyArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:NodeDisruptionPolicy", name, {}, opts);
    const { provider, kubeconfig, ...inputs } = args;
    const checks = new InputChecks(`NodeDisruptionPolicy "${name}"`);
    checks.asKnown(nodeDisruptionPolicyPatch, inputs);
    const cluster = checks.now(() => clusterAccess({ provider, kubeconfig, wait: false }, this), undefined);
    if (cluster) checks.add(cluster.check);
    const values = pulumi.output(
      inputs as pulumi.Input<Record<string, unknown>>,
    ) as pulumi.Output<PolicySpec>;
    const manager = policyFieldManager(name);
    if (cluster && pulumi.runtime.isDryRun()) checks.add(heldByOthers(cluster.kubeconfig, values, manager));
    const manifest = pulumi
      .all([checks.valid(), values])
      .apply(([, v]) => checked(() => nodeDisruptionPolicyPatch(v)));
    this.policy = manifest.apply((m) => m.spec.nodeDisruptionPolicy);
    const annotated = manifest.apply((m) => withAnnotations(m, { "pulumi.com/patchFieldManager": manager }));
    const kopts: pulumi.CustomResourceOptions = { parent: this, ...(provider ? { provider } : {}) };
    this.patch = child(
      k8s.apiextensions.CustomResourcePatch,
      name,
      manifestArgs(MACHINE_CONFIGURATION_API_VERSION, "MachineConfiguration", annotated, [
        "metadata",
        "spec",
      ]),
      released(
        cluster,
        name,
        { target: manifest.apply(patchTarget), paths: manifest.apply(policyPaths), fieldManager: manager },
        [],
        kopts,
      ),
    );
    const seq = declarePolicy(this.patch);
    handInPolicy(cluster?.kubeconfig, { seq, name, policy: this.policy });
    this.registerOutputs({ policy: this.policy });
  }
}

/**
 * At preview, fails naming each declared entry the cluster already holds from someone else; nothing
 * when the cluster does not answer (the pool lines warn of that) or the declaration is bad (its own
 * check reports it).
 */
function heldByOthers(
  kubeconfig: pulumi.Output<string>,
  values: pulumi.Output<PolicySpec>,
  manager: string,
): pulumi.Output<void> {
  return pulumi.all([pulumi.unsecret(kubeconfig), values]).apply(async ([config, declared]) => {
    if (nodeDisruptionPolicyProblems(declared).length > 0) return;
    const cluster = clusterOfThisRun(config);
    if ((await cluster.unreachableBecause()) !== undefined) return;
    const live = await cluster.machineConfiguration().catch(() => undefined);
    checked(() =>
      InputErrors.throwIfAny(
        entriesHeldByOthers(live as ManagedFieldsOf | undefined, declared as Policy, manager),
      ),
    );
  });
}
