import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import { KUBELET_MODULE, MCO_COMMIT, renderKubeletModule } from "../scripts/generate-kubelet-config";
import { KubeletConfigArgs } from "../builders/machineconfiguration/kubeletconfig";
import { kubeletConfig } from "../builders/machineconfiguration";

describe("KubeletConfiguration generated from upstream's Go types", () => {
  it("matches the MCO's vendored types it is generated from (MCO_SOURCE: a checkout of the recorded commit)", function () {
    // Upstream's Go files are read from a checkout, never kept here; without one there is nothing to compare.
    const checkout = process.env.MCO_SOURCE;
    if (!checkout) this.skip();
    assert.equal(
      fs.readFileSync(KUBELET_MODULE, "utf8"),
      renderKubeletModule(checkout),
      "builders/generated/kubelet-configuration.ts is out of date: run npx ts-node --transpile-only scripts/generate-kubelet-config.ts",
    );
  });

  it("carries each field's upstream documentation for editors, and the commit it came from", () => {
    const module = fs.readFileSync(KUBELET_MODULE, "utf8");
    assert.ok(module.includes(`openshift/machine-config-operator at ${MCO_COMMIT}.`));
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
