/**
 * The Machine Config Operator's rules for what a node does to apply a new rendered config, as data.
 * This is the one home of those rules: the rollout-impact prediction and the bundled simulator's
 * machine-config-daemon both evaluate them.
 *
 * Sources (openshift/machine-config-operator, master of 2026-08):
 * - pkg/daemon/update.go `calculatePostConfigChangeNodeDisruptionAction` and
 *   `calculatePostConfigChangeNodeDisruptionActionFromMCDiffs`: the decision on a running node.
 * - pkg/daemon/update.go `newMachineConfigDiff`: the fields compared between the two rendered configs.
 * - pkg/apihelpers/apihelpers.go `defaultClusterPolicies` and `MergeClusterPolicies`: the default node
 *   disruption policies and how `machineconfigurations.operator.openshift.io/cluster`
 *   `spec.nodeDisruptionPolicy` overrides them.
 * - pkg/controller/common/helpers.go `FindClosestFilePolicyPathMatch`: a file policy applies to its path
 *   and everything under it; the longest matching path wins.
 * - pkg/daemon/drain.go `isDrainRequiredForNodeDisruptionActions`: which actions drain the node.
 * - pkg/daemon/constants/constants.go: the paths.
 */

/** The action types of a node disruption policy (CRD `machineconfigurations.operator.openshift.io`). */
export const DISRUPTION_ACTION_TYPES = [
  "Reboot",
  "Drain",
  "Reload",
  "Restart",
  "DaemonReload",
  "None",
] as const;
export type DisruptionActionType = (typeof DISRUPTION_ACTION_TYPES)[number];

/**
 * One action as the policy API spells it. `Special` is internal to the MCO (status only): the
 * registries.conf rule, a crio reload that drains unless the change only adds digest-only mirrors.
 */
export interface DisruptionAction {
  /** Reboot, Drain, Reload, Restart, DaemonReload or None (Reboot and None only alone). */
  type: DisruptionActionType | "Special";
  /** With Reload: the service to reload, e.g. `crio.service`. */
  reload?: { serviceName: string };
  /** With Restart: the service to restart, e.g. `chronyd.service`. */
  restart?: { serviceName: string };
}

/** What a node does when a file changes. */
export interface FilePolicy {
  /** The file's absolute path, or a directory above it (the closest path wins). */
  path: string;
  /** The actions, in order (at most 10). */
  actions: DisruptionAction[];
}

/** What a node does when a systemd unit changes. */
export interface UnitPolicy {
  /** The unit's name, e.g. `chronyd.service`. */
  name: string;
  /** The actions, in order (at most 10). */
  actions: DisruptionAction[];
}

/** `spec.nodeDisruptionPolicy` of `machineconfigurations.operator.openshift.io/cluster`. */
export interface NodeDisruptionPolicy {
  /** Per file path (at most 50). */
  files?: FilePolicy[];
  /** Per systemd unit (at most 50). */
  units?: UnitPolicy[];
  /** On a change of the `core` user's SSH keys. */
  sshkey?: {
    /** The actions, in order (at most 10). */
    actions: DisruptionAction[];
  };
}

/** The default and user policies merged, as the operator writes them to `status.nodeDisruptionPolicyStatus`. */
export interface ClusterPolicies {
  files: FilePolicy[];
  units: UnitPolicy[];
  sshkey: { actions: DisruptionAction[] };
}

/**
 * Fields of a MachineConfig whose change always reboots, whatever the policies say
 * (`if diff.osUpdate || diff.kargs || diff.fips || diff.kernelType || diff.extensions`).
 */
export const ALWAYS_REBOOT_FIELDS = [
  "osImageURL",
  "kernelArguments",
  "fips",
  "kernelType",
  "extensions",
] as const;
export type AlwaysRebootField = (typeof ALWAYS_REBOOT_FIELDS)[number];

const reloadCrio: DisruptionAction = { type: "Reload", reload: { serviceName: "crio.service" } };
const restart = (serviceName: string): DisruptionAction => ({ type: "Restart", restart: { serviceName } });
const IRI_REGISTRY = "iri-registry.service";
const UPDATE_CA_TRUST = "coreos-update-ca-trust.service";

/** `defaultClusterPolicies` in pkg/apihelpers/apihelpers.go, in its order. */
export const DEFAULT_CLUSTER_POLICIES: ClusterPolicies = {
  files: [
    // KubeletAuthFile: the global pull secret.
    { path: "/var/lib/kubelet/config.json", actions: [{ type: "None" }] },
    // GPGNoRebootPath
    { path: "/etc/machine-config-daemon/no-reboot/containers-gpg.pub", actions: [reloadCrio] },
    // ContainerRegistryPolicyPath
    { path: "/etc/containers/policy.json", actions: [reloadCrio] },
    // ContainerRegistryConfPath: reload crio, drain unless the change is safe (isSafeContainerRegistryConfChanges).
    { path: "/etc/containers/registries.conf", actions: [{ type: "Special" }] },
    // SigstoreRegistriesConfigDir
    { path: "/etc/containers/registries.d", actions: [reloadCrio] },
    // CrioPoliciesDir
    { path: "/etc/crio/policies", actions: [reloadCrio] },
    // OpenShiftNMStateConfigDir
    { path: "/etc/nmstate/openshift", actions: [{ type: "None" }] },
    // UserCABundlePath
    {
      path: "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt",
      actions: [restart(UPDATE_CA_TRUST), restart("crio.service")],
    },
    // KubernetesCredentialProvidersDir
    { path: "/etc/kubernetes/credential-providers", actions: [restart("kubelet.service")] },
    // KubeletCrioImageCredProviderConfPath
    {
      path: "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf",
      actions: [{ type: "DaemonReload" }, restart("kubelet.service")],
    },
    // IRIRegistryConfigPath, IRILoadImageScriptPath, IRIRootCAPath
    { path: "/etc/iri-registry", actions: [restart(IRI_REGISTRY)] },
    { path: "/usr/local/bin/load-registry-image.sh", actions: [restart(IRI_REGISTRY)] },
    { path: "/etc/pki/ca-trust/source/anchors/iri-root-ca.crt", actions: [restart(UPDATE_CA_TRUST)] },
  ],
  units: [{ name: IRI_REGISTRY, actions: [{ type: "DaemonReload" }, restart(IRI_REGISTRY)] }],
  sshkey: { actions: [{ type: "None" }] },
};

