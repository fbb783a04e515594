import * as assert from "node:assert/strict";
import { ObjectLike, poolConfigsFrom } from ".";

const ROLE = "machineconfiguration.openshift.io/role";
const poolOf = (role: string) => ({ [`pools.operator.machineconfiguration.openshift.io/${role}`]: "" });
const kubelet = (name: string, role: string): ObjectLike => ({
  kind: "KubeletConfig",
  metadata: { name },
  spec: { machineConfigPoolSelector: { matchLabels: poolOf(role) }, kubeletConfig: { maxPods: 250 } },
});
const crio = (name: string, role: string): ObjectLike => ({
  kind: "ContainerRuntimeConfig",
  metadata: { name },
  spec: {
    machineConfigPoolSelector: { matchLabels: poolOf(role) },
    containerRuntimeConfig: { pidsLimit: 4096 },
  },
});
const mc = (name: string, role: string, owner?: string): ObjectLike => ({
  kind: "MachineConfig",
  metadata: { name, labels: { [ROLE]: role }, ...(owner ? { ownerReferences: [{ kind: owner }] } : {}) },
  spec: {},
});
const pool = (name: string, machineConfigSelector: unknown): ObjectLike => ({
  kind: "MachineConfigPool",
  metadata: { name },
  spec: { machineConfigSelector },
});
const names = (xs: Array<{ metadata: { name?: string } }> | undefined) => xs?.map((x) => x.metadata.name);

// openshift/machine-config-operator pkg/controller/render/render_controller.go getMachineConfigsForPool
// selects MachineConfigs by the pool's machineConfigSelector, whatever made them; pkg/controller/
// kubelet-config and container-runtime-config select pools by machineConfigPoolSelector and label their
// generated configs with the pool's role, which a custom pool's selector picks as the worker's.
describe("rollout impact: the objects a pool renders from", () => {
  it("sorts objects by kind, and leaves out the MachineConfigs generated from a KubeletConfig or ContainerRuntimeConfig", () => {
    const objects = [
      // The template controller's own (template_controller.go: owned by the ControllerConfig) render too.
      mc("00-worker", "worker", "ControllerConfig"),
      kubelet("infra-kubelet", "infra"),
      crio("infra-crio", "infra"),
      mc("99-infra-generated-kubelet", "infra", "KubeletConfig"),
      mc("99-infra-generated-containerruntime", "infra", "ContainerRuntimeConfig"),
      mc("99-infra-chrony", "infra"),
      pool("infra", undefined),
    ];
    assert.deepEqual(poolConfigsFrom("infra", objects, undefined), {
      machineConfigs: [objects[0], objects[5]],
      kubeletConfigs: [objects[1]],
      containerRuntimeConfigs: [objects[2]],
    });
  });

  it("inherits the generated configs of every other role its selector picks, sorted, and of no role it does not", () => {
    const objects = [
      kubelet("worker-kubelet", "worker"),
      crio("worker-crio", "worker"),
      kubelet("master-kubelet", "master"),
      kubelet("shared-kubelet", "shared"),
      kubelet("infra-kubelet", "infra"),
    ];
    const selector = {
      matchExpressions: [{ key: ROLE, operator: "In", values: ["worker", "shared", "infra"] }],
    };
    const configs = poolConfigsFrom("infra", objects, pool("infra", selector));
    assert.deepEqual(
      configs.inherited?.map((i) => [i.role, names(i.kubeletConfigs), names(i.containerRuntimeConfigs)]),
      [
        ["shared", ["shared-kubelet"], []],
        ["worker", ["worker-kubelet"], ["worker-crio"]],
      ],
    );
    assert.deepEqual(names(configs.kubeletConfigs), ["infra-kubelet"], "its own role is no inheritance");
    // A selector of any role picks the installer's pools' configs too, and those of a KubeletConfig
    // selecting every pool.
    const any = pool("infra", { matchExpressions: [{ key: ROLE, operator: "Exists" }] });
    const everywhere: ObjectLike = {
      ...kubelet("everywhere", "none"),
      spec: { machineConfigPoolSelector: { matchExpressions: [{ key: "tier", operator: "DoesNotExist" }] } },
    };
    assert.deepEqual(
      poolConfigsFrom("infra", [...objects, everywhere], any).inherited?.map((i) => [
        i.role,
        names(i.kubeletConfigs),
      ]),
      [
        ["master", ["master-kubelet", "everywhere"]],
        ["worker", ["worker-kubelet", "everywhere"]],
      ],
    );
  });

  it("inherits nothing from a role whose pools have no KubeletConfig or ContainerRuntimeConfig", () => {
    const selector = { matchLabels: { [ROLE]: "worker" } };
    assert.deepEqual(poolConfigsFrom("infra", [mc("00-worker", "worker")], pool("infra", selector)), {
      machineConfigs: [mc("00-worker", "worker")],
      kubeletConfigs: [],
      containerRuntimeConfigs: [],
    });
    const onlyCrio = poolConfigsFrom("infra", [crio("worker-crio", "worker")], pool("infra", selector));
    assert.deepEqual(names(onlyCrio.inherited?.[0].containerRuntimeConfigs), ["worker-crio"]);
  });
});
