import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse } from "yaml";
import { inputErrors } from "../../test/input-error";
import { AWS_POOL, AZURE_POOL } from "../../test/pool-specs";
import { awsInstanceTypeProblem, isAwsInstanceTypeName } from "./aws-instance-types";
import { AWS_REGION_ZONES, awsZonesOf } from "./aws-zones";
import { AZURE_REGIONS_WITHOUT_ZONES, AZURE_ZONAL_REGIONS } from "./azure-regions";
import { azureVmSizeProblem, isAzureVmSizeName } from "./azure-vm-sizes";
import { machineSetsForPool, MachineSetPoolSpec } from ".";

const EXAMPLES = path.resolve(__dirname, "..", "..", "examples");

/** Each error's path and reason, in the order they were found. */
function problems(spec: MachineSetPoolSpec): Array<[string, string]> {
  return inputErrors(() => machineSetsForPool(spec)).map((e) => [e.propertyPath, e.reason]);
}

/** Each name refused as not `what`, with the spelling meant when there is one. */
function refusesMeaning(
  problemOf: (name: string) => string | undefined,
  what: string,
  meant: Array<[string, string | undefined]>,
): void {
  for (const [name, suggestion] of meant) {
    const problem = problemOf(name);
    assert.ok(problem?.startsWith(`${JSON.stringify(name)} is not ${what}`), `${name}: ${problem}`);
    if (suggestion) assert.ok(problem!.includes(`did you mean "${suggestion}"?`), `${name}: ${problem}`);
    else assert.ok(!problem!.includes("did you mean"), `${name}: ${problem}`);
  }
}

describe("the zone tables, kept honest", () => {
  it("lists AWS regions by their names and each region's zone letters once, in order", () => {
    for (const [region, letters] of Object.entries(AWS_REGION_ZONES)) {
      assert.match(region, /^[a-z]{2}(-gov)?-[a-z]+-\d$/, region);
      assert.match(letters, /^[a-f]{2,6}$/, region);
      assert.equal([...letters].sort().join(""), letters, region);
      assert.equal(new Set(letters).size, letters.length, region);
    }
    // DOMAIN.md: us-east-2 has a, b and c; us-east-1 six zones.
    assert.deepEqual(awsZonesOf("us-east-2"), ["us-east-2a", "us-east-2b", "us-east-2c"]);
    assert.equal(awsZonesOf("us-east-1")?.length, 6);
    assert.equal(awsZonesOf("xx-nowhere-1"), undefined);
  });

  it("has every zone the AWS example deploys to", () => {
    const config = parse(
      fs.readFileSync(path.join(EXAMPLES, "aws-infra-windows", "Pulumi.dev.yaml"), "utf8"),
    );
    const zones = config.config["aws-infra-windows:zones"] as string[];
    assert.ok(zones.length > 0);
    for (const zone of zones) assert.ok(awsZonesOf("us-east-2")!.includes(zone), zone);
  });

  it("splits Azure regions into those with zones and those without, none in both", () => {
    for (const region of [...AZURE_ZONAL_REGIONS, ...AZURE_REGIONS_WITHOUT_ZONES])
      assert.match(region, /^[a-z]+[0-9]?$/, region);
    assert.deepEqual(
      [...AZURE_ZONAL_REGIONS].filter((r) => AZURE_REGIONS_WITHOUT_ZONES.has(r)),
      [],
    );
    // The regions the tests and examples use.
    assert.ok(AZURE_ZONAL_REGIONS.has("centralus"));
    assert.ok(AZURE_REGIONS_WITHOUT_ZONES.has("westcentralus"));
  });
});

