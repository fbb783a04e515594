import * as assert from "node:assert/strict";
import { machineSetManagers } from "../../primitives/boot-images";
import { AZURE_IMAGE, AZURE_INFRA_ID } from "../../test/mocks";
import { bootImageLine } from "./boot-image";

/** What the preview says of an Azure pool's boot image, as the MCO's Azure reconcile decides it. */
describe("boot image owner on Azure", () => {
  const managers = machineSetManagers(undefined, "azure");
  const machineSet = (value: Record<string, unknown>) => ({
    metadata: { name: `${AZURE_INFRA_ID}-infra-1` },
    spec: { template: { spec: { providerSpec: { value: { image: AZURE_IMAGE, ...value } } } } },
  });

  it("leaves the image to the MCO, which opts Azure in by default (featuregates.go CheckBootImagePlatform)", () => {
    const { text, warn } = bootImageLine(machineSet({}), "mco", managers);
    assert.equal(warn, false);
    assert.equal(
      text,
      `MachineSet ${AZURE_INFRA_ID}-infra-1: boot image ${AZURE_IMAGE.resourceID} at creation, then the MCO's (managedBootImages (All) selects it)`,
    );
    // A marketplace image as the Azure CLI names it, not as JSON.
    const marketplace = {
      publisher: "azureopenshift",
      offer: "aro4",
      sku: "419-v2",
      version: "419.94.202505230000",
    };
    assert.match(
      bootImageLine(machineSet({ image: { ...marketplace, resourceID: "" } }), "mco", managers).text,
      /: boot image azureopenshift:aro4:419-v2:419\.94\.202505230000 at creation/,
    );
  });

  it("warns that a pool with a security type keeps its image: the MCO skips it (platform_helpers.go reconcileAzureProviderSpec)", () => {
    const trusted = machineSet({ securityProfile: { settings: { securityType: "TrustedLaunch" } } });
    const { text, warn } = bootImageLine(trusted, "mco", managers);
    assert.equal(warn, true);
    assert.match(
      text,
      /but the MCO does not update it \(its security type TrustedLaunch, which the MCO does not update on Azure\)/,
    );
    assert.equal(bootImageLine(trusted, "stack", managers).warn, false);
  });
});
