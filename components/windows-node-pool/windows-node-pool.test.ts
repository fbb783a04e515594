import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { seedYaml } from "../../test/seeds";
import {
  AWS_INFRA_ID,
  awsCloud,
  azureCloud,
  created,
  FakeCloud,
  imported,
  mocks,
  resetMocks,
  settle,
  valueOf,
  WINDOWS_2022_AMI,
  withObjects,
} from "../../test/mocks";
import { publicKeyFingerprint } from "./rsa-private-key";
import { WindowsNodePool, WindowsNodePoolArgs } from "./windows-node-pool";
import { PROVIDER_SPECS, SEEDS, requireReference } from "../../test/reference";
import { providerSpecErrors } from "../../test/provider-spec-schema";

const MACHINESET = "kubernetes:machine.openshift.io/v1beta1:MachineSet";
const RSA_PEM = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;

describe("WindowsNodePool", () => {
  beforeEach(() => resetMocks());

  it("adopts what seed 002 makes by hand: each object imported by the name the seed gives it", async () => {
    const ns = "openshift-windows-machine-config-operator";
    const imports: Array<[string, string]> = [
      ["kubernetes:core/v1:Namespace", ns],
      ["kubernetes:operators.coreos.com/v1:OperatorGroup", `${ns}/windows-machine-config-operator`],
      ["kubernetes:operators.coreos.com/v1alpha1:Subscription", `${ns}/windows-machine-config-operator`],
      ["kubernetes:core/v1:Secret", `${ns}/cloud-private-key`],
      [MACHINESET, `openshift-machine-api/${AWS_INFRA_ID}-windows-worker-us-east-2a`],
      ["kubernetes:node.k8s.io/v1:RuntimeClass", "windows-2022"],
    ];
    // The fake cluster answers each import with an object of that name.
    await resetMocks(withObjects(awsCloud(), imports));
    new WindowsNodePool("win", { zones: ["us-east-2a"], privateKey: pulumi.secret(RSA_PEM), adopt: true });
    await settle();
    assert.deepEqual(imported(imports), [...imports].sort());
  });

  it("installs WMCO with seed 002's defaults, stores the key secret and renders Windows MachineSets and a RuntimeClass", async function () {
    requireReference(this, SEEDS);
    const pool = new WindowsNodePool("win", {
      zones: ["us-east-2a", "us-east-2b"],
      replicas: 2,
      privateKey: pulumi.secret(RSA_PEM),
    });
    assert.deepEqual(await valueOf(pool.machineSetNames), [
      `${AWS_INFRA_ID}-windows-worker-us-east-2a`,
      `${AWS_INFRA_ID}-windows-worker-us-east-2b`,
    ]);
    assert.equal(await valueOf(pool.runtimeClassName), "windows-2022");
    await settle();

    const [subscription] = created("kubernetes:operators.coreos.com/v1alpha1:Subscription");
    const seedSubscription = seedYaml("002", /^\s+apiVersion: operators.coreos.com\/v1alpha1$/) as Record<
      string,
      unknown
    >;
    assert.deepEqual(subscription.inputs.spec, seedSubscription.spec);
    // Forced, as everything the stack declares: `up` takes back a hand edit (docs/components.md, "Hand edits").
    assert.deepEqual(subscription.inputs.metadata, {
      ...(seedSubscription.metadata as object),
      annotations: { "pulumi.com/patchForce": "true" },
    });
    const [group] = created("kubernetes:operators.coreos.com/v1:OperatorGroup");
    assert.deepEqual(group.inputs.spec, { targetNamespaces: ["openshift-windows-machine-config-operator"] });
    const [namespace] = created("kubernetes:core/v1:Namespace");
    assert.equal((namespace.inputs.metadata as any).name, "openshift-windows-machine-config-operator");

    const [secret] = created("kubernetes:core/v1:Secret");
    assert.deepEqual(secret.inputs.metadata, {
      name: "cloud-private-key",
      namespace: "openshift-windows-machine-config-operator",
      annotations: { "pulumi.com/patchForce": "true" },
    });
    assert.equal(await valueOf(pool.privateKeyFingerprint), publicKeyFingerprint(RSA_PEM));

    const sets = created(MACHINESET);
    const template = (sets[0].inputs.spec as any).template;
    assert.equal(template.metadata.labels["machine.openshift.io/os-id"], "Windows");
    assert.equal(template.metadata.labels["machine.openshift.io/cluster-api-machine-role"], "worker");
    // Seed 002 adds a namespace, but openshift/api's AWSMachineProviderConfig.userDataSecret is a
    // LocalObjectReference: the machine-api's strict decoding drops it (and the webhook warns).
    assert.deepEqual(template.spec.providerSpec.value.userDataSecret, { name: "windows-user-data" });
    assert.equal(template.spec.providerSpec.value.ami.id, WINDOWS_2022_AMI);

    const [runtimeClass] = created("kubernetes:node.k8s.io/v1:RuntimeClass");
    assert.equal(runtimeClass.inputs.handler, "runhcs-wcow-process");
    assert.equal(
      (runtimeClass.inputs.scheduling as any).nodeSelector["node.kubernetes.io/windows-build"],
      "10.0.20348",
    );
  });

  it("generates the private key in state when none is given, and can reuse an installed operator", async () => {
    const pool = new WindowsNodePool("win", {
      zones: ["us-east-2a"],
      operator: false,
      runtimeClass: { handler: "docker", name: "win2019" },
      windowsServer: "2019",
    });
    await valueOf(pool.machineSetNames);
    await settle();
    assert.equal(created("kubernetes:operators.coreos.com/v1alpha1:Subscription").length, 0);
    const keys = mocks.resources.filter((r) => r.type === "pulumi-nodejs:dynamic:RsaPrivateKey");
    assert.equal(keys.length, 1);
    assert.equal(keys[0].inputs.bits, 4096);
    const [runtimeClass] = created("kubernetes:node.k8s.io/v1:RuntimeClass");
    assert.equal(runtimeClass.inputs.handler, "docker");
    assert.equal((runtimeClass.inputs.metadata as any).name, "win2019");
  });

  it("waits for the operator, approves only a pinned CSV's plan, and waits for configured Windows nodes", async () => {
    const pool = new WindowsNodePool("win", {
      zones: ["us-east-2a"],
      privateKey: RSA_PEM,
      operator: { installPlanApproval: "Manual", startingCSV: "windows-machine-config-operator.v10.16.1" },
    });
    await valueOf(pool.machineSetNames);
    await settle();
    const install = mocks.resources.find((r) => r.type === "pulumi-nodejs:dynamic:OperatorInstall")!;
    assert.equal(install.inputs.startingCSV, "windows-machine-config-operator.v10.16.1");
    assert.equal(install.inputs.namespace, "openshift-windows-machine-config-operator");
    const nodes = mocks.resources.find((r) => r.type === "pulumi-nodejs:dynamic:WindowsNodesReady")!;
    assert.deepEqual(nodes.inputs.machineSets, [`${AWS_INFRA_ID}-windows-worker-us-east-2a`]);
  });

  it("replaces machines on a changed spec only with machineReplacement, through a MachineSetReady", async () => {
    const pool = new WindowsNodePool("win", {
      zones: ["us-east-2a"],
      replicas: 2,
      privateKey: RSA_PEM,
      machineReplacement: { strategy: "rolling", maxSurge: 0, maxUnavailable: 1 },
    });
    await valueOf(pool.machineSetNames);
    await settle();
    const name = `${AWS_INFRA_ID}-windows-worker-us-east-2a`;
    const replaced = mocks.resources.find((r) => r.type === "pulumi-nodejs:dynamic:MachineSetReady")!;
    assert.equal(replaced.name, "win-machines-replaced");
    assert.deepEqual(replaced.inputs.machineReplacement, {
      maxSurge: 0,
      maxUnavailable: 1,
      replicas: { [name]: 2 },
    });
    await resetMocks();
    const plain = new WindowsNodePool("win", { zones: ["us-east-2a"], privateKey: RSA_PEM });
    await valueOf(plain.machineSetNames);
    await settle();
    assert.equal(mocks.resources.filter((r) => r.type === "pulumi-nodejs:dynamic:MachineSetReady").length, 0);
  });

  it("names Azure Windows MachineSets <role><zone> within 9 characters, with a Windows OS disk", async () => {
    await resetMocks(azureCloud());
    const pool = new WindowsNodePool("win", { zones: ["1", "2"], privateKey: RSA_PEM });
    assert.deepEqual(await valueOf(pool.machineSetNames), ["win1", "win2"]);
    await settle();
    const value = (created(MACHINESET)[0].inputs.spec as any).template.spec.providerSpec.value;
    assert.equal(value.osDisk.osType, "Windows");
    assert.equal(value.image.sku, "2022-datacenter-smalldisk");
  });

  describe("in an Azure region without zones", () => {
    const ZONELESS = "westcentralus";
    beforeEach(() => resetMocks(azureCloud(ZONELESS)));

    it("makes one MachineSet named <role>, without a zone, valid against openshift/api's provider spec", async function () {
      requireReference(this, PROVIDER_SPECS);
      const pool = new WindowsNodePool("win", { zones: [], role: "winnode", privateKey: RSA_PEM });
      assert.deepEqual(await valueOf(pool.machineSetNames), ["winnode"]);
      await settle();
      const sets = created(MACHINESET);
      assert.equal(sets.length, 1);
      const spec = sets[0].inputs.spec as any;
      // No replicas given: the installer's three, all in the region's one MachineSet.
      assert.equal(spec.replicas, 3);
      const value = spec.template.spec.providerSpec.value;
      assert.ok(!("zone" in value), `no zone expected: ${JSON.stringify(value.zone)}`);
      assert.equal(value.location, ZONELESS);
      assert.equal(value.osDisk.osType, "Windows");
      assert.deepEqual(providerSpecErrors(value), []);
      assert.equal(spec.template.metadata.labels["machine.openshift.io/cluster-api-machineset"], "winnode");
      const nodes = mocks.resources.find((r) => r.type === "pulumi-nodejs:dynamic:WindowsNodesReady")!;
      assert.deepEqual(nodes.inputs.machineSets, ["winnode"]);
    });

    it("names the MachineSet by the default role win", async () => {
      const pool = new WindowsNodePool("win", { zones: [], privateKey: RSA_PEM });
      assert.deepEqual(await valueOf(pool.machineSetNames), ["win"]);
    });

    it("rejects a role that makes the name longer than 9 characters at role, saying what is allowed", async () => {
      const pool = new WindowsNodePool("win", { zones: [], role: "windowsnode", privateKey: RSA_PEM });
      await assert.rejects(valueOf(pool.machineSetNames), (e: unknown) => {
        assert.ok(pulumi.InputPropertyError.isInstance(e), `not an InputPropertyError: ${String(e)}`);
        assert.equal(e.propertyPath, "role");
        assert.match(e.reason, /"windowsnode".*at most 9 lower-case letters, digits or '-'/);
        return true;
      });
    });
  });

  const gcp = (): FakeCloud => {
    const cloud = awsCloud();
    (cloud.objects["config.openshift.io/v1:Infrastructure:cluster"].status as any).platformStatus = {
      type: "GCP",
      gcp: { region: "us-central1" },
    };
    return cloud;
  };
  const bad: Array<
    [string, WindowsNodePoolArgs, string, (() => FakeCloud) | undefined, "machineSets" | "operator" | "key"]
  > = [
    [
      "an Azure name over 9 characters",
      { zones: ["1"], role: "windowsnode" },
      "role",
      azureCloud,
      "machineSets",
    ],
    [
      "an unknown Windows build",
      { zones: ["us-east-2a"], windowsServer: "2016" },
      "windowsServer",
      undefined,
      "machineSets",
    ],
    [
      "a key that is not an RSA PEM",
      { zones: ["us-east-2a"], privateKey: "ssh-rsa AAAA" },
      "privateKey",
      undefined,
      "key",
    ],
    [
      "a channel OLM cannot name",
      { zones: ["us-east-2a"], operator: { channel: "stable channel" } },
      "operator.channel",
      undefined,
      "operator",
    ],
    [
      "an approval OLM does not know",
      { zones: ["us-east-2a"], operator: { installPlanApproval: "Always" as "Manual" } },
      "operator.installPlanApproval",
      undefined,
      "operator",
    ],
    [
      "a zone without a subnet",
      { zones: ["us-east-2a", { zone: "us-east-2b", subnet: "subnet-missing" }], cloudLookups: true },
      "zones[1].subnet",
      undefined,
      "machineSets",
    ],
    ["negative replicas", { zones: ["us-east-2a"], replicas: -1 }, "replicas", undefined, "machineSets"],
    ["a platform other than AWS or Azure", { zones: ["us-central1-a"] }, "platform", gcp, "machineSets"],
    ["a zone listed twice", { zones: ["us-east-2a", "us-east-2a"] }, "zones[1]", undefined, "machineSets"],
    [
      "a Windows image that is not an AMI",
      { zones: ["us-east-2a"], image: { sku: "2022" } },
      "image",
      undefined,
      "machineSets",
    ],
  ];
  for (const [what, args, propertyPath, cloud, where] of bad) {
    it(`rejects ${what} at ${propertyPath}`, async () => {
      await resetMocks(cloud ? cloud() : awsCloud());
      // Plain values are checked as the component is constructed; Inputs once they resolve.
      const evaluate = async () => {
        const pool = new WindowsNodePool("win", { privateKey: RSA_PEM, ...args });
        const outputs = {
          machineSets: pool.machineSetNames,
          operator: pool.operator?.subscriptionName,
          key: pool.privateKeyFingerprint,
        };
        await valueOf(outputs[where] as pulumi.Output<unknown>);
      };
      await assert.rejects(evaluate, (e: unknown) => {
        assert.ok(pulumi.InputPropertyError.isInstance(e), `not an InputPropertyError: ${String(e)}`);
        assert.equal(e.propertyPath, propertyPath);
        // The reason says what is allowed; the message puts the path (and the component) in front of it.
        assert.ok(e.message.endsWith(`${propertyPath}: ${e.reason}`), e.message);
        if (typeof args.privateKey === "string") {
          assert.ok(!e.reason.includes(args.privateKey), "the key must not appear in errors");
        }
        return true;
      });
    });
  }
});
