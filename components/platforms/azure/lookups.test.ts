import * as assert from "node:assert/strict";
import { azureSkuProblems, ResourceSku } from "./lookups";

const ZONES = ["1", "2", "3"].map((zone) => ({ zone }));

/** A centralus SKU as the Resource SKUs API lists it. */
function sku(name: string, more: Partial<ResourceSku> = {}): ResourceSku {
  return {
    resourceType: "virtualMachines",
    name,
    locationInfo: [
      {
        location: "centralus",
        zones: ["1", "2", "3"],
        zoneDetails: [{ name: ["1", "2"], capabilities: [{ name: "UltraSSDAvailable", value: "True" }] }],
      },
    ],
    capabilities: [{ name: "AcceleratedNetworkingEnabled", value: "True" }],
    restrictions: [],
    ...more,
  };
}

/** What a location's VM SKUs say of a pool (#36): each problem at the property the user wrote. */
describe("Azure VM SKUs checked against a pool (cloudLookups)", () => {
  it("refuses a size restricted for the subscription in the location, or in a zone", () => {
    const location = sku("Standard_D4s_v5", {
      restrictions: [{ type: "Location", values: ["centralus"], reasonCode: "NotAvailableForSubscription" }],
    });
    assert.deepEqual(
      azureSkuProblems("centralus", ZONES, { vmSize: "standard_d4s_v5" }, [location]).map((p) => p.path),
      ["azure.vmSize"],
    );
    const zone = sku("Standard_D4s_v5", {
      restrictions: [
        {
          type: "Zone",
          values: ["centralus"],
          reasonCode: "NotAvailableForSubscription",
          restrictionInfo: { locations: ["centralus"], zones: ["2"] },
        },
      ],
    });
    const problems = azureSkuProblems("centralus", ZONES, { vmSize: "Standard_D4s_v5" }, [zone]);
    assert.deepEqual(
      problems.map((p) => [p.path, p.reason]),
      [
        [
          "zones[1]",
          'VM size Standard_D4s_v5 is not offered in zone 2 of centralus: choose among zones 1, 3, or another size ("az vm list-skus --location centralus --size Standard_D4s_v5")',
        ],
      ],
    );
  });

  it("refuses what the options need of a size that lacks it: encryption at host, trusted launch, Ultra SSD in a zone", () => {
    const plain = sku("Standard_D4s_v5", {
      capabilities: [{ name: "TrustedLaunchDisabled", value: "True" }],
    });
    const problems = azureSkuProblems(
      "centralus",
      ZONES,
      {
        vmSize: "Standard_D4s_v5",
        encryptionAtHost: true,
        security: { type: "TrustedLaunch" },
        ultraSSDCapability: "Enabled",
      },
      [plain],
    );
    assert.deepEqual(
      problems.map((p) => p.path),
      ["azure.encryptionAtHost", "azure.security.type", "azure.ultraSSDCapability"],
    );
    assert.match(problems[2].reason, /cannot attach Ultra SSDs in zone 3 of centralus/);
  });

  it("leaves a size of the wrong shape to the preview's grammar, and passes a size that has it all", () => {
    assert.deepEqual(azureSkuProblems("centralus", ZONES, { vmSize: "Standard_E16sv5" }, []), []);
    assert.deepEqual(
      azureSkuProblems("centralus", ZONES, { vmSize: "Standard_D4s_v5", acceleratedNetworking: true }, [
        sku("Standard_D4s_v5"),
      ]),
      [],
    );
  });
});
