import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import { parse } from "yaml";
import {
  AWS_AMI,
  AWS_INFRA_ID,
  AZURE_IMAGE,
  AZURE_INFRA_ID,
  awsCloud,
  azureCloud,
  created,
  mocks,
  resetMocks,
  settle,
  valueOf,
} from "../../test/mocks";
import { captureConsole } from "../../test/console";
import { InfraNodePool, InfraNodePoolArgs, INFRA_TAINTS } from "./infra-node-pool";

const MACHINESET = "kubernetes:machine.openshift.io/v1beta1:MachineSet";

describe("InfraNodePool", () => {
  beforeEach(() => resetMocks());

  // openshift/installer pkg/asset/machines/aws/machines.go, provider (what a worker MachineSet holds
  // today); openshift/hive pkg/controller/machinepool/awsactuator.go, updateProviderConfig (hive
  // re-uses the installer's worker MachineSets' references the same way).
  it("takes subnet, security groups, IAM profile and tags from the worker MachineSet, and says so in the preview", async () => {
    const cloud = awsCloud();
    const worker = `${AWS_INFRA_ID}-worker-us-east-2a`;
    const tagName = (value: string) => ({ filters: [{ name: "tag:Name", values: [value] }] });
    const value = {
      ami: { id: AWS_AMI },
      iamInstanceProfile: { id: `${AWS_INFRA_ID}-worker-profile` },
      kind: "AWSMachineProviderConfig",
      placement: { availabilityZone: "us-east-2a", region: "us-east-2" },
      securityGroups: [tagName(`${AWS_INFRA_ID}-node`), tagName(`${AWS_INFRA_ID}-lb`)],
      subnet: tagName(`${AWS_INFRA_ID}-subnet-private-us-east-2a`),
      tags: [
        { name: `kubernetes.io/cluster/${AWS_INFRA_ID}`, value: "owned" },
        { name: "cost-center", value: "42" },
      ],
    };
    (cloud.objects[`machine.openshift.io/v1beta1:MachineSet:openshift-machine-api/${worker}`] as any).spec = {
      template: { spec: { providerSpec: { value } } },
    };
    await resetMocks(cloud, { preview: true });
    const { output } = await captureConsole(async () => {
      // Without waiting the preview reads nothing else of the cluster (no rollout impact).
      new InfraNodePool("infra", {
        zones: ["us-east-2a", "us-east-2b"],
        aws: { tags: { team: "ops" } },
        wait: false,
      });
      await settle();
    });
    const specs = created(MACHINESET).map(
      (s) => (s.inputs.spec as Record<string, any>).template.spec.providerSpec.value,
    );
    assert.deepEqual(
      specs.map((s) => s.subnet),
      [
        tagName(`${AWS_INFRA_ID}-subnet-private-us-east-2a`),
        tagName(`${AWS_INFRA_ID}-subnet-private-us-east-2b`),
      ],
    );
    assert.deepEqual(specs[1].securityGroups, value.securityGroups);
    assert.deepEqual(specs[1].iamInstanceProfile, value.iamInstanceProfile);
    assert.deepEqual(specs[1].tags, [...value.tags, { name: "team", value: "ops" }]);
    assert.match(
      output,
      new RegExp(
        `MachineSet ${AWS_INFRA_ID}-infra-us-east-2b: subnet from worker MachineSet ${worker}'s subnet tag name for us-east-2b; security groups, IAM instance profile, tags from worker MachineSet ${worker}`,
      ),
    );
  });

  it("reads the cluster's facts and image and renders one MachineSet per zone with role labels and taints", async () => {
    const pool = new InfraNodePool("infra", {
      zones: ["us-east-2a", "us-east-2b", "us-east-2c"],
      replicas: 4,
    });
    assert.deepEqual(await valueOf(pool.machineSetNames), [
      `${AWS_INFRA_ID}-infra-us-east-2a`,
      `${AWS_INFRA_ID}-infra-us-east-2b`,
      `${AWS_INFRA_ID}-infra-us-east-2c`,
    ]);
    await settle();
    const sets = created(MACHINESET);
    assert.deepEqual(
      sets.map((s) => s.name),
      ["infra-us-east-2a", "infra-us-east-2b", "infra-us-east-2c"],
    );
    const spec = sets[0].inputs.spec as Record<string, any>;
    assert.deepEqual(
      sets.map((s) => (s.inputs.spec as { replicas: number }).replicas),
      [2, 1, 1],
    );
    assert.deepEqual(spec.template.spec.metadata.labels, {
      "node-role.kubernetes.io/infra": "",
      "node-role.kubernetes.io/worker": "",
    });
    assert.deepEqual(spec.template.spec.taints, [
      { key: "node-role.kubernetes.io/infra", value: "reserved", effect: "NoSchedule" },
      { key: "node-role.kubernetes.io/infra", value: "reserved", effect: "NoExecute" },
    ]);
    assert.equal(spec.template.spec.providerSpec.value.ami.id, AWS_AMI);
    assert.equal(spec.template.spec.providerSpec.value.placement.region, "us-east-2");

    const [mcp] = created("kubernetes:machineconfiguration.openshift.io/v1:MachineConfigPool");
    assert.equal((mcp.inputs.metadata as { name: string }).name, "infra");
    assert.deepEqual((mcp.inputs.spec as Record<string, any>).machineConfigSelector, {
      matchExpressions: [
        { key: "machineconfiguration.openshift.io/role", operator: "In", values: ["worker", "infra"] },
      ],
    });
  });

  it("one waiter for its machines and the pool's rollout, which keeps the pool's settings, and one removal guard", async () => {
    const pool = new InfraNodePool("infra", { zones: ["us-east-2a", "us-east-2b"], maxUnavailable: 2 });
    await valueOf(pool.machineSetNames);
    await settle();
    const waiters = mocks.resources.filter((r) => r.type.startsWith("pulumi-nodejs:dynamic:"));
    assert.deepEqual(waiters.map((w) => `${w.type.split(":")[2]} ${w.name}`).sort(), [
      "MachineSetRemoval infra-machines-removal",
      "NodeLabelsAndTaints infra-node-labels",
      "PoolRollout infra-pool-rollout",
    ]);
    const names = [`${AWS_INFRA_ID}-infra-us-east-2a`, `${AWS_INFRA_ID}-infra-us-east-2b`];
    for (const waiter of ["infra-pool-rollout", "infra-machines-removal", "infra-node-labels"]) {
      assert.deepEqual(waiters.find((w) => w.name === waiter)!.inputs.machineSets, names);
    }
    // Its machines before its pool: the MCO counts only nodes its nodeSelector finds
    // (openshift/machine-config-operator, pkg/controller/node/node_controller.go, getNodesForPool).
    const rollout = waiters.find((w) => w.name === "infra-pool-rollout")!;
    assert.deepEqual(
      [rollout.inputs.pool, rollout.inputs.nodeLabels, rollout.inputs.settings],
      [
        "infra",
        { "node-role.kubernetes.io/infra": "", "node-role.kubernetes.io/worker": "" },
        { maxUnavailable: 2 },
      ],
    );
    // The running nodes get the template's labels and taints, the infra ones by default.
    const labels = waiters.find((w) => w.name === "infra-node-labels")!;
    assert.deepEqual(
      [labels.inputs.labels, labels.inputs.taints],
      [{ "node-role.kubernetes.io/infra": "", "node-role.kubernetes.io/worker": "" }, [...INFRA_TAINTS]],
    );
  });

  it("hands its machine replacement to its one waiter with the replicas each MachineSet keeps, or none when autoscaled", async () => {
    const waiterOf = async (args: InfraNodePoolArgs) => {
      resetMocks();
      const pool = new InfraNodePool("infra", { zones: ["us-east-2a", "us-east-2b"], ...args });
      await valueOf(pool.machineSetNames);
      await settle();
      return mocks.resources.find((r) => r.name === "infra-pool-rollout")!.inputs;
    };
    const [a, b] = [`${AWS_INFRA_ID}-infra-us-east-2a`, `${AWS_INFRA_ID}-infra-us-east-2b`];
    assert.deepEqual(
      (await waiterOf({ replicas: 3, machineReplacement: { strategy: "rolling" } })).machineReplacement,
      { maxSurge: 1, maxUnavailable: 0, replicas: { [a]: 2, [b]: 1 } },
    );
    const autoscaled = await waiterOf({
      autoscaling: { minReplicas: 2, maxReplicas: 4 },
      machineReplacement: { strategy: "rolling", maxUnavailable: 2 },
    });
    assert.deepEqual(autoscaled.machineReplacement, { maxSurge: 0, maxUnavailable: 2 });
    assert.equal((await waiterOf({})).machineReplacement, undefined);
  });

  it("shows its MachineSets in a preview while the values their manifests need are unknown", async () => {
    await resetMocks(undefined, { preview: true });
    // As when the cluster is created in the same stack: nothing about it is known during the preview.
    const unknown = pulumi.output(pulumi.unknown) as pulumi.Output<never>;
    new InfraNodePool("infra", {
      infrastructureId: unknown,
      platform: "aws",
      region: unknown,
      image: unknown,
      zones: ["us-east-2a", { zone: "us-east-2b" }],
    });
    await settle();
    const names = (type: string) => mocks.resources.filter((r) => r.type === type).map((r) => r.name);
    assert.deepEqual(names(MACHINESET), ["infra-us-east-2a", "infra-us-east-2b"]);
    assert.deepEqual(names("pulumi-nodejs:dynamic:MachineSetRemoval"), ["infra-machines-removal"]);
  });

  it("moves router, registry and monitoring onto the pool with patches that tolerate its taints", async () => {
    const pool = new InfraNodePool("infra", {
      zones: ["us-east-2a"],
      router: { replicas: 3 },
      registry: true,
      monitoring: { config: { prometheusK8s: { retention: "15d" } } },
    });
    await valueOf(pool.machineSetNames);
    await settle();
    const tolerations = [
      { effect: "NoSchedule", key: "node-role.kubernetes.io/infra", operator: "Equal", value: "reserved" },
      { effect: "NoExecute", key: "node-role.kubernetes.io/infra", operator: "Equal", value: "reserved" },
    ];
    const [router] = created("kubernetes:operator.openshift.io/v1:IngressControllerPatch");
    assert.deepEqual(router.inputs.spec, {
      nodePlacement: { nodeSelector: { matchLabels: { "node-role.kubernetes.io/infra": "" } }, tolerations },
      replicas: 3,
    });
    // Each patch applies as a manager named after it (pulumi-kubernetes' fieldManagerName takes the
    // annotation), the one an adopting stack's patch applies and releases as after its state was lost.
    assert.deepEqual(router.inputs.metadata, {
      annotations: {
        "pulumi.com/patchFieldManager": "openshift-topology-infra-router",
        "pulumi.com/patchForce": "true",
      },
      name: "default",
      namespace: "openshift-ingress-operator",
    });
    const [registry] = created("kubernetes:imageregistry.operator.openshift.io/v1:ConfigPatch");
    assert.deepEqual(registry.inputs.spec, {
      nodeSelector: { "node-role.kubernetes.io/infra": "" },
      tolerations,
    });
    const [monitoring] = created("kubernetes:core/v1:ConfigMapPatch");
    const config = parse((monitoring.inputs.data as Record<string, string>)["config.yaml"]);
    assert.deepEqual(config.prometheusK8s, {
      nodeSelector: { "node-role.kubernetes.io/infra": "" },
      retention: "15d",
      tolerations,
    });
    assert.deepEqual(config.alertmanagerMain.nodeSelector, { "node-role.kubernetes.io/infra": "" });
    const managers = [router, registry, monitoring].map(
      (p) =>
        (p.inputs.metadata as { annotations: Record<string, string> }).annotations[
          "pulumi.com/patchFieldManager"
        ],
    );
    assert.deepEqual(managers, [
      "openshift-topology-infra-router",
      "openshift-topology-infra-registry",
      "openshift-topology-infra-monitoring",
    ]);
    // Each patch is given back on destroy by a release declared before it, reading the fields it writes
    // and keeping them under the patch's manager.
    const released = created("pulumi-nodejs:dynamic:PatchRelease");
    assert.deepEqual(
      released.map((r) => r.inputs.fieldManager),
      managers,
    );
    const releases = released.map((r) => [r.inputs.target, r.inputs.paths]);
    assert.deepEqual(releases, [
      [
        {
          apiVersion: "operator.openshift.io/v1",
          kind: "IngressController",
          name: "default",
          namespace: "openshift-ingress-operator",
        },
        [
          ["spec", "nodePlacement"],
          ["spec", "replicas"],
        ],
      ],
      [
        { apiVersion: "imageregistry.operator.openshift.io/v1", kind: "Config", name: "cluster" },
        [
          ["spec", "nodeSelector"],
          ["spec", "tolerations"],
        ],
      ],
      [
        {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "cluster-monitoring-config",
          namespace: "openshift-monitoring",
        },
        [["data", "config.yaml"]],
      ],
    ]);
  });

  it("finds zones, subnets and security groups on AWS when asked to look them up", async () => {
    const pool = new InfraNodePool("infra", { cloudLookups: true });
    await valueOf(pool.machineSetNames);
    await settle();
    const values = created(MACHINESET).map(
      (s) => (s.inputs.spec as Record<string, any>).template.spec.providerSpec.value,
    );
    assert.deepEqual(
      values.map((v) => [v.placement.availabilityZone, v.subnet.id, v.securityGroups]),
      ["us-east-2a", "us-east-2b", "us-east-2c"].map((z) => [
        z,
        `subnet-private-${z}`,
        [{ id: "sg-worker-0a1b" }],
      ]),
    );
  });

  it("builds Azure pools from the resource group's location and checks subnet and identity", async () => {
    await resetMocks(azureCloud());
    const pool = new InfraNodePool("infra", {
      zones: ["1", "2", "3"],
      cloudLookups: true,
      azure: { vmSize: "Standard_D8s_v3" },
    });
    assert.deepEqual(
      await valueOf(pool.machineSetNames),
      [1, 2, 3].map((z) => `${AZURE_INFRA_ID}-infra-centralus${z}`),
    );
    await settle();
    const value = (created(MACHINESET)[0].inputs.spec as Record<string, any>).template.spec.providerSpec
      .value;
    assert.deepEqual(value.image, AZURE_IMAGE);
    assert.equal(value.location, "centralus");
    assert.equal(value.vmSize, "Standard_D8s_v3");
  });

  it("makes one zone-less MachineSet in an Azure region without zones, with the installer's three machines by default", async () => {
    await resetMocks(azureCloud("westcentralus"));
    const name = `${AZURE_INFRA_ID}-infra-westcentralus`;
    const pool = new InfraNodePool("infra", { zones: [] });
    assert.deepEqual(await valueOf(pool.machineSetNames), [name]);
    await settle();
    const [set] = created(MACHINESET);
    const spec = set.inputs.spec as Record<string, any>;
    assert.equal(spec.replicas, 3);
    assert.ok(!("zone" in spec.template.spec.providerSpec.value));
    // The image is the one of the region's zone-less worker MachineSet.
    assert.deepEqual(spec.template.spec.providerSpec.value.image, AZURE_IMAGE);

    await resetMocks(azureCloud("westcentralus"));
    const two = new InfraNodePool("infra", { zones: [], replicas: 2 });
    await valueOf(two.machineSetNames);
    await settle();
    assert.equal((created(MACHINESET)[0].inputs.spec as Record<string, any>).replicas, 2);
  });

  it("places a pool that lists no zones in the one zone-less MachineSet of an Azure region without zones", async () => {
    await resetMocks(azureCloud("westcentralus"));
    const pool = new InfraNodePool("infra", {});
    assert.deepEqual(await valueOf(pool.machineSetNames), [`${AZURE_INFRA_ID}-infra-westcentralus`]);
  });

  it("asks for the zones of a pool that lists none in an Azure region with zones", async () => {
    await resetMocks(azureCloud());
    const pool = new InfraNodePool("infra", {});
    await assert.rejects(valueOf(pool.machineSetNames), (e: unknown) => {
      assert.ok(pulumi.InputPropertyError.isInstance(e), `not an InputPropertyError: ${String(e)}`);
      assert.equal(e.propertyPath, "zones");
      assert.match(e.reason, /"centralus", which has availability zones: list the zone numbers/);
      return true;
    });
  });

  const bad: Array<[string, InfraNodePoolArgs, string, RegExp]> = [
    ["a duplicate zone", { zones: ["us-east-2a", "us-east-2a"] }, "zones[1]", /listed twice/],
    ["no zones", { zones: [] }, "zones", /at least one zone/],
    ["negative replicas", { zones: ["us-east-2a"], replicas: -2 }, "replicas", /whole number/],
    [
      "an unknown taint effect",
      { zones: ["us-east-2a"], taints: [{ key: "k", effect: "Never" as "NoSchedule" }] },
      "taints[0].effect",
      /NoExecute/,
    ],
    ["zones missing without lookups", {}, "zones", /list the zones/],
    [
      "a subnet in another zone",
      { cloudLookups: true, zones: [{ zone: "us-east-2a", subnet: "subnet-private-us-east-2b" }] },
      "zones[0].subnet",
      /is in us-east-2b, not in us-east-2a/,
    ],
    ["an image that is not an AMI", { zones: ["us-east-2a"], image: { sku: "x" } }, "image", /AMI id/],
    ["a zone of another region", { zones: ["us-west-1a"] }, "zones[0]", /not in region "us-east-2"/],
    [
      // machine-api-operator pkg/webhooks/machine_webhook.go validateAWS
      "spot in a capacity reservation",
      {
        zones: ["us-east-2a"],
        aws: { spotMarketOptions: true, capacityReservationId: "cr-0123456789abcdef0" },
      },
      "aws.capacityReservationId",
      /cannot be used with spotMarketOptions/,
    ],
    [
      // EC2 RunInstances, as machine-api-provider-aws launchInstance sends it
      "spot on a dedicated host",
      { zones: ["us-east-2a"], aws: { spotMarketOptions: true, dedicatedHostId: "h-0123456789abcdef0" } },
      "aws.dedicatedHostId",
      /spotMarketOptions/,
    ],
  ];
  for (const [what, args, propertyPath, message] of bad) {
    it(`rejects ${what} at ${propertyPath}`, async () => {
      const pool = new InfraNodePool("infra", args);
      await assert.rejects(valueOf(pool.machineSetNames), (e: unknown) => {
        assert.ok(pulumi.InputPropertyError.isInstance(e), `not an InputPropertyError: ${String(e)}`);
        assert.equal(e.propertyPath, propertyPath);
        assert.match(e.reason, message);
        // The reason says what is allowed; the message puts the component and the path in front of it.
        assert.equal(e.message, `InfraNodePool "infra": ${propertyPath}: ${e.reason}`);
        return true;
      });
    });
  }
});