/** `MergeClusterPolicies`: a user policy replaces the default of the same path or unit, or is appended. */
export function mergeClusterPolicies(user: NodeDisruptionPolicy | undefined): ClusterPolicies {
  const merge = <T>(defaults: T[], extra: T[] | undefined, key: (t: T) => string): T[] => {
    const out = [...defaults];
    for (const p of extra ?? []) {
      const i = out.findIndex((d) => key(d) === key(p));
      if (i >= 0 && i < defaults.length) out[i] = p;
      else out.push(p);
    }
    return out;
  };
  return {
    files: merge(DEFAULT_CLUSTER_POLICIES.files, user?.files, (p) => p.path),
    units: merge(DEFAULT_CLUSTER_POLICIES.units, user?.units, (p) => p.name),
    sshkey: user?.sshkey?.actions?.length ? user.sshkey : DEFAULT_CLUSTER_POLICIES.sshkey,
  };
}

/** `FindClosestFilePolicyPathMatch`: exact path or a directory above it, longest wins. */
export function filePolicyFor(path: string, files: FilePolicy[]): FilePolicy | undefined {
  let best: FilePolicy | undefined;
  for (const p of files) {
    const dir = p.path.replace(/\/+$/, "") + "/";
    if ((path === p.path || path.startsWith(dir)) && (!best || p.path.length > best.path.length)) best = p;
  }
  return best;
}

/** What changed between two rendered configs, as the daemon's diff sees it. */
export interface ConfigDiff {
  /** Changed always-reboot fields. */
  fields: AlwaysRebootField[];
  /** Files added, changed or removed. */
  files: string[];
  /** Units added, changed or removed (by name). */
  units: string[];
  /** The `core` user's SSH keys (the passwd section). */
  sshKeys: boolean;
}

/** Why a node takes an action: the changed thing and the rule that decided. */
export interface Cause {
  kind: "field" | "file" | "unit" | "sshKeys";
  /** The field, path or unit name. */
  name: string;
  actions: DisruptionAction[];
  /** The rule, e.g. `policy /etc/containers/registries.conf` or `no policy: reboot`. */
  rule: string;
}

export interface Decision {
  /** The final action list, as the daemon executes it. */
  actions: DisruptionAction[];
  /** Every changed item with its own rule (the reboot cause first when the node reboots). */
  causes: Cause[];
  drain: boolean;
}

const REBOOT: DisruptionAction = { type: "Reboot" };

/**
 * `calculatePostConfigChangeNodeDisruptionAction(FromMCDiffs)`: the actions a node takes for a diff
 * under the merged cluster policies. Any Reboot wins; None is dropped next to other actions.
 */
export function decide(diff: ConfigDiff, policies: ClusterPolicies): Decision {
  const causes: Cause[] = [];
  for (const f of diff.fields)
    causes.push({ kind: "field", name: f, actions: [REBOOT], rule: `${f} changes always reboot` });
  for (const path of diff.files) {
    const p = filePolicyFor(path, policies.files);
    causes.push(
      p
        ? { kind: "file", name: path, actions: p.actions, rule: `policy ${p.path}` }
        : { kind: "file", name: path, actions: [REBOOT], rule: "no policy for the file: reboot" },
    );
  }
  for (const unit of diff.units) {
    const p = policies.units.find((u) => u.name === unit);
    causes.push(
      p
        ? { kind: "unit", name: unit, actions: p.actions, rule: `policy ${p.name}` }
        : { kind: "unit", name: unit, actions: [REBOOT], rule: "no policy for the unit: reboot" },
    );
  }
  if (diff.sshKeys)
    causes.push({ kind: "sshKeys", name: "core", actions: policies.sshkey.actions, rule: "policy sshkey" });

  const all = causes.flatMap((c) => c.actions);
  const rebootCause = causes.find((c) => c.actions.some((a) => a.type === "Reboot"));
  if (rebootCause) {
    return {
      actions: [REBOOT],
      causes: [rebootCause, ...causes.filter((c) => c !== rebootCause)],
      drain: true,
    };
  }
  const acting = all.filter((a) => a.type !== "None");
  const actions = acting.length > 0 ? acting : [{ type: "None" as const }];
  // isDrainRequiredForNodeDisruptionActions; Special drains unless the registries change is "safe"
  // (only digest-only mirrors added), which needs the file contents: predicted as a drain.
  const drain = actions.some((a) => a.type === "Drain" || a.type === "Special");
  return { actions, causes, drain };
}

/** The service a Reload, Restart or Special action acts on (Special reloads crio). */
export function serviceOf(a: DisruptionAction): string | undefined {
  if (a.type === "Reload") return a.reload?.serviceName;
  if (a.type === "Restart") return a.restart?.serviceName;
  if (a.type === "Special") return "crio.service";
  return undefined;
}
