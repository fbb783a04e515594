import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { inputErrors } from "../../test/input-error";
import { DISRUPTION_ACTION_TYPES, NodeDisruptionPolicy } from "../rollout-impact/rules";
import { assertMatchesCrd } from "../../test/crd-schemas";
import { CRDS, requireReference } from "../../test/reference";
import {
  MAX_POLICY_ACTIONS,
  MAX_POLICY_ENTRIES,
  MAX_SERVICE_NAME,
  entriesHeldByOthers,
  nodeDisruptionPolicyPatch,
  policyPaths,
  SERVICE_SUFFIXES,
  withDeclaredPolicies,
} from "./node-disruption-policy";

const reloadCrio = { type: "Reload" as const, reload: { serviceName: "crio.service" } };

describe("node disruption policy builder", () => {
  it("renders the patch of MachineConfiguration cluster with only the declared entries, in order", () => {
    const policy: NodeDisruptionPolicy = {
      files: [
        { path: "/etc/containers/registries.d/mine.yaml", actions: [reloadCrio] },
        {
          path: "/etc/chrony.conf",
          actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }],
        },
      ],
      units: [{ name: "my.service", actions: [{ type: "DaemonReload" }, { type: "Drain" }] }],
      sshkey: { actions: [{ type: "None" }] },
    };
    const patch = nodeDisruptionPolicyPatch(policy);
    assert.deepEqual(patch, {
      apiVersion: "operator.openshift.io/v1",
      kind: "MachineConfiguration",
      metadata: { name: "cluster" },
      spec: { nodeDisruptionPolicy: policy },
    });
  });

  it("refuses what the CRD's schema and CEL rules refuse, every problem at once", () => {
    const errors = inputErrors(() =>
      nodeDisruptionPolicyPatch({
        files: [
          { path: "etc/chrony.conf", actions: [{ type: "Reboot" }, { type: "Drain" }] },
          { path: "/etc/a", actions: [{ type: "Reload" } as never] },
          { path: "/etc/a", actions: [{ type: "None", restart: { serviceName: "x.service" } } as never] },
          { path: "/etc/b", actions: [{ type: "Restart", restart: { serviceName: "chronyd" } }] },
        ],
        units: [
          { name: "crio", actions: [{ type: "None" }, { type: "Drain" }] },
          { name: "a/b.service", actions: [{ type: "Kill" } as never] },
        ],
        sshkey: { actions: "None" as never },
      }),
    );
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      [
        "files[0].path",
        "files[0].actions",
        "files[1].actions[0].reload",
        "files[2].actions[0].restart",
        "files[2].path",
        "files[3].actions[0].restart.serviceName",
        "units[0].name",
        "units[0].actions",
        "units[1].name",
        "units[1].actions[0].type",
        "sshkey.actions",
      ],
    );
    const by = (p: string) => errors.filter((e) => e.propertyPath === p).map((e) => e.reason);
    assert.match(by("files[0].path")[0], /not absolute/);
    assert.match(by("files[0].actions")[0], /Reboot must be the only action/);
    assert.match(by("files[1].actions[0].reload")[0], /required with type Reload/);
    assert.match(by("files[2].actions[0].restart")[0], /only allowed with type Restart/);
    assert.match(by("files[2].path")[0], /listed twice \(also at files\[1\]\)/);
    assert.match(by("files[3].actions[0].restart.serviceName")[0], /must end in a unit type/);
    assert.match(by("units[0].actions")[0], /None must be the only action/);
    assert.match(by("units[1].name")[0], /name of letters, digits/);
    assert.match(by("units[1].actions[0].type")[0], /"Kill" is not allowed/);
  });

  it("limits lists and names as the CRD does", () => {
    const many = (n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `/etc/f${i}`, actions: [{ type: "None" as const }] }));
    const long = `${"a".repeat(MAX_SERVICE_NAME)}.service`;
    const errors = inputErrors(() =>
      nodeDisruptionPolicyPatch({
        files: many(MAX_POLICY_ENTRIES + 1),
        units: [{ name: long, actions: Array(MAX_POLICY_ACTIONS + 1).fill({ type: "DaemonReload" }) }],
      }),
    );
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      ["files", "units[0].name", "units[0].actions"],
    );
    assert.doesNotThrow(() => nodeDisruptionPolicyPatch({ files: many(MAX_POLICY_ENTRIES) }));
    assert.deepEqual(
      inputErrors(() => nodeDisruptionPolicyPatch({})).map((e) => e.reason),
      ["declares no policy: give files, units or sshkey"],
    );
  });

  it("puts declared entries in place of the cluster's of the same path or name", () => {
    const merged = withDeclaredPolicies(
      {
        files: [
          { path: "/etc/a", actions: [{ type: "None" }] },
          { path: "/etc/b", actions: [{ type: "Drain" }] },
        ],
        sshkey: { actions: [{ type: "Drain" }] },
      },
      [
        {
          files: [{ path: "/etc/b", actions: [reloadCrio] }],
          units: [{ name: "u.service", actions: [{ type: "None" }] }],
        },
      ],
    );
    assert.deepEqual(merged, {
      files: [
        { path: "/etc/a", actions: [{ type: "None" }] },
        { path: "/etc/b", actions: [reloadCrio] },
      ],
      units: [{ name: "u.service", actions: [{ type: "None" }] }],
      sshkey: { actions: [{ type: "Drain" }] },
    });
  });

  describe("against the MachineConfiguration CRD", function () {
    before(function () {
      requireReference(this, CRDS);
    });

    it("renders a patch the CRD's schema keeps whole", () => {
      assertMatchesCrd(
        nodeDisruptionPolicyPatch({
          files: [{ path: "/etc/containers/registries.conf", actions: [{ type: "Drain" }, reloadCrio] }],
          units: [
            {
              name: "kubelet.service",
              actions: [{ type: "Restart", restart: { serviceName: "kubelet.service" } }],
            },
          ],
          sshkey: { actions: [{ type: "None" }] },
        }),
        { patch: true },
      );
    });

    it("checks the limits and CEL rules the CRD declares", () => {
      const crd = parse(
        fs.readFileSync(path.join(CRDS.dir, "machineconfigurations.operator.openshift.io.yaml"), "utf8"),
      );
      const policy =
        crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.nodeDisruptionPolicy;
      const actions = policy.properties.files.items.properties.actions;
      assert.equal(policy.properties.files.maxItems, MAX_POLICY_ENTRIES);
      assert.equal(policy.properties.units.maxItems, MAX_POLICY_ENTRIES);
      assert.equal(actions.maxItems, MAX_POLICY_ACTIONS);
      assert.deepEqual(actions.items.properties.type.enum, DISRUPTION_ACTION_TYPES);
      const name = policy.properties.units.items.properties.name;
      assert.equal(name.maxLength, MAX_SERVICE_NAME);
      const suffixRule = name["x-kubernetes-validations"][0].rule as string;
      for (const suffix of SERVICE_SUFFIXES) assert.ok(suffixRule.includes(suffix.slice(1)), suffix);
      const rules = [
        ...actions["x-kubernetes-validations"],
        ...actions.items["x-kubernetes-validations"],
      ].map((r: { rule: string }) => r.rule);
      assert.deepEqual(rules, [
        "self.exists(x, x.type=='Reboot') ? size(self) == 1 : true",
        "self.exists(x, x.type=='None') ? size(self) == 1 : true",
        "has(self.type) && self.type == 'Reload' ? has(self.reload) : !has(self.reload)",
        "has(self.type) && self.type == 'Restart' ? has(self.restart) : !has(self.restart)",
      ]);
    });
  });

  it("names the fields its release takes back, and refuses only the entries others made", () => {
    const mine = nodeDisruptionPolicyPatch({
      units: [{ name: "chronyd.service", actions: [{ type: "None" }] }],
      sshkey: { actions: [{ type: "Drain" }] },
    });
    assert.deepEqual(policyPaths(mine), [
      ["spec", "nodeDisruptionPolicy", "sshkey"],
      ["spec", "nodeDisruptionPolicy", "units"],
    ]);
    const owning = (manager: string, key: string) => ({
      manager,
      fieldsV1: { "f:spec": { "f:nodeDisruptionPolicy": { "f:units": { [key]: { ".": {} } } } } },
    });
    const live = (manager: string) => ({
      metadata: { managedFields: [owning(manager, 'k:{"name":"chronyd.service"}')] },
      spec: { nodeDisruptionPolicy: { units: [{ name: "chronyd.service", actions: [{ type: "Drain" }] }] } },
    });
    const declared = mine.spec.nodeDisruptionPolicy;
    assert.deepEqual(entriesHeldByOthers(live("stack"), declared, "stack"), []);
    assert.deepEqual(entriesHeldByOthers(undefined, declared, "stack"), []);
    const [problem, ...more] = entriesHeldByOthers(live("admin"), declared, "stack");
    assert.deepEqual(more, []);
    assert.equal(problem.propertyPath, "units[0].name");
    assert.match(problem.reason, /already has a policy for "chronyd.service", set by admin/);
  });
});
