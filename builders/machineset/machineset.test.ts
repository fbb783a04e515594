import * as assert from "node:assert/strict";
import { seedYaml, withNodeMetadataRecord, withoutNulls } from "../../test/seeds";
import { InputError } from "../errors";
import { machineSetsForPool, MachineSetPoolSpec, spreadReplicas } from ".";
import { SEEDS, requireReference } from "../../test/reference";

const SEED_INFRA: MachineSetPoolSpec = {
  platform: "aws",
  infrastructureId: "cluster-zbwlg-cbgq7",
  region: "us-east-2",
  role: "infra",
  zones: ["us-east-2a"],
  replicas: 0,
  nodeLabels: { role: "storage-node", "node-role.kubernetes.io/worker": "" },
  aws: {
    ami: "ami-01af87a6ecc18023d",
    instanceType: "m5.4xlarge",
    blockDevices: [{ ebs: { iops: 0, volumeSize: 120, volumeType: "gp3" } }],
    providerApiVersion: "awsproviderconfig.openshift.io/v1beta1",
  },
  // Seed 001 copies the network references of the installer's worker MachineSet by hand.
  worker: {
    name: "cluster-zbwlg-cbgq7-worker-us-east-2a",
    zone: "us-east-2a",
    providerSpec: {
      iamInstanceProfile: { id: "cluster-zbwlg-cbgq7-worker-profile" },
      securityGroups: [{ filters: [{ name: "tag:Name", values: ["cluster-zbwlg-cbgq7-worker-sg"] }] }],
      subnet: { filters: [{ name: "tag:Name", values: ["cluster-zbwlg-cbgq7-private-us-east-2a"] }] },
      tags: [{ name: "kubernetes.io/cluster/cluster-zbwlg-cbgq7", value: "owned" }],
    },
  },
};

/** The subnet reference of each MachineSet of a pool. */
function subnets(spec: MachineSetPoolSpec): unknown[] {
  return machineSetsForPool(spec).map((s) => {
    const value = s.spec.template.spec.providerSpec.value;
    return value.kind === "AWSMachineProviderConfig" && value.subnet;
  });
}

