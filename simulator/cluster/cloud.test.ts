import * as assert from "node:assert/strict";
import { isAwsInstanceTypeName } from "../../builders/machineset/aws-instance-types";
import { awsZonesOf } from "../../builders/machineset/aws-zones";
import { AZURE_REGIONS_WITHOUT_ZONES, AZURE_ZONAL_REGIONS } from "../../builders/machineset/azure-regions";
import { isAzureVmSizeName } from "../../builders/machineset/azure-vm-sizes";
import { K, machineSetFrom, Sim, startSim } from "../controllers/testing";
import { KubeObject } from "../store/types";
import { PLATFORMS } from "./platforms";

const NS = "openshift-machine-api";

describe("the simulated clouds agree with the library's tables", () => {
  it("AWS: each region's zones are the table's, each instance type has the shape EC2 names have", () => {
    const { regions, sizes } = PLATFORMS.aws.catalog;
    for (const [region, zones] of Object.entries(regions))
      assert.deepEqual(zones, awsZonesOf(region), region);
    for (const name of Object.keys(sizes)) assert.ok(isAwsInstanceTypeName(name), name);
    assert.ok(PLATFORMS.aws.workerInstanceType in sizes && PLATFORMS.aws.masterInstanceType in sizes);
  });

  it("Azure: regions with zones 1 to 3 are the table's zonal ones, those without its zone-less ones", () => {
    const { regions, sizes } = PLATFORMS.azure.catalog;
    for (const [region, zones] of Object.entries(regions)) {
      if (zones.length === 0) assert.ok(AZURE_REGIONS_WITHOUT_ZONES.has(region), region);
      else assert.ok(AZURE_ZONAL_REGIONS.has(region) && zones.join() === "1,2,3", region);
    }
    for (const name of Object.keys(sizes)) assert.ok(isAzureVmSizeName(name), name);
    assert.ok(PLATFORMS.azure.workerInstanceType in sizes && PLATFORMS.azure.masterInstanceType in sizes);
  });
});

/** The first Machine of each MachineSet once all have failed: what the actuator recorded. */
async function failures(sim: Sim, sets: string[]): Promise<Record<string, KubeObject>> {
  const failed = (set: string) =>
    sim.store
      .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
      .find(
        (m) =>
          m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === set &&
          (m.status as { phase?: string } | undefined)?.phase === "Failed",
      );
  return sim.until("every machine failed", () =>
    sets.every((s) => failed(s)) ? Object.fromEntries(sets.map((s) => [s, failed(s)!])) : undefined,
  );
}

const statusOf = (m: KubeObject) => m.status as { errorReason: string; errorMessage: string };

/**
 * A zone or size the cloud lacks fails the Machine as the real actuators fail it: a terminal
 * InvalidConfiguration error (machine-api-operator pkg/controller/machine/controller.go) carrying the
 * cloud's answer as the provider wraps it, and no node ever.
 */
describe("a Machine in a zone or of a size the simulated cloud lacks", () => {
  let sim: Sim;
  afterEach(() => sim.stop());

  it("fails on AWS as machine-api-provider-aws launchInstance reports EC2's answer", async () => {
    sim = startSim("aws");
    const region = { region: "us-east-2" };
    machineSetFrom(sim, "no-zone", {
      providerSpec: { placement: { ...region, availabilityZone: "us-east-2d" } },
    });
    machineSetFrom(sim, "no-type", { providerSpec: { instanceType: "m6i.3xlarge" } });
    machineSetFrom(sim, "not-here", {
      providerSpec: { instanceType: "g5.xlarge", placement: { ...region, availabilityZone: "us-east-2c" } },
    });
    const failed = await failures(sim, ["no-zone", "no-type", "not-here"]);
    for (const machine of Object.values(failed)) {
      assert.equal(statusOf(machine).errorReason, "InvalidConfiguration");
      assert.equal((machine.status as { nodeRef?: unknown }).nodeRef, undefined);
    }
    // getSubnetIDs describes the zone of a subnet given by filters: DescribeAvailabilityZones refuses it.
    assert.match(
      statusOf(failed["no-zone"]).errorMessage,
      /^error getting subnet IDs: error describing availability zones: InvalidParameterValue: Invalid availability zone: \[us-east-2d\]\n\tstatus code: 400, request id: [0-9a-f-]{36}$/,
    );
    assert.equal(
      statusOf(failed["no-type"]).errorMessage,
      "error launching instance: Invalid value 'm6i.3xlarge' for InstanceType.",
    );
    assert.equal(
      statusOf(failed["not-here"]).errorMessage,
      "error launching instance: Your requested instance type (g5.xlarge) is not supported in your requested Availability Zone (us-east-2c). Please retry your request by not specifying an Availability Zone or choosing us-east-2a, us-east-2b.",
    );
  });

  it("fails on Azure as machine-api-provider-azure reports ARM's answer, zone 4 of centralus among them", async () => {
    sim = startSim("azure");
    machineSetFrom(sim, "zone4", { providerSpec: { zone: "4" } });
    machineSetFrom(sim, "typo", { providerSpec: { vmSize: "Standard_E16sv5" } });
    machineSetFrom(sim, "gpu3", { providerSpec: { vmSize: "Standard_NC4as_T4_v3", zone: "3" } });
    machineSetFrom(sim, "slow", { providerSpec: { vmSize: "Standard_B2s", acceleratedNetworking: true } });
    const failed = await failures(sim, ["zone4", "typo", "gpu3", "slow"]);
    const message = (set: string) => statusOf(failed[set]).errorMessage;
    for (const machine of Object.values(failed))
      assert.equal(statusOf(machine).errorReason, "InvalidConfiguration");
    const zone4 = failed.zone4.metadata.name;
    assert.ok(
      message("zone4").startsWith(
        `failed to reconcile machine "${zone4}": failed to create vm ${zone4}: failed to create VM: cannot create vm: PUT https://management.azure.com/subscriptions/`,
      ),
      message("zone4"),
    );
    assert.match(message("zone4"), /\nRESPONSE 409: 409 Conflict\nERROR CODE: SkuNotAvailable\n/);
    assert.match(
      message("zone4"),
      /is currently not available in location 'centralus' zones '4' for subscription/,
    );
    assert.match(
      message("typo"),
      /ERROR CODE: InvalidParameter\n[^]*The value Standard_E16sv5 provided for the VM size is not valid/,
    );
    assert.match(message("gpu3"), /ERROR CODE: SkuNotAvailable\n[^]*location 'centralus' zones '3'/);
    assert.match(
      message("slow"),
      /^failed to reconcile machine "[^"]+": failed to create nic [^ ]+-nic for machine [^:]+: accelerated networking not supported on instance type: Standard_B2s$/,
    );
    // The sizes the installer uses are there, whatever their case (Azure compares sizes case-insensitively).
    machineSetFrom(sim, "lower", { providerSpec: { vmSize: "standard_d4s_v3", zone: "2" } });
    await sim.until("a node of the lower-case size", () =>
      sim.store
        .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
        .find(
          (m) =>
            m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === "lower" &&
            (m.status as { nodeRef?: unknown } | undefined)?.nodeRef,
        ),
    );
  });
});
