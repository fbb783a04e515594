import * as assert from "node:assert/strict";
import { InputError } from "../errors";
import { inputErrors } from "../../test/input-error";
import { AWS_POOL, AZURE_POOL } from "../../test/pool-specs";
import {
  machineSet,
  machineSetsForPool,
  machineSetsOf,
  MachineSetPlatformModule,
  MachineSetPoolSpec,
  ProviderSpec,
} from ".";

interface ExampleOptions {
  image: string;
  size?: string;
}

/** A third cloud, as a GCP or vSphere module would plug in: nothing outside it knows it. */
const EXAMPLE: MachineSetPlatformModule<ExampleOptions> = {
  infrastructureType: "Example",
  machineSetName: (infraId, role, region, zone) => `${infraId}-${role}-${region}-${zone}`,
  checkZone(path, zone) {
    if (!/^z[0-9]$/.test(zone))
      throw new InputError(path, `${JSON.stringify(zone)} is not a zone such as "z1"`);
  },
  zonesWhenNoneListed(path) {
    throw new InputError(path, "list the zones");
  },
  withImage: (_path, image, options) => ({ ...options, image: image as string }),
  imageOf: (spec) => spec?.image,
  imageField: "image",
  zoneOf: (spec) => String(spec.zone ?? ""),
  providerSpec(options, placement) {
    if (options.size !== undefined && !["small", "large"].includes(options.size)) {
      throw new InputError("size", `${JSON.stringify(options.size)} is not "small" or "large"`);
    }
    return {
      kind: "ExampleMachineProviderSpec",
      image: options.image,
      size: options.size ?? "small",
      zone: placement.zone,
    } as unknown as ProviderSpec;
  },
  networkSource: () => "the cloud's default network",
  networkFields: [],
  windows: { defaultRole: "win", options: (options) => options },
};

const POOL = {
  infrastructureId: "c-1",
  region: "r1",
  role: "infra",
  zones: [{ zone: "z1" }, { zone: "z2" }],
  replicas: 3,
};

describe("platform modules", () => {
  it("a third platform's module alone yields its MachineSets: names, replicas, provider specs and labels", () => {
    const sets = machineSetsOf(EXAMPLE, "example", { image: "img-1", size: "large" }, POOL);
    assert.deepEqual(
      sets.map((s) => [s.metadata.name, s.spec.replicas, s.spec.template.spec.providerSpec.value]),
      [
        [
          "c-1-infra-r1-z1",
          2,
          { kind: "ExampleMachineProviderSpec", image: "img-1", size: "large", zone: "z1" },
        ],
        [
          "c-1-infra-r1-z2",
          1,
          { kind: "ExampleMachineProviderSpec", image: "img-1", size: "large", zone: "z2" },
        ],
      ],
    );
    assert.equal(
      sets[0].spec.selector.matchLabels["machine.openshift.io/cluster-api-machineset"],
      "c-1-infra-r1-z1",
    );
  });

  it("reports a third platform's option errors under its options, once for all zones", () => {
    const errors = inputErrors(() =>
      machineSetsOf(EXAMPLE, "example", { image: "img-1", size: "huge" }, { ...POOL, role: "Infra_" }),
    );
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      ["role", "example.size"],
    );
  });
});

describe("MachineSet builders report every error at once", () => {
  it("a pool: zone, replicas, role, labels and every option error, each by its path and once", () => {
    const errors = inputErrors(() =>
      machineSetsForPool({
        ...AWS_POOL,
        role: "Infra_",
        zones: ["us-east-2a", "us-west-1b", "us-east-2c"],
        replicas: -1,
        nodeLabels: { "bad key!": "" },
        aws: {
          ami: "",
          instanceType: "",
          blockDevices: [
            { ebs: { volumeType: "gp9" as "gp3", volumeSize: 10 } },
            { ebs: { volumeType: "io1", volumeSize: 1, throughputMib: 200 }, size: 1 } as never,
          ],
          kmsKeyArn: "alias/mine",
        },
      }),
    );
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      [
        "zones[1]",
        "role",
        "replicas",
        'nodeLabels["bad key!"]',
        "aws.instanceType",
        "aws.ami",
        "aws.blockDevices[0].ebs.volumeType",
        "aws.blockDevices[1].size",
        "aws.blockDevices[1].ebs.volumeSize",
        "aws.blockDevices[1].ebs.iops",
        "aws.kmsKeyArn",
      ],
    );
  });

  it("an Azure pool: image, disk, size and VM options together", () => {
    const errors = inputErrors(() =>
      machineSetsForPool({
        ...AZURE_POOL,
        azure: {
          image: {
            publisher: "p",
            offer: "",
            sku: "s",
            version: "newest",
            type: "Plan" as "MarketplaceNoPlan",
          },
          osDisk: { diskSizeGB: 0, osType: "Mac" as "Linux" },
          vmSize: "",
          spotVMOptions: { maxPrice: "0" },
        },
      } as MachineSetPoolSpec),
    );
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      [
        "azure.vmSize",
        "azure.image.offer",
        "azure.image.version",
        "azure.image.type",
        "azure.osDisk.diskSizeGB",
        "azure.osDisk.osType",
        "azure.spotVMOptions.maxPrice",
      ],
    );
  });

  it("a MachineSet: name, replicas, labels the library owns and taints", () => {
    const errors = inputErrors(() =>
      machineSet({
        name: "Bad_Name",
        infrastructureId: "c-1",
        machineRole: "infra",
        replicas: 1.5,
        machineLabels: {
          "machine.openshift.io/cluster-api-cluster": "x",
          "machine.openshift.io/cluster-api-machineset": "y",
        },
        taints: [{ key: "k", effect: "Never" as "NoSchedule" }],
        providerSpec: {} as ProviderSpec,
      }),
    );
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      [
        "name",
        "replicas",
        'machineLabels["machine.openshift.io/cluster-api-cluster"]',
        'machineLabels["machine.openshift.io/cluster-api-machineset"]',
        "taints[0].effect",
      ],
    );
  });
});
