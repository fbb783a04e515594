import * as assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { seedYaml, withNodeMetadataRecord } from "../../test/seeds";
import { InputError } from "../errors";
import { machineSetsForPool } from "../machineset";
import { requireRsaPrivateKeyPem, requireWindowsBuild, windowsPoolSpec, windowsRuntimeClass } from ".";
import { SEEDS, requireReference } from "../../test/reference";

const INFRA_ID = "cluster-zbwlg-cbgq7";

/**
 * The installer-made worker MachineSet of a 4.6 cluster: the library copies its network references
 * (subnet, security groups, IAM profile or load balancer, tags), and on a 4.6 cluster they are the ones
 * seed 002's Windows MachineSet names.
 */
function workerOf(seed: unknown, zone: string) {
  const spec = (
    seed as { spec: { template: { spec: { providerSpec: { value: Record<string, unknown> } } } } }
  ).spec.template.spec.providerSpec.value;
  return { name: `${INFRA_ID}-worker-${zone}`, zone, providerSpec: spec };
}

describe("Windows builders", () => {
  it("reproduce seed 002's AWS Windows MachineSet with the 4.6 options", function () {
    requireReference(this, SEEDS);
    const seed = seedYaml("002", /^apiVersion: machine.openshift.io\/v1beta1$/, undefined, {
      "<infrastructure_id>": INFRA_ID,
      "<zone>": "us-east-1a",
      "<region>": "us-east-1",
      "<windows_container_ami>": "ami-0a1b2c3d4e5f60718",
    });
    const [rendered] = machineSetsForPool(
      windowsPoolSpec({
        platform: "aws",
        infrastructureId: INFRA_ID,
        region: "us-east-1",
        role: "windows-worker",
        zones: ["us-east-1a"],
        replicas: 1,
        worker: workerOf(seed, "us-east-1a"),
        aws: {
          ami: "ami-0a1b2c3d4e5f60718",
          instanceType: "m5a.large",
          blockDevices: [{ ebs: { iops: 0, volumeSize: 120, volumeType: "gp2" } }],
          providerApiVersion: "awsproviderconfig.openshift.io/v1beta1",
        },
      }),
    );
    // openshift/api's AWS userDataSecret is a LocalObjectReference: the seed's namespace is dropped on admission.
    const expected = structuredClone(seed);
    delete (workerOf(expected, "us-east-1a").providerSpec.userDataSecret as { namespace?: string }).namespace;
    assert.deepEqual(rendered, withNodeMetadataRecord(expected));
  });

  it("reproduce seed 002's Azure Windows MachineSet with the 4.6 options", function () {
    requireReference(this, SEEDS);
    const azure = seedAfter("4.2.2.", {
      "<infrastructure_id>": INFRA_ID,
      "<windows_machine_set_name>": "winworker",
      "<location>": "centralus",
      "<zone>": "1",
    });
    const [rendered] = machineSetsForPool(
      windowsPoolSpec({
        platform: "azure",
        infrastructureId: INFRA_ID,
        region: "centralus",
        role: "windows",
        zones: [{ zone: "1", machineSetName: "winworker" }],
        replicas: 1,
        worker: workerOf(azure, "1"),
        azure: {
          image: {
            offer: "WindowsServer",
            publisher: "MicrosoftWindowsServer",
            sku: "2019-Datacenter-with-Containers",
            version: "latest",
          },
          vmSize: "Standard_D2s_v3",
          providerApiVersion: "azureproviderconfig.openshift.io/v1beta1",
        },
      }),
    );
    assert.deepEqual(rendered, withNodeMetadataRecord(azure));
  });

  it("holds Azure Windows MachineSet names to 9 characters", () => {
    assert.throws(
      () =>
        machineSetsForPool(
          windowsPoolSpec({
            platform: "azure",
            infrastructureId: INFRA_ID,
            region: "centralus",
            role: "windows",
            zones: [{ zone: "1", machineSetName: "windows-01" }],
            replicas: 1,
            azure: { image: { publisher: "p", offer: "o", sku: "s", version: "latest" } },
          }),
        ),
      (e: unknown) =>
        e instanceof InputError &&
        e.propertyPath === "zones[0].machineSetName" &&
        /at most 9/.test(e.message),
    );
  });

  it("reproduce seed 002's RuntimeClass with the 4.6 options (docker, Windows Server 2019)", function () {
    requireReference(this, SEEDS);
    const seed = seedYaml("002", /^\s+apiVersion: node.k8s.io\/v1beta1$/, undefined, {
      "<runtime_class_name>": "windows2019",
    });
    // The seed predates node.k8s.io/v1 (served since Kubernetes 1.20); every other field must match.
    assert.deepEqual(windowsRuntimeClass({ name: "windows2019", build: "2019", handler: "docker" }), {
      ...(seed as object),
      apiVersion: "node.k8s.io/v1",
    });
    assert.equal(
      windowsRuntimeClass({ name: "win2022", build: "10.0.20348" }).handler,
      "runhcs-wcow-process",
    );
  });

  it("accept only RSA private keys in PEM form, without echoing the key", () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs1",
      format: "pem",
    }) as string;
    assert.equal(requireRsaPrivateKeyPem("privateKey", rsa), rsa);
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    }) as string;
    for (const [key, why] of [
      [ec, /ec key/],
      ["ssh-rsa AAAAB3NzaC1yc2E", /PEM form/],
      ["-----BEGIN RSA PRIVATE KEY-----\nnot base64\n-----END RSA PRIVATE KEY-----", /could not be parsed/],
    ] as const) {
      assert.throws(
        () => requireRsaPrivateKeyPem("privateKey", key),
        (e: unknown) =>
          e instanceof InputError &&
          e.propertyPath === "privateKey" &&
          why.test(e.message) &&
          !e.message.includes(key),
      );
    }
  });

  it("know the Windows Server builds by year or by build number", () => {
    assert.equal(requireWindowsBuild("build", "2022"), "10.0.20348");
    assert.equal(requireWindowsBuild("build", "10.0.26100"), "10.0.26100");
    assert.throws(
      () => requireWindowsBuild("build", "2016"),
      (e: unknown) => e instanceof InputError && /10\.0\.17763/.test(e.message),
    );
  });
});

/** The first MachineSet example after the section heading `heading`. */
function seedAfter(heading: string, substitute: Record<string, string>): unknown {
  return seedYaml("002", /^apiVersion: machine.openshift.io\/v1beta1$/, undefined, substitute, heading);
}
