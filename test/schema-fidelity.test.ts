import * as assert from "node:assert/strict";
import { InfraNodePool } from "../index";
import { machineSetsForPool, operatorGroup, subscription, windowsPoolSpec } from "../builders";
import { assertMatchesCrd } from "./crd-schemas";
import { azureCloud } from "./mocks";
import { manifestsOf, runProgram } from "./program";
import { CRDS, requireReference } from "./reference";

/** Core kinds have no CRD; the API server's built-in validation covers them. */
const CORE_KINDS = new Set(["ConfigMap", "Namespace", "Secret", "RuntimeClass"]);
const PATCH_TYPE = /Patch$/;

async function checkProgram(
  program: string | (() => void),
  cloud?: Parameters<typeof runProgram>[1],
): Promise<number> {
  const resources = await runProgram(program, cloud);
  let checked = 0;
  manifestsOf(resources).forEach((manifest, i) => {
    if (CORE_KINDS.has(String(manifest.kind))) return;
    assertMatchesCrd(manifest, {
      patch: PATCH_TYPE.test(resources.filter((r) => r.type.startsWith("kubernetes:"))[i].type),
    });
    checked++;
  });
  return checked;
}

describe("every rendered manifest against the upstream CRDs", () => {
  before(function () {
    requireReference(this, CRDS);
  });

  it("the root example (AWS infra pool, patches, MachineConfig, KubeletConfig, Windows pool)", async () => {
    // 8 for the infra side, then the Windows MachineSet, OperatorGroup and Subscription.
    assert.equal(await checkProgram("examples/aws-infra-windows/index.ts"), 11);
  });

  it("an Azure infra pool with every option", async () => {
    const checked = await checkProgram(
      () =>
        new InfraNodePool("infra", {
          zones: ["1", "2", "3"],
          replicas: 5,
          maxUnavailable: "34%",
          paused: true,
          nodeLabels: { "example.com/tier": "infra" },
          azure: { vmSize: "Standard_D8s_v3", osDisk: { diskSizeGB: 256 }, publicIP: false },
          router: { replicas: 2 },
          registry: true,
          monitoring: true,
        }),
      azureCloud(),
    );
    assert.equal(checked, 6);
  });

  it("Windows MachineSets and the OLM objects of a WMCO install", () => {
    const aws = machineSetsForPool(
      windowsPoolSpec({
        platform: "aws",
        infrastructureId: "c-1",
        region: "us-east-2",
        role: "windows-worker",
        zones: ["us-east-2a", "us-east-2b"],
        replicas: 2,
        aws: { ami: "ami-0123", metadataServiceOptions: { authentication: "Required" } },
      }),
    );
    const azure = machineSetsForPool(
      windowsPoolSpec({
        platform: "azure",
        infrastructureId: "c-1",
        region: "centralus",
        role: "win",
        zones: [{ zone: "1", machineSetName: "win1" }],
        replicas: 1,
        azure: {
          image: {
            publisher: "MicrosoftWindowsServer",
            offer: "WindowsServer",
            sku: "2022-datacenter-smalldisk",
            version: "latest",
          },
        },
      }),
    );
    const wmco = {
      packageName: "windows-machine-config-operator",
      namespace: "openshift-windows-machine-config-operator",
      channel: "stable",
    };
    for (const manifest of [
      ...aws,
      ...azure,
      operatorGroup(wmco),
      subscription({ ...wmco, startingCSV: "windows-machine-config-operator.v10.17.0" }),
    ]) {
      assertMatchesCrd(manifest);
    }
  });
});