describe("MachineSet builders", () => {
  it("reproduces the infra MachineSet of seed 001 field for field", function () {
    requireReference(this, SEEDS);
    const seed = seedYaml("001", /^apiVersion: machine.openshift.io\/v1beta1$/, /^\s+versions:/);
    const [rendered] = machineSetsForPool(SEED_INFRA);
    assert.deepEqual(rendered, withNodeMetadataRecord(withoutNulls(seed)));
  });

  it("spreads replicas as the installer does: the first zones get the remainder", () => {
    assert.deepEqual(spreadReplicas("replicas", 7, 3), [3, 2, 2]);
    assert.deepEqual(spreadReplicas("replicas", 2, 3), [1, 1, 0]);
    assert.deepEqual(spreadReplicas("replicas", 0, 3), [0, 0, 0]);
    const sets = machineSetsForPool({
      ...SEED_INFRA,
      zones: ["us-east-2a", "us-east-2b", "us-east-2c"],
      replicas: 4,
    });
    assert.deepEqual(
      sets.map((s) => [s.metadata.name, s.spec.replicas]),
      [
        ["cluster-zbwlg-cbgq7-infra-us-east-2a", 2],
        ["cluster-zbwlg-cbgq7-infra-us-east-2b", 1],
        ["cluster-zbwlg-cbgq7-infra-us-east-2c", 1],
      ],
    );
  });

  it("places each AWS MachineSet in its zone's subnet: the worker MachineSet's, moved to the zone, or the id given", () => {
    const sets = machineSetsForPool({
      ...SEED_INFRA,
      zones: ["us-east-2a", "us-east-2c", { zone: "us-east-2b", subnet: "subnet-0b1" }],
      replicas: 2,
    });
    const specs = sets.map((s) => s.spec.template.spec.providerSpec.value);
    assert.deepEqual(
      specs.map((s) => s.kind === "AWSMachineProviderConfig" && s.subnet),
      [
        { filters: [{ name: "tag:Name", values: ["cluster-zbwlg-cbgq7-private-us-east-2a"] }] },
        { filters: [{ name: "tag:Name", values: ["cluster-zbwlg-cbgq7-private-us-east-2c"] }] },
        { id: "subnet-0b1" },
      ],
    );
    assert.deepEqual(
      specs.map((s) => s.kind === "AWSMachineProviderConfig" && s.placement.availabilityZone),
      ["us-east-2a", "us-east-2c", "us-east-2b"],
    );
  });

  // openshift/installer pkg/asset/machines/aws/machines.go, provider (current names) and openshift/hive
  // pkg/controller/machinepool/awsactuator.go, updateProviderConfig (both generations at once).
  it("without a worker MachineSet, refers to the network by the installer's current and older tag names", () => {
    const [set] = machineSetsForPool({ ...SEED_INFRA, worker: undefined });
    const value = set.spec.template.spec.providerSpec.value;
    assert.ok(value.kind === "AWSMachineProviderConfig");
    assert.deepEqual(value.subnet, {
      filters: [
        {
          name: "tag:Name",
          values: ["cluster-zbwlg-cbgq7-subnet-private-us-east-2a", "cluster-zbwlg-cbgq7-private-us-east-2a"],
        },
      ],
    });
    assert.deepEqual(
      value.securityGroups.map((g) => g.filters?.[0].values),
      [["cluster-zbwlg-cbgq7-node"], ["cluster-zbwlg-cbgq7-lb"], ["cluster-zbwlg-cbgq7-worker-sg"]],
    );
    assert.deepEqual(value.iamInstanceProfile, { id: "cluster-zbwlg-cbgq7-worker-profile" });
  });

  it("a worker MachineSet whose subnet is an id gives it to its own zone only", () => {
    const worker = {
      name: "c-worker-us-east-2a",
      zone: "us-east-2a",
      providerSpec: { subnet: { id: "subnet-0aaa" } },
    };
    assert.deepEqual(
      subnets({ ...SEED_INFRA, infrastructureId: "c", zones: ["us-east-2a", "us-east-2b"], worker }),
      [
        { id: "subnet-0aaa" },
        { filters: [{ name: "tag:Name", values: ["c-subnet-private-us-east-2b", "c-private-us-east-2b"] }] },
      ],
    );
  });

  it("names Azure MachineSets <infraID>-<role>-<region><zone> with the installer's defaults", () => {
    const [set] = machineSetsForPool({
      platform: "azure",
      infrastructureId: "mycluster-x7k2p",
      region: "centralus",
      role: "infra",
      zones: ["2"],
      replicas: 1,
      taints: [{ key: "node-role.kubernetes.io/infra", effect: "NoSchedule" }],
      azure: {
        image: {
          resourceID: "/resourceGroups/mycluster-x7k2p-rg/providers/Microsoft.Compute/images/mycluster-x7k2p",
        },
      },
    });
    assert.equal(set.metadata.name, "mycluster-x7k2p-infra-centralus2");
    assert.deepEqual(set.spec.template.spec.taints, [
      { key: "node-role.kubernetes.io/infra", effect: "NoSchedule" },
    ]);
    assert.deepEqual(set.spec.template.spec.providerSpec.value, {
      apiVersion: "machine.openshift.io/v1beta1",
      credentialsSecret: { name: "azure-cloud-credentials", namespace: "openshift-machine-api" },
      image: {
        offer: "",
        publisher: "",
        resourceID: "/resourceGroups/mycluster-x7k2p-rg/providers/Microsoft.Compute/images/mycluster-x7k2p",
        sku: "",
        version: "",
      },
      kind: "AzureMachineProviderSpec",
      location: "centralus",
      managedIdentity: "mycluster-x7k2p-identity",
      networkResourceGroup: "mycluster-x7k2p-rg",
      osDisk: { diskSizeGB: 128, managedDisk: { storageAccountType: "Premium_LRS" }, osType: "Linux" },
      publicIP: false,
      // openshift/installer pkg/asset/machines/azure/machines.go, provider: outbound through the cluster's load balancer.
      publicLoadBalancer: "mycluster-x7k2p",
      resourceGroup: "mycluster-x7k2p-rg",
      subnet: "mycluster-x7k2p-worker-subnet",
      userDataSecret: { name: "worker-user-data" },
      vmSize: "Standard_D4s_v3",
      vnet: "mycluster-x7k2p-vnet",
      zone: "2",
    });
  });

  it("renders the same bytes for the same input", () => {
    const a = JSON.stringify(
      machineSetsForPool({ ...SEED_INFRA, zones: ["us-east-2a", "us-east-2b"], replicas: 3 }),
    );
    const b = JSON.stringify(
      machineSetsForPool({ ...SEED_INFRA, zones: ["us-east-2a", "us-east-2b"], replicas: 3 }),
    );
    assert.equal(a, b);
  });

  const bad: Array<[string, Partial<MachineSetPoolSpec> & Record<string, unknown>, string, RegExp]> = [
    ["no zones", { zones: [] }, "zones", /at least one zone/],
    ["a zone twice", { zones: ["us-east-2a", "us-east-2b", "us-east-2a"] }, "zones[2]", /listed twice/],
    ["a zone of another region", { zones: ["us-west-1a"] }, "zones[0]", /not in region "us-east-2"/],
    ["negative replicas", { replicas: -1 }, "replicas", /whole number of 0 or more/],
    ["fractional replicas", { replicas: 1.5 }, "replicas", /whole number/],
    ["a role that is not a DNS label", { role: "Infra_Nodes" }, "role", /not a DNS label/],
    [
      "an unknown taint effect",
      { taints: [{ key: "infra", effect: "NoWay" as "NoSchedule" }] },
      "taints[0].effect",
      /"NoSchedule", "PreferNoSchedule", "NoExecute"/,
    ],
    [
      "a bad node label",
      { nodeLabels: { "bad key!": "" } },
      'nodeLabels["bad key!"]',
      /not a valid label key/,
    ],
    [
      "a subnet that is not an id",
      { zones: [{ zone: "us-east-2a", subnet: "private-a" }] },
      "zones[0].subnet",
      /subnet-/,
    ],
    [
      "a name over 63 characters",
      { role: "a-very-long-role-name-that-does-not-fit-into-a-label-value" },
      "role",
      /at most 63/,
    ],
    ["no AMI", { aws: { ami: "" } }, "aws.ami", /non-empty/],
    [
      "an unknown volume type",
      { aws: { ami: "ami-1", blockDevices: [{ ebs: { volumeSize: 10, volumeType: "gp9" as "gp3" } }] } },
      "aws.blockDevices[0].ebs.volumeType",
      /"gp3"/,
    ],
    ["an unsupported platform", { platform: "gcp" as "aws" }, "platform", /"aws" or "azure"/],
  ];
  for (const [what, change, propertyPath, message] of bad) {
    it(`rejects ${what} naming ${propertyPath}`, () => {
      assert.throws(
        () => machineSetsForPool({ ...SEED_INFRA, ...change } as MachineSetPoolSpec),
        (e: unknown) => e instanceof InputError && e.propertyPath === propertyPath && message.test(e.message),
      );
    });
  }

  it("rejects an Azure zone that is not a number and an Azure name over the Windows limit", () => {
    const azure: MachineSetPoolSpec = {
      platform: "azure",
      infrastructureId: "c-1",
      region: "centralus",
      role: "win",
      zones: ["1"],
      replicas: 1,
      maxNameLength: 9,
      azure: {
        image: {
          publisher: "MicrosoftWindowsServer",
          offer: "WindowsServer",
          sku: "2022-datacenter",
          version: "latest",
        },
      },
    };
    assert.throws(
      () => machineSetsForPool({ ...azure, zones: ["centralus-1"] }),
      (e: unknown) => e instanceof InputError && e.propertyPath === "zones[0]",
    );
    assert.throws(
      () => machineSetsForPool(azure),
      (e: unknown) => e instanceof InputError && e.propertyPath === "role" && /at most 9/.test(e.message),
    );
    assert.equal(
      machineSetsForPool({ ...azure, zones: [{ zone: "1", machineSetName: "win1" }] })[0].metadata.name,
      "win1",
    );
  });
});