describe("machine size names: their grammar, and the spelling meant", () => {
  it("accepts EC2 instance types of every naming pattern AWS uses", () => {
    for (const name of [
      "m6i.xlarge",
      "m5.large",
      "t3.micro",
      "c7gn.16xlarge",
      "x2iedn.xlarge",
      "r8g.metal-24xl",
      "m7i.metal-48xl",
      "m7i-flex.large",
      "u7i-12tb.224xlarge",
      "u-6tb1.metal",
      "u-12tb1.112xlarge",
      "mac1.metal",
      "mac2-m2pro.metal",
      "mac-m4.metal",
      "p6-b200.48xlarge",
      "inf2.xlarge",
      "trn1n.32xlarge",
      "g4dn.xlarge",
      "hpc7g.4xlarge",
    ])
      assert.ok(isAwsInstanceTypeName(name), name);
  });

  it("refuses misspelt EC2 instance types, with the spelling meant", () => {
    const meant: Array<[string, string | undefined]> = [
      ["m6i2xlarge", "m6i.2xlarge"],
      ["m6i-xlarge", "m6i.xlarge"],
      ["M6i.XLarge", "m6i.xlarge"],
      ["m6i.xl", "m6i.xlarge"],
      ["m6i.2xl", "m6i.2xlarge"],
      ["m6i.xlarg", "m6i.xlarge"],
      ["m5_large", "m5.large"],
      ["xlarge", undefined],
    ];
    refusesMeaning(awsInstanceTypeProblem, "an EC2 instance type", meant);
    assert.match(awsInstanceTypeProblem("")!, /must be an EC2 instance type such as "m6i.xlarge"/);
  });

  it("accepts Azure VM sizes of every naming pattern Microsoft uses, in any case", () => {
    for (const name of [
      "Standard_D4s_v3",
      "Standard_E16s_v5",
      "Standard_E8-4s_v5",
      "Standard_DS11-1_v2",
      "Standard_D2_v2_Promo",
      "Standard_M416s_8_v2",
      "Standard_NC4as_T4_v3",
      "Standard_NV36adms_A10_v5",
      "Standard_ND96isr_H100_v5",
      "Standard_HB120-16rs_v3",
      "Standard_GS5-16",
      "Standard_B1ls",
      "Standard_A1_v2",
      "Basic_A0",
      "standard_d4s_v3",
      "Standard_D4s_V3",
    ])
      assert.ok(isAzureVmSizeName(name), name);
  });

  it("refuses misspelt Azure VM sizes, with the spelling meant", () => {
    const meant: Array<[string, string | undefined]> = [
      ["Standard_E16sv5", "Standard_E16s_v5"],
      ["E16s_v5", "Standard_E16s_v5"],
      ["Standard-D4s_v3", "Standard_D4s_v3"],
      ["Standard_D4s-v3", "Standard_D4s_v3"],
      ["D4sv3", "Standard_D4s_v3"],
      ["Standard_D4s_v3_", undefined],
      ["large", undefined],
    ];
    refusesMeaning(azureVmSizeProblem, "an Azure VM size", meant);
  });
});

describe("zones, sizes and combinations the cloud or the webhook refuses, all at once at preview", () => {
  it("an Azure pool: zone 4, a misspelt size and a confidential disk without secure boot", () => {
    const found = problems({
      ...AZURE_POOL,
      zones: ["1", "2", "4"],
      replicas: 3,
      azure: {
        ...AZURE_POOL.azure,
        vmSize: "Standard_E16sv5",
        security: {
          type: "ConfidentialVM",
          confidentialDiskEncryption: "DiskWithVMGuestState",
          secureBoot: "Disabled",
        },
      },
    });
    assert.deepEqual(
      found.map(([p]) => p),
      ["zones[2]", "azure.vmSize", "azure.security.secureBoot"],
    );
    assert.match(found[0][1], /"4" does not exist: use "1", "2" or "3"/);
    assert.match(found[1][1], /did you mean "Standard_E16s_v5"\?/);
    assert.match(
      found[2][1],
      /must be Enabled with security.confidentialDiskEncryption DiskWithVMGuestState/,
    );
  });

  it("an Azure pool with zones in a region without any", () => {
    const found = problems({ ...AZURE_POOL, region: "westcentralus", zones: ["1"] });
    assert.deepEqual(found, [
      [
        "zones[0]",
        'Azure region "westcentralus" has no availability zones: use zones: [] (one MachineSet, its machines in an availability set)',
      ],
    ]);
  });

  it("an AWS pool: a zone the region lacks, one of another region and a type without its dot", () => {
    const found = problems({
      ...AWS_POOL,
      zones: ["us-east-2a", "us-east-2d", "us-west-2a"],
      replicas: 3,
      aws: { ...AWS_POOL.aws, instanceType: "m6i2xlarge", placementGroupPartition: 2 },
    });
    assert.deepEqual(
      found.map(([p]) => p),
      ["zones[1]", "zones[2]", "aws.instanceType", "aws.placementGroupPartition"],
    );
    assert.match(
      found[0][1],
      /"us-east-2d" is not an availability zone of AWS region us-east-2: use "us-east-2a", "us-east-2b", "us-east-2c"/,
    );
    assert.match(found[1][1], /not in region "us-east-2"/);
    assert.match(found[2][1], /did you mean "m6i.2xlarge"\?/);
    assert.match(found[3][1], /needs placementGroupName/);
  });

  it("an Azure pool whose zones a YAML stack config gave as numbers", () => {
    const found = problems({ ...AZURE_POOL, zones: [1, "2", 3] as unknown as string[] });
    assert.deepEqual(found, [
      ["zones[0]", '1 is a number: write the zone as a string, "1"'],
      ["zones[2]", '3 is a number: write the zone as a string, "3"'],
    ]);
  });

  it("takes Local and Wavelength Zones by their shape, and any zone of a region the table does not list", () => {
    for (const zones of [["us-east-1-nyc-1a"], ["us-east-1-wl1-bos-wlz-1"]]) {
      assert.equal(machineSetsForPool({ ...AWS_POOL, region: "us-east-1", zones, replicas: 1 }).length, 1);
    }
    assert.equal(
      machineSetsForPool({ ...AWS_POOL, region: "xx-new-1", zones: ["xx-new-1e"], replicas: 1 }).length,
      1,
    );
  });
});
