import * as assert from "node:assert/strict";
import {
  ConfigDiff,
  DEFAULT_CLUSTER_POLICIES,
  decide,
  DisruptionAction,
  filePolicyFor,
  mergeClusterPolicies,
  NodeDisruptionPolicy,
} from ".";

const diff = (change: Partial<ConfigDiff>): ConfigDiff => ({
  fields: [],
  files: [],
  units: [],
  sshKeys: false,
  ...change,
});
const reload = (serviceName: string): DisruptionAction => ({ type: "Reload", reload: { serviceName } });
const restart = (serviceName: string): DisruptionAction => ({ type: "Restart", restart: { serviceName } });
/** The decision of a change under the defaults merged with `policy`: its actions and whether it drains. */
const decided = (change: Partial<ConfigDiff>, policy?: NodeDisruptionPolicy) => {
  const { actions, drain } = decide(diff(change), mergeClusterPolicies(policy));
  return { actions, drain };
};

// openshift/machine-config-operator pkg/apihelpers/apihelpers.go MergeClusterPolicies.
describe("node disruption policies: the defaults merged with the cluster's", () => {
  it("a user policy replaces the default of its path or unit, whichever default it is, and is appended otherwise", () => {
    const pullSecret = { path: "/var/lib/kubelet/config.json", actions: [reload("crio.service")] };
    const chrony = { path: "/etc/chrony.conf", actions: [restart("chronyd.service")] };
    const merged = mergeClusterPolicies({ files: [pullSecret, chrony] });
    assert.deepEqual(merged.files[0], pullSecret, "the first default is replaced in place");
    assert.deepEqual(merged.files.slice(1, -1), DEFAULT_CLUSTER_POLICIES.files.slice(1));
    assert.deepEqual(merged.files.at(-1), chrony);
    assert.deepEqual(decided({ files: [pullSecret.path] }, { files: [pullSecret] }), {
      actions: [reload("crio.service")],
      drain: false,
    });

    const chronyd = { name: "chronyd.service", actions: [restart("chronyd.service")] };
    assert.deepEqual(mergeClusterPolicies({ units: [chronyd] }).units, [
      ...DEFAULT_CLUSTER_POLICIES.units,
      chronyd,
    ]);
  });

  it("the SSH key policy is the cluster's when it names actions, else the default None", () => {
    const drain = { actions: [{ type: "Drain" as const }] };
    assert.deepEqual(mergeClusterPolicies({ sshkey: drain }).sshkey, drain);
    assert.deepEqual(
      mergeClusterPolicies({ sshkey: { actions: [] } }).sshkey,
      DEFAULT_CLUSTER_POLICIES.sshkey,
    );
  });
});

// pkg/apihelpers/apihelpers.go defaultClusterPolicies, at the paths of pkg/daemon/constants.
describe("node disruption policies: the MCO's defaults", () => {
  it("what a change of each file the defaults name does to a node, and of the SSH keys", () => {
    const crio = [reload("crio.service")];
    const none = [{ type: "None" as const }];
    const expected: Array<[string, DisruptionAction[], boolean]> = [
      ["/var/lib/kubelet/config.json", none, false],
      ["/etc/machine-config-daemon/no-reboot/containers-gpg.pub", crio, false],
      ["/etc/containers/policy.json", crio, false],
      ["/etc/containers/registries.conf", [{ type: "Special" }], true],
      ["/etc/containers/registries.d/quay.io.yaml", crio, false],
      ["/etc/crio/policies/quay.io.json", crio, false],
      ["/etc/nmstate/openshift/cluster.yml", none, false],
      [
        "/etc/pki/ca-trust/source/anchors/openshift-config-user-ca-bundle.crt",
        [restart("coreos-update-ca-trust.service"), restart("crio.service")],
        false,
      ],
      [
        "/etc/kubernetes/credential-providers/ecr-credential-provider.yaml",
        [restart("kubelet.service")],
        false,
      ],
      [
        "/etc/systemd/system/kubelet.service.d/40-kubelet-crio-image-credential-provider.conf",
        [{ type: "DaemonReload" }, restart("kubelet.service")],
        false,
      ],
      ["/etc/iri-registry/config.yml", [restart("iri-registry.service")], false],
      ["/usr/local/bin/load-registry-image.sh", [restart("iri-registry.service")], false],
      [
        "/etc/pki/ca-trust/source/anchors/iri-root-ca.crt",
        [restart("coreos-update-ca-trust.service")],
        false,
      ],
    ];
    for (const [path, actions, drain] of expected) {
      const decision = decide(diff({ files: [path] }), mergeClusterPolicies(undefined));
      assert.deepEqual(
        [decision.causes[0].actions, decision.actions, decision.drain],
        [actions, actions, drain],
        path,
      );
    }
    const keys = decide(diff({ sshKeys: true }), mergeClusterPolicies(undefined));
    assert.deepEqual([keys.causes[0].actions, keys.actions, keys.drain], [none, none, false]);
  });
});

