import * as assert from "node:assert/strict";
import { WINDOWS_2022_AMI } from "./mocks";
import { manifestsOf, runProgram } from "./program";

const ROOT_EXAMPLE = "examples/aws-infra-windows/index.ts";

describe("the root example under the mock runtime", () => {
  it("renders a 3-zone infra pool, its pool, the moved infra workloads, its node configuration and a Windows pool", async () => {
    const resources = await runProgram(ROOT_EXAMPLE);
    const manifests = manifestsOf(resources);
    const summary = manifests.map((m) => `${m.kind} ${(m.metadata as { name: string }).name}`);
    assert.deepEqual(summary.sort(), [
      "Config cluster",
      "ConfigMap cluster-monitoring-config",
      "IngressController default",
      "KubeletConfig infra-kubelet",
      "MachineConfig 99-infra-chrony",
      "MachineConfigPool infra",
      "MachineSet cluster-zbwlg-cbgq7-infra-us-east-2a",
      "MachineSet cluster-zbwlg-cbgq7-infra-us-east-2b",
      "MachineSet cluster-zbwlg-cbgq7-infra-us-east-2c",
      "MachineSet cluster-zbwlg-cbgq7-windows-worker-us-east-2a",
      "Namespace openshift-windows-machine-config-operator",
      "OperatorGroup windows-machine-config-operator",
      "RuntimeClass windows-2022",
      "Secret cloud-private-key",
      "Subscription windows-machine-config-operator",
    ]);
    const runtimeClass = manifests.find((m) => m.kind === "RuntimeClass") as any;
    assert.deepEqual(runtimeClass.scheduling, {
      nodeSelector: {
        "kubernetes.io/os": "windows",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/windows-build": "10.0.20348",
      },
      tolerations: [{ key: "os", operator: "Equal", value: "Windows", effect: "NoSchedule" }],
    });
    const windows = manifests.find(
      (m) => (m.metadata as { name: string }).name === "cluster-zbwlg-cbgq7-windows-worker-us-east-2a",
    ) as any;
    assert.equal(windows.spec.template.metadata.labels["machine.openshift.io/os-id"], "Windows");
    assert.equal(windows.spec.template.spec.providerSpec.value.ami.id, WINDOWS_2022_AMI);
    assert.equal(windows.spec.template.spec.providerSpec.value.userDataSecret.name, "windows-user-data");
  });

  it("renders byte-identical manifests when evaluated twice", async () => {
    const first = JSON.stringify(await runProgram(ROOT_EXAMPLE));
    const second = JSON.stringify(await runProgram(ROOT_EXAMPLE));
    assert.equal(first, second);
  });
});
