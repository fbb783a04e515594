import * as assert from "node:assert/strict";
import { manifestsOf, runProgram } from "./program";

const ROOT_EXAMPLE = "examples/aws-infra-windows/index.ts";

describe("the root example under the mock runtime", () => {
  it("renders a 3-zone infra pool, its pool, the moved infra workloads and its node configuration", async () => {
    const resources = await runProgram(ROOT_EXAMPLE);
    const summary = manifestsOf(resources).map((m) => `${m.kind} ${(m.metadata as { name: string }).name}`);
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
    ]);
  });

  it("renders byte-identical manifests when evaluated twice", async () => {
    const first = JSON.stringify(await runProgram(ROOT_EXAMPLE));
    const second = JSON.stringify(await runProgram(ROOT_EXAMPLE));
    assert.equal(first, second);
  });
});
