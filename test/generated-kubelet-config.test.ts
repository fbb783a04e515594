import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { KUBELET_MODULE, renderKubeletModule } from "../scripts/generate-kubelet-config";
import { KubeletConfigArgs } from "../builders/machineconfiguration/kubeletconfig";
import { kubeletConfig } from "../builders/machineconfiguration";

describe("KubeletConfiguration generated from upstream's Go types", () => {
  it("matches the types in scripts/upstream it is generated from", () => {
    assert.equal(
      fs.readFileSync(KUBELET_MODULE, "utf8"),
      renderKubeletModule(),
      "builders/generated/kubelet-configuration.ts is out of date: run npx ts-node --transpile-only scripts/generate-kubelet-config.ts",
    );
  });

  it("carries each field's upstream documentation for editors", () => {
    const module = fs.readFileSync(KUBELET_MODULE, "utf8");
    assert.match(
      module,
      /\/\*\*\n {3}\* maxPods is the maximum number of Pods that can run on this Kubelet\.\n[^]*?\*\/\n {2}maxPods\?: number;/,
    );
  });

  it("refuses a misspelt field both in the editor and at preview, naming the property", () => {
    const args: KubeletConfigArgs = {
      name: "set-max-pods",
      pool: "infra",
      // @ts-expect-error: maxPod is not a KubeletConfiguration field.
      kubeletConfig: { maxPod: 250 },
    };
    assert.throws(
      () => kubeletConfig(args),
      /kubeletConfig\.maxPod: is not a KubeletConfiguration field: did you mean maxPods\?/,
    );
  });
});