// pkg/controller/common/helpers.go FindClosestFilePolicyPathMatch and IsSubdirectory (filepath.Clean).
describe("node disruption policies: the file policy of a path", () => {
  it("is the policy of the path or of a directory above it, a directory written with trailing slashes too", () => {
    const crio = { path: "/etc/crio", actions: [reload("crio.service")] };
    const slashed = { path: "/etc/chrony.d//", actions: [restart("chronyd.service")] };
    assert.equal(filePolicyFor("/etc/crio/crio.conf.d/10-x", [crio]), crio);
    assert.equal(filePolicyFor("/etc/crio", [crio]), crio);
    assert.equal(filePolicyFor("/etc/crio-extra.conf", [crio]), undefined, "a sibling is not under it");
    assert.equal(filePolicyFor("/etc/chrony.d/pool.conf", [slashed]), slashed);
  });

  it("the longest matching path wins, in whatever order the policies come", () => {
    const etc = { path: "/etc", actions: [{ type: "Drain" as const }] };
    const crio = { path: "/etc/crio", actions: [reload("crio.service")] };
    assert.equal(filePolicyFor("/etc/crio/x", [etc, crio]), crio);
    assert.equal(filePolicyFor("/etc/crio/x", [crio, etc]), crio);
  });
});

// pkg/daemon/update.go calculatePostConfigChangeNodeDisruptionActionFromMCDiffs and pkg/daemon/drain.go
// isDrainRequiredForNodeDisruptionActions.
describe("node disruption policies: the actions a node takes", () => {
  it("a changed unit takes its policy's actions (the default iri-registry one, or the cluster's), else reboots", () => {
    const chronyd = { name: "chronyd.service", actions: [restart("chronyd.service")] };
    assert.deepEqual(decided({ units: ["chronyd.service"] }, { units: [chronyd] }), {
      actions: [restart("chronyd.service")],
      drain: false,
    });
    const iri = decide(diff({ units: ["iri-registry.service"] }), mergeClusterPolicies(undefined));
    assert.deepEqual(iri.actions, [{ type: "DaemonReload" }, restart("iri-registry.service")]);
    assert.deepEqual(iri.causes, [
      {
        kind: "unit",
        name: "iri-registry.service",
        actions: iri.actions,
        rule: "policy iri-registry.service",
      },
    ]);
    assert.deepEqual(decided({ units: ["other.service"] }, { units: [chronyd] }), {
      actions: [{ type: "Reboot" }],
      drain: true,
    });
  });

  it("None next to other actions is dropped; None alone stays one None", () => {
    // The pull secret's policy is None, policy.json's a crio reload, the SSH key's None.
    assert.deepEqual(decided({ files: ["/var/lib/kubelet/config.json", "/etc/containers/policy.json"] }), {
      actions: [reload("crio.service")],
      drain: false,
    });
    assert.deepEqual(decided({ files: ["/var/lib/kubelet/config.json"], sshKeys: true }), {
      actions: [{ type: "None" }],
      drain: false,
    });
  });

  it("a policy without actions adds none: the node neither reboots nor drains for it", () => {
    // The CRD admits an empty list; the daemon appends nothing for it.
    const quiet = { path: "/etc/quiet.conf", actions: [] };
    const { actions, drain } = decided({ files: ["/etc/quiet.conf"] }, { files: [quiet] });
    assert.deepEqual([actions.some((a) => a.type === "Reboot"), drain], [false, false]);
  });

  it("drains when any action drains, next to reloads and restarts", () => {
    const policy = { path: "/etc/app.conf", actions: [{ type: "Drain" as const }, reload("app.service")] };
    assert.deepEqual(decided({ files: ["/etc/app.conf"] }, { files: [policy] }), {
      actions: policy.actions,
      drain: true,
    });
    // registries.conf's special rule beside a reload of another file.
    assert.equal(
      decided({ files: ["/etc/containers/registries.conf", "/etc/containers/policy.json"] }).drain,
      true,
    );
  });
});
