import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import {
  ContainerRuntimeConfig,
  KubeletConfig,
  MachineConfig,
  MachineConfigPool,
} from "../components/machine-configuration/machine-configuration";
import { generateKeyPairSync } from "node:crypto";
import { inspect } from "node:util";
import { ClusterAutoscaler } from "../components/cluster-autoscaler/cluster-autoscaler";
import { ClusterExtension } from "../components/cluster-extension/cluster-extension";
import { InfraNodePool } from "../components/infra-node-pool/infra-node-pool";
import {
  OperatorSubscription,
  OperatorSubscriptionArgs,
} from "../components/operator-subscription/operator-subscription";
import { WindowsNodePool, WindowsNodePoolArgs } from "../components/windows-node-pool/windows-node-pool";
import { parse } from "yaml";
import { azureCloud, created, mocks, pendingPromises, resetMocks, settle, valueOf } from "./mocks";

/**
 * Mistakes a new user makes through the public components, each stopped at preview as OpenShift itself
 * would stop it later: as an InputPropertyError (or, for several at once, an InputPropertiesError)
 * naming the path the user wrote and saying what is allowed, with a message free of stack frames and
 * of the SDK's `error serializing property` prefixes.
 */

type Problem = { propertyPath: string; reason: string };

/** The problems an output's rejection reports, after checking the error's shape and message. */
async function problemsOf(output: pulumi.Output<unknown>): Promise<Problem[]> {
  let error: unknown;
  try {
    await valueOf(output);
  } catch (e) {
    error = e;
  }
  assert.ok(error, "expected the input to be rejected");
  // Let every registration that carries the error serialize it before its message is read (a failed
  // registration never settles, so this yields to the event loop instead of waiting for the mocks).
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
  const problems: Problem[] = pulumi.InputPropertiesError.isInstance(error)
    ? error.errors
    : pulumi.InputPropertyError.isInstance(error)
      ? [{ propertyPath: error.propertyPath, reason: error.reason }]
      : assert.fail(`not an input error: ${String(error)}`);
  const message = (error as Error).message;
  assert.doesNotMatch(message, /error serializing/, message);
  assert.doesNotMatch(String((error as Error).stack), /\n\s+at /, "no stack frames");
  // What a program run prints of it: the SDK's entry point inspects an unhandled error whole. One
  // problem prints as `<path>: <reason>` (after the component's name, when it comes from one); several
  // under a heading naming the component, one a line.
  const printed = inspect(error);
  const lines = problems.map((p) => `${p.propertyPath}: ${p.reason}`);
  if (problems.length === 1) {
    assert.equal(printed, message);
    assert.ok(message.endsWith(lines[0]), message);
  } else {
    assert.equal(printed, `${message}:\n${lines.map((l) => `  ${l}`).join("\n")}`);
  }
  for (const p of problems) {
    // The engine shows a reason as `property <path> has a problem: <reason>`: it does not repeat the path.
    assert.ok(!p.reason.startsWith(`${p.propertyPath}:`), p.reason);
  }
  return problems;
}

/** Asserts one problem at `path` whose reason matches `allowed`. */
async function rejects(output: pulumi.Output<unknown>, path: string, allowed: RegExp): Promise<void> {
  const problems = await problemsOf(output);
  assert.deepEqual(
    problems.map((p) => p.propertyPath),
    [path],
  );
  assert.match(problems[0].reason, allowed);
}

const unknown = () => pulumi.output(pulumi.unknown) as pulumi.Output<never>;

const pathsOf = async (output: pulumi.Output<unknown>) =>
  (await problemsOf(output)).map((p) => p.propertyPath);

const ENCRYPTED_KEY = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs8",
  format: "pem",
  cipher: "aes-256-cbc",
  passphrase: "secret",
}) as string;

describe("bad input, stopped at preview", () => {
  beforeEach(async () => {
    await resetMocks();
    await pendingPromises();
  });
  // A component that fails leaves none of the SDK's promises pending: a user's test of bad input exits 0.
  afterEach(async () => assert.deepEqual(await pendingPromises(), []));

  describe("KubeletConfig, checked as the MCO and the kubelet check it", () => {
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      ["a misspelt field", { maxPod: 250 }, "kubeletConfig.maxPod", /did you mean maxPods\?/],
      [
        "a quantity with a space",
        { systemReserved: { memory: "1 GB" } },
        'kubeletConfig.systemReserved["memory"]',
        /not a quantity/,
      ],
      [
        "an eviction threshold that is neither quantity nor percentage",
        { evictionHard: { "memory.available": "half" } },
        'kubeletConfig.evictionHard["memory.available"]',
        /neither a quantity/,
      ],
      [
        "evictionSoft without its grace period",
        { evictionSoft: { "nodefs.available": "15%" } },
        "kubeletConfig.evictionSoftGracePeriod",
        /grace period/,
      ],
      [
        "a percentage over 100",
        { imageGCHighThresholdPercent: 101 },
        "kubeletConfig.imageGCHighThresholdPercent",
        /0 to 100/,
      ],
      ["staticPodPath", { staticPodPath: "/etc/pods" }, "kubeletConfig.staticPodPath", /may not be set/],
    ];
    for (const [what, kubeletConfig, path, allowed] of cases) {
      it(`rejects ${what} at ${path}`, async () => {
        await rejects(new KubeletConfig("kc", { pool: "infra", kubeletConfig }).objectName, path, allowed);
      });
    }

    it("rejects logLevel 0, outside the MCO's 1 to 10", async () => {
      await rejects(
        new KubeletConfig("kc", { pool: "infra", logLevel: 0 }).objectName,
        "logLevel",
        /1 to 10/,
      );
    });

    it("reports every problem of the component at once", async () => {
      const kc = new KubeletConfig("kc", {
        pool: "infra",
        logLevel: 11,
        // @ts-expect-error: a misspelt field, refused by the type and at preview.
        kubeletConfig: { maxPod: 1, cpuManagerPolicy: "Static" },
      });
      assert.deepEqual(
        (await problemsOf(kc.objectName)).map((p) => p.propertyPath),
        ["kubeletConfig.maxPod", "kubeletConfig.cpuManagerPolicy", "logLevel"],
      );
    });
  });

  it("keeps a message free of the SDK's serialization prefixes and of stack frames", async () => {
    // The manifest of a MachineConfig feeds several inputs of several resources, each of which
    // serializes the same error.
    const mc = new MachineConfig("99-x", {
      role: "infra",
      files: [{ path: "/usr/x", contents: { text: "" } }],
    });
    await rejects(mc.objectName, "files[0].path", /under \/etc and \/var/);
  });

  describe("errors name the path the user wrote and say what is allowed", () => {
    it("an infra pool's role that names a built-in pool, at role", async () => {
      const pool = new InfraNodePool("infra", { role: "worker", zones: ["us-east-2a"] });
      await rejects(pool.machineSetNames, "role", /pool every cluster/);
    });

    it("a RuntimeClass handler, at runtimeClass.handler", async () => {
      const pool = new WindowsNodePool("win", {
        zones: ["us-east-2a"],
        runtimeClass: { handler: "hcs" as "docker" },
      });
      await rejects(pool.runtimeClassName, "runtimeClass.handler", /"runhcs-wcow-process"/);
    });

    it("a RuntimeClass name, at runtimeClass.name", async () => {
      const pool = new WindowsNodePool("win", {
        zones: ["us-east-2a"],
        runtimeClass: { name: "Windows 2022" },
      });
      await rejects(pool.runtimeClassName, "runtimeClass.name", /lower-case letters/);
    });

    for (const key of ["create", "update", "delete"] as const) {
      it(`a wait timeout that is no duration, at waitTimeouts.${key}`, async () => {
        await rejects(
          new MachineConfigPool("gpu", { waitTimeouts: { [key]: "30 minutes" } }).objectName,
          `waitTimeouts.${key}`,
          /not a duration: use .* "90s", "45m" or "1h30m"/,
        );
      });
    }

    it("a taint key with a space, at taints[0].key, saying what a key may be", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a"],
        taints: [{ key: "dedicated to", effect: "NoSchedule" }],
      });
      await rejects(pool.machineSetNames, "taints[0].key", /not a valid taint key: keys are .* at most 63/);
    });

    it("a taint value too long, at taints[0].value", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a"],
        taints: [{ key: "dedicated", value: "x".repeat(64), effect: "NoSchedule" }],
      });
      await rejects(pool.machineSetNames, "taints[0].value", /at most 63 letters/);
    });

    it("a node label key, saying what a label key may be", async () => {
      const pool = new InfraNodePool("infra", { zones: ["us-east-2a"], nodeLabels: { "team/": "a" } });
      await rejects(
        pool.machineSetNames,
        'nodeLabels["team/"]',
        /not a valid label key: keys are an optional/,
      );
    });

    const replacements: Array<[string, Record<string, unknown>, string, RegExp]> = [
      [
        "an unknown strategy",
        { strategy: "recreate" },
        "machineReplacement.strategy",
        /use one of "rolling"/,
      ],
      ["a negative surge", { strategy: "rolling", maxSurge: -1 }, "machineReplacement.maxSurge", /0 or more/],
      [
        "neither surge nor unavailability",
        { strategy: "rolling", maxSurge: 0 },
        "machineReplacement.maxUnavailable",
        /0 replaces nothing/,
      ],
      [
        "a surge on an autoscaled pool",
        { strategy: "rolling", maxSurge: 1, autoscaled: true },
        "machineReplacement.maxSurge",
        /belong to the cluster autoscaler.*leave maxSurge out or 0/,
      ],
      [
        "no unavailability on an autoscaled pool",
        { strategy: "rolling", maxUnavailable: 0, autoscaled: true },
        "machineReplacement.maxUnavailable",
        /cannot surge, so 0 replaces nothing/,
      ],
      [
        "a count that is no percentage",
        { strategy: "rolling", maxSurge: "25" },
        "machineReplacement.maxSurge",
        /"25" is neither a whole number nor a percentage: .* such as "25%"/,
      ],
      [
        "more than 100% unavailable",
        { strategy: "rolling", maxUnavailable: "120%" },
        "machineReplacement.maxUnavailable",
        /120% is more than 100% of the MachineSet's replicas/,
      ],
      [
        "a misspelt field",
        { strategy: "rolling", maxSurges: 1 },
        "machineReplacement.maxSurges",
        /did you mean maxSurge\?/,
      ],
      [
        "a pool that does not wait",
        { strategy: "rolling", wait: false },
        "machineReplacement",
        /the pool's waiter replaces the machines, and wait is false/,
      ],
    ];
    for (const [what, { autoscaled, wait, ...machineReplacement }, path, allowed] of replacements) {
      it(`machineReplacement: ${what}, at ${path}`, async () => {
        const pool = new InfraNodePool("infra", {
          zones: ["us-east-2a"],
          machineReplacement: machineReplacement as never,
          ...(autoscaled ? { autoscaling: { minReplicas: 1, maxReplicas: 3 } } : {}),
          ...(wait === false ? { wait: false } : {}),
        });
        await rejects(pool.machineSetNames, path, allowed);
      });
    }

    it("a boot image owner other than mco or stack, at bootImageOwner", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a"],
        bootImageOwner: "cluster" as "mco",
      });
      await rejects(pool.machineSetNames, "bootImageOwner", /must be "mco" .* or "stack" .*, got "cluster"/);
    });

    it("an object name that is not a plain string, when adopting, at name", async () => {
      const mc = new MachineConfig("99-infra-chrony", {
        name: pulumi.output("99-infra-chrony"),
        role: "infra",
        files: [{ path: "/etc/chrony.conf", contents: { text: "pool x iburst\n" } }],
        adopt: true,
      });
      await rejects(mc.objectName, "name", /must be a plain string to adopt the object/);
    });

    it("an encrypted private key, saying it is encrypted", async () => {
      const pool = new WindowsNodePool("win", { zones: ["us-east-2a"], privateKey: ENCRYPTED_KEY });
      await rejects(pool.privateKeyFingerprint, "privateKey", /this key is encrypted/);
    });
  });

  describe("image ids of the shape each cloud needs", () => {
    const cases: Array<[string, () => { machineSetNames: pulumi.Output<string[]> }, string, RegExp]> = [
      [
        "an RHCOS image name for an infra pool on AWS",
        () => new InfraNodePool("infra", { zones: ["us-east-2a"], image: "rhcos-4.16-x86_64" }),
        "image",
        /not an AMI id: use the id .*not the image name/,
      ],
      [
        "a Windows AMI name for a Windows pool",
        () =>
          new WindowsNodePool("win", {
            zones: ["us-east-2a"],
            image: "Windows_Server-2022-English-Full-ContainersLatest-2024.01.10",
          }),
        "image",
        /not an AMI id/,
      ],
      [
        "an AMI id with a capital letter",
        () => new InfraNodePool("infra", { zones: ["us-east-2a"], image: "ami-0123456789ABCDEF0" }),
        "image",
        /17 hexadecimal digits/,
      ],
      [
        "an Azure image resource ID that is a name",
        () => new InfraNodePool("infra", { zones: ["1"], image: { resourceID: "rhcos-gen2" } }),
        "image.resourceID",
        /not an image resource ID: use "\/resourceGroups\//,
      ],
      [
        "an Azure marketplace image without a version",
        () =>
          new WindowsNodePool("win", {
            zones: ["1"],
            image: { publisher: "MicrosoftWindowsServer", offer: "WindowsServer", sku: "2022-datacenter" },
          }),
        "image.version",
        /non-empty string/,
      ],
      [
        "an Azure marketplace version that is not one",
        () =>
          new WindowsNodePool("win", {
            zones: ["1"],
            image: {
              publisher: "MicrosoftWindowsServer",
              offer: "WindowsServer",
              sku: "2022-datacenter",
              version: "newest",
            },
          }),
        "image.version",
        /"latest" or a version/,
      ],
    ];
    for (const [what, make, path, allowed] of cases) {
      it(`rejects ${what} at ${path}`, async () => {
        if (path !== "image" || what.includes("Azure")) await resetMocks(azureCloud());
        await rejects(make().machineSetNames, path, allowed);
      });
    }
  });

  describe("enumerations openshift/api defines, with the allowed values", () => {
    it("rejects a lower-case metadata service authentication at aws.metadataServiceOptions.authentication", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a"],
        aws: { metadataServiceOptions: { authentication: "required" as "Required" } },
      });
      await rejects(
        pool.machineSetNames,
        "aws.metadataServiceOptions.authentication",
        /"Optional", "Required"/,
      );
    });

    it("rejects a misspelt metadata service setting at aws.metadataServiceOptions.httpTokens", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a"],
        aws: { metadataServiceOptions: { httpTokens: "required" } as never },
      });
      await rejects(pool.machineSetNames, "aws.metadataServiceOptions.httpTokens", /use authentication/);
    });

    it("rejects an Azure OS disk type in lower case at azure.osDisk.osType", async () => {
      await resetMocks(azureCloud());
      const pool = new InfraNodePool("infra", {
        zones: ["1"],
        azure: { osDisk: { osType: "linux" as "Linux" } },
      });
      await rejects(pool.machineSetNames, "azure.osDisk.osType", /"Linux", "Windows"/);
    });

    it("rejects an Azure image type openshift/api does not define at image.type", async () => {
      await resetMocks(azureCloud());
      const pool = new InfraNodePool("infra", {
        zones: ["1"],
        image: { publisher: "p", offer: "o", sku: "s", version: "latest", type: "Marketplace" as never },
      });
      await rejects(pool.machineSetNames, "image.type", /"ID", "MarketplaceWithPlan", "MarketplaceNoPlan"/);
    });

    it("rejects a TLS profile type at tlsSecurityProfile.type", async () => {
      const kc = new KubeletConfig("kc", {
        pool: "infra",
        tlsSecurityProfile: { type: "modern" as "Modern" },
      });
      await rejects(kc.objectName, "tlsSecurityProfile.type", /"Old", "Intermediate", "Modern", "Custom"/);
    });

    it("rejects a kubelet tlsMinVersion at kubeletConfig.tlsMinVersion", async () => {
      const kc = new KubeletConfig("kc", { pool: "infra", kubeletConfig: { tlsMinVersion: "TLSv1.2" } });
      await rejects(kc.objectName, "kubeletConfig.tlsMinVersion", /"VersionTLS12"/);
    });
  });

  describe("numbers an operator would refuse, and settings that would vanish", () => {
    const pool = (over: Record<string, unknown>) =>
      new InfraNodePool("infra", { zones: ["us-east-2a"], ...over } as never);
    const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      [
        "negative router replicas",
        { router: { replicas: -1 } },
        "router.replicas",
        /from 1 to 2147483647, got -1/,
      ],
      ["no router replicas", { router: { replicas: 0 } }, "router.replicas", /from 1 to/],
      ["fractional router replicas", { router: { replicas: 1.5 } }, "router.replicas", /whole number/],
      ["router replicas as text", { router: { replicas: "3" } }, "router.replicas", /whole number/],
      [
        "monitoring config as YAML text",
        { monitoring: { config: "prometheusK8s:\n  retention: 15d\n" } },
        "monitoring.config",
        /plain object/,
      ],
      [
        "a monitoring component's settings as a string",
        { monitoring: { config: { prometheusK8s: "15d" } } },
        "monitoring.config.prometheusK8s",
        /object of prometheusK8s settings/,
      ],
      [
        "a monitoring nodeSelector the pool would overwrite",
        { monitoring: { config: { alertmanagerMain: { nodeSelector: { a: "b" } } } } },
        "monitoring.config.alertmanagerMain.nodeSelector",
        /set by the pool's placement/,
      ],
    ];
    for (const [what, over, path, allowed] of cases) {
      it(`rejects ${what} at ${path}`, async () => {
        await rejects(pool(over).placement, path, allowed);
      });
    }

    const shapes: Array<[string, Record<string, unknown>, string, RegExp]> = [
      ["router as a string", { router: "yes" }, "router", /true, false or \{ replicas \}/],
      ["a misspelt router setting", { router: { replica: 2 } }, "router.replica", /not a setting of router/],
      ["registry as an object", { registry: { replicas: 2 } }, "registry", /true or false/],
      [
        "a misspelt monitoring setting",
        { monitoring: { configs: {} } },
        "monitoring.configs",
        /\{ config \}/,
      ],
    ];
    for (const [what, over, path, allowed] of shapes) {
      it(`rejects ${what} at ${path}`, async () => {
        await rejects(pool(over).placement, path, allowed);
      });
    }

    const disk = (ebs: Record<string, unknown>) => ({ aws: { blockDevices: [{ ebs }] } });
    const machineCases: Array<[string, Record<string, unknown>, string, RegExp]> = [
      [
        "a root volume of 0 GiB",
        disk({ volumeSize: 0, volumeType: "gp3" }),
        "aws.blockDevices[0].ebs.volumeSize",
        /from 1 to 16384/,
      ],
      [
        "an st1 volume below its minimum",
        disk({ volumeSize: 100, volumeType: "st1" }),
        "aws.blockDevices[0].ebs.volumeSize",
        /from 125 to 16384/,
      ],
      [
        "an io1 volume without IOPS",
        disk({ volumeSize: 120, volumeType: "io1" }),
        "aws.blockDevices[0].ebs.iops",
        /required for io1/,
      ],
      [
        "gp3 throughput over its maximum",
        disk({ volumeSize: 120, volumeType: "gp3", throughputMib: 4000 }),
        "aws.blockDevices[0].ebs.throughputMib",
        /from 125 to 2000/,
      ],
      [
        "a misspelt EBS setting machine-api would ignore",
        disk({ volumeSize: 120, volumeType: "gp3", throughput: 500 }),
        "aws.blockDevices[0].ebs.throughput",
        /not an EBS setting: use .*throughputMib/,
      ],
    ];
    for (const [what, over, path, allowed] of machineCases) {
      it(`rejects ${what} at ${path}`, async () => {
        await rejects(pool(over).machineSetNames, path, allowed);
      });
    }

    it("rejects an Azure OS disk larger than Azure allows at azure.osDisk.diskSizeGB", async () => {
      await resetMocks(azureCloud());
      const infra = new InfraNodePool("infra", { zones: ["1"], azure: { osDisk: { diskSizeGB: 40000 } } });
      await rejects(infra.machineSetNames, "azure.osDisk.diskSizeGB", /from 1 to 32767/);
    });

    it("renders monitoring settings it does not place instead of dropping them", async () => {
      const infra = pool({
        monitoring: { config: { enableUserWorkload: true, prometheusK8s: { retention: "7d" } } },
      });
      await valueOf(infra.machineSetNames);
      await settle();
      const [patch] = created("kubernetes:core/v1:ConfigMapPatch");
      const config = parse((patch.inputs.data as Record<string, string>)["config.yaml"]);
      assert.equal(config.enableUserWorkload, true);
      assert.equal(config.prometheusK8s.retention, "7d");
    });

    it("router replicas, while the taints are unknown", async () => {
      await resetMocks(undefined, { preview: true });
      await rejects(
        pool({ taints: unknown(), router: { replicas: -1 } }).placement,
        "router.replicas",
        /from 1/,
      );
    });
  });

  describe("a kubeconfig that is not one, at preview", () => {
    const KUBECONFIG_WITHOUT_CONTEXT =
      "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://api:6443\n";
    const cases: Array<[string, string, RegExp]> = [
      [
        "an absolute path",
        "/home/me/.kube/config",
        /looks like a file path \(\/home\/me\/.kube\/config\).*readFileSync/,
      ],
      ["a path under home", "~/clusters/prod/kubeconfig", /looks like a file path/],
      ["a relative YAML file name", "auth/kubeconfig.yaml", /looks like a file path/],
      [
        "a list of files, as $KUBECONFIG holds them",
        "/home/me/.kube/config:/home/me/clusters/b.yaml",
        /is a list of files \(\/home\/me\/.kube\/config:\/home\/me\/clusters\/b.yaml\), as \$KUBECONFIG holds them.*kubectl config view --flatten/,
      ],
      ["a token", "sha256~abcdefghijklmnopqrstuvwxyz0123456789", /is not a kubeconfig: expected the content/],
      ["YAML without contexts", KUBECONFIG_WITHOUT_CONTEXT, /is not a kubeconfig/],
      [
        "a current-context no context has",
        `${KUBECONFIG_WITHOUT_CONTEXT}contexts:\n- name: admin\n  context:\n    cluster: c\ncurrent-context: prod\n`,
        /current-context "prod", which none of its contexts is \("admin"\)/,
      ],
      ["an empty string", "", /is empty/],
    ];
    for (const [what, kubeconfig, allowed] of cases) {
      it(`rejects ${what} on a MachineConfig`, async () => {
        const mc = new MachineConfig("99-x", { role: "infra", kernelArguments: ["a=1"], kubeconfig });
        await rejects(mc.objectName, "kubeconfig", allowed);
      });
    }

    it("rejects a path on an infra pool before anything is read", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a"],
        kubeconfig: pulumi.secret("./kubeconfig"),
      });
      await rejects(pool.machineSetNames, "kubeconfig", /looks like a file path/);
      assert.ok(!mocks.resources.some((r) => r.id), "nothing was read from the cluster");
    });

    it("never quotes a kubeconfig that is not a path", async () => {
      const secret = "token: very-secret-value";
      const problems = await problemsOf(new MachineConfigPool("gpu", { kubeconfig: secret }).objectName);
      assert.ok(problems.every((p) => !p.reason.includes("very-secret-value")));
    });
  });

  describe("inputs checked before any cluster read", () => {
    it("a zone outside the cluster's region, whose worker MachineSet is never read", async () => {
      const pool = new InfraNodePool("infra", { zones: ["eu-west-1a", "us-east-2b"] });
      await rejects(pool.machineSetNames, "zones[0]", /not in region "us-east-2"/);
      // The pool reads the worker MachineSet of its first zone in the region, for its other checks.
      assert.deepEqual(
        mocks.resources.filter((r) => r.type.endsWith(":MachineSet") && r.id).map((r) => r.id),
        ["openshift-machine-api/cluster-zbwlg-cbgq7-worker-us-east-2b"],
      );
    });

    it("an Azure zone that is not a number, before the worker MachineSet is read", async () => {
      await resetMocks(azureCloud());
      const pool = new InfraNodePool("infra", { zones: ["centralus-1"] });
      await rejects(pool.machineSetNames, "zones[0]", /"centralus-1" does not exist: use "1", "2" or "3"/);
      assert.ok(
        !mocks.resources.some((r) => r.type.endsWith(":MachineSet") && r.id),
        "no MachineSet was read",
      );
    });
  });

  // Zones and sizes the cloud lacks and combinations machine-api's webhook refuses (#36): each at the
  // property the user wrote, with the pool's other problems, from the tables or (cloudLookups) the cloud.
  describe("zones, sizes and combinations the cloud or the webhook refuses", () => {
    it("an Azure pool in centralus: zone 4, a misspelt size, a confidential disk without secure boot", async () => {
      await resetMocks(azureCloud());
      const pool = new InfraNodePool("infra", {
        zones: ["1", "2", "4"],
        azure: {
          vmSize: "Standard_E16sv5",
          security: {
            type: "ConfidentialVM",
            confidentialDiskEncryption: "DiskWithVMGuestState",
            secureBoot: "Disabled",
          },
        },
      });
      const problems = await problemsOf(pool.machineSetNames);
      assert.deepEqual(
        problems.map((p) => p.propertyPath),
        ["zones[2]", "azure.vmSize", "azure.security.secureBoot"],
      );
      assert.match(problems[1].reason, /did you mean "Standard_E16s_v5"\?/);
    });

    it("an AWS pool in us-east-2: a zone the region lacks and a type without its dot", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a", "us-east-2d"],
        aws: { instanceType: "m6i2xlarge" },
      });
      const problems = await problemsOf(pool.machineSetNames);
      assert.deepEqual(
        problems.map((p) => p.propertyPath),
        ["zones[1]", "aws.instanceType"],
      );
      assert.match(problems[0].reason, /use "us-east-2a", "us-east-2b", "us-east-2c"/);
      assert.match(problems[1].reason, /did you mean "m6i.2xlarge"\?/);
    });

    it("with cloudLookups, what EC2 lists: a zone it lacks, a type a zone does not offer", async () => {
      const lacking = new InfraNodePool("infra", { cloudLookups: true, zones: ["us-east-2a", "us-east-2d"] });
      await rejects(
        lacking.machineSetNames,
        "zones[1]",
        /not a zone of AWS region us-east-2: its zones are us-east-2a, us-east-2b, us-east-2c/,
      );
      await resetMocks();
      const gpu = new InfraNodePool("infra", {
        cloudLookups: true,
        zones: ["us-east-2a", "us-east-2c"],
        aws: { instanceType: "g5.xlarge" },
      });
      await rejects(
        gpu.machineSetNames,
        "zones[1]",
        /g5.xlarge is not offered in us-east-2c: choose among us-east-2a, us-east-2b/,
      );
      await resetMocks();
      const absent = new InfraNodePool("infra", {
        cloudLookups: true,
        zones: ["us-east-2a"],
        aws: { instanceType: "m6i.3xlarge" },
      });
      await rejects(
        absent.machineSetNames,
        "aws.instanceType",
        /"m6i.3xlarge" is not offered in AWS region us-east-2/,
      );
    });

    it("with cloudLookups, what Azure's VM SKUs say: a size a zone lacks, capabilities a size lacks, zones where there are none", async () => {
      await resetMocks(azureCloud());
      const pool = new InfraNodePool("infra", {
        cloudLookups: true,
        zones: ["1", "3"],
        azure: { vmSize: "Standard_NC4as_T4_v3", security: { type: "ConfidentialVM" } },
      });
      const problems = await problemsOf(pool.machineSetNames);
      assert.deepEqual(
        problems.map((p) => [p.propertyPath, p.reason]),
        [
          [
            "zones[1]",
            'VM size Standard_NC4as_T4_v3 is not offered in zone 3 of centralus: choose among zones 1, 2, or another size ("az vm list-skus --location centralus --size Standard_NC4as_T4_v3")',
          ],
          [
            "azure.security.type",
            "Standard_NC4as_T4_v3 is not a confidential VM size (it has no ConfidentialComputingType capability: use a DCasv5, ECasv5 or other confidential size)",
          ],
        ],
      );
      await resetMocks(azureCloud());
      const slow = new InfraNodePool("infra", {
        cloudLookups: true,
        zones: ["1"],
        azure: { vmSize: "Standard_B2s", acceleratedNetworking: true },
      });
      await rejects(
        slow.machineSetNames,
        "azure.acceleratedNetworking",
        /Standard_B2s does not support accelerated networking/,
      );
      await resetMocks(azureCloud("westcentralus"));
      const zoned = new InfraNodePool("infra", { cloudLookups: true, zones: ["1"] });
      await rejects(
        zoned.machineSetNames,
        "zones[0]",
        /westcentralus has no availability zones: use zones: \[\]/,
      );
    });
  });

  it("reports every problem of a MachineConfig at once, each at its path", async () => {
    const mc = new MachineConfig("rendered-x", {
      role: "Infra",
      files: [{ path: "/usr/x", contents: { text: "" } }],
      kernelType: "rt" as "realtime",
      extensions: ["usbguard", "usbguard"],
    });
    assert.deepEqual(
      (await problemsOf(mc.objectName)).map((p) => p.propertyPath),
      ["name", "role", "files[0].path", "kernelType", "extensions[1]"],
    );
  });

  describe("every problem a builder finds, reported at once at its path", () => {
    const subscriptionCases: Array<[string, OperatorSubscriptionArgs, string[]]> = [
      [
        "a Subscription's channel, approval, catalog and starting CSV",
        {
          packageName: "cert-manager",
          channel: "stable channel",
          installPlanApproval: "Always" as "Manual",
          source: "Red Hat",
          sourceNamespace: "openshift_marketplace",
          startingCSV: "other-operator.v1.0.0",
        },
        ["channel", "installPlanApproval", "source", "sourceNamespace", "startingCSV"],
      ],
      [
        "a Subscription's namespace labels with its channel",
        { packageName: "cert-manager", channel: "", namespaceLabels: { "a b": "x", team: "not ok!" } },
        ['namespaceLabels["a b"]', 'namespaceLabels["team"]', "channel"],
      ],
      [
        "a Subscription's package name, namespace and target namespaces with its channel",
        {
          packageName: "Cert Manager",
          namespace: "cert.manager",
          targetNamespaces: "SingleNamespace" as "OwnNamespace",
          channel: "stable channel",
        },
        ["packageName", "namespace", "targetNamespaces", "channel"],
      ],
    ];
    for (const [what, args, paths] of subscriptionCases) {
      it(what, async () => {
        const operator = new OperatorSubscription("op", args);
        assert.deepEqual(await pathsOf(operator.subscriptionName), paths);
        assert.deepEqual(created(/^kubernetes:|dynamic/), [], "nothing is declared from bad input");
      });
    }

    it("a ClusterExtension's package name, service account and version range", async () => {
      const extension = new ClusterExtension("ext", {
        packageName: "Cert Manager",
        serviceAccount: "installer account",
        version: ">= one",
      });
      // Only what the program gave: the namespace and the object's name default to the package name.
      assert.deepEqual(await pathsOf(extension.installedBundle), [
        "packageName",
        "serviceAccount",
        "version",
      ]);
      assert.deepEqual(created(/^kubernetes:|dynamic/), [], "nothing is declared from bad input");
    });

    it("a ClusterExtension's default namespace when the package name makes no namespace, saying to give one", async () => {
      const extension = new ClusterExtension("ext", { packageName: "cert-manager.io" });
      const problems = await problemsOf(extension.installedBundle);
      assert.deepEqual(
        problems.map((p) => [p.propertyPath, p.reason.replace(/: .*; /, ": ...; ")]),
        [["namespace", "not given, and its default (the package name) is not valid: ...; give one"]],
      );
    });

    it("a ClusterAutoscaler's limits, scale-down, expanders and priority, at spec.*", async () => {
      const autoscaler = new ClusterAutoscaler("autoscaler", {
        spec: {
          resourceLimits: { maxNodesTotal: -1, cores: { min: 8, max: 4 } },
          scaleDown: { enabled: "yes" as unknown as boolean, unneededTime: "10 minutes" },
          expanders: ["Cheapest" as "Random"],
          podPriorityThreshold: 1.5,
        },
      });
      const problems = await problemsOf(autoscaler.clusterAutoscalerName);
      assert.deepEqual(
        problems.map((p) => p.propertyPath),
        [
          "spec.resourceLimits.maxNodesTotal",
          "spec.resourceLimits.cores.min",
          "spec.scaleDown.enabled",
          "spec.scaleDown.unneededTime",
          "spec.podPriorityThreshold",
          "spec.expanders[0]",
        ],
      );
      assert.match(problems[5].reason, /"LeastWaste", "Priority", "Random"/);
      assert.deepEqual(created(/^kubernetes:|dynamic/), [], "nothing is declared from bad input");
    });

    it("a ClusterAutoscaler's fields it does not know, instead of dropping them", async () => {
      const autoscaler = new ClusterAutoscaler("autoscaler", {
        spec: {
          scaledown: { enabled: true },
          resourceLimits: { maxNodes: 10 },
          scaleDown: { enabled: true, unneededtime: "5m" },
        } as never,
      });
      const problems = await problemsOf(autoscaler.clusterAutoscalerName);
      assert.deepEqual(
        problems.map((p) => [p.propertyPath, p.reason]),
        [
          ["spec.scaledown", "is not a ClusterAutoscaler field: did you mean scaleDown?"],
          [
            "spec.resourceLimits.maxNodes",
            "is not a resourceLimits field: use maxNodesTotal, cores, memory, gpus",
          ],
          ["spec.scaleDown.unneededtime", "is not a scaleDown field: did you mean unneededTime?"],
        ],
      );
      assert.deepEqual(created(/^kubernetes:|dynamic/), [], "nothing is declared from bad input");
    });

    it("a ClusterAutoscaler spec that is not an object, at spec", async () => {
      const autoscaler = new ClusterAutoscaler("autoscaler", { spec: "LeastWaste" as never });
      await rejects(
        autoscaler.clusterAutoscalerName,
        "spec",
        /must be an object of ClusterAutoscaler fields/,
      );
      assert.deepEqual(created(/^kubernetes:|dynamic/), [], "nothing is declared from bad input");
    });

    const windowsCases: Array<
      [string, WindowsNodePoolArgs, (pool: WindowsNodePool) => pulumi.Output<unknown>, string[]]
    > = [
      [
        "the WMCO Subscription of a Windows pool, at operator.*",
        {
          operator: {
            channel: "stable channel",
            installPlanApproval: "Always" as "Manual",
            source: "Red Hat",
          },
        },
        (pool) => pool.operator!.subscriptionName,
        ["operator.channel", "operator.installPlanApproval", "operator.source"],
      ],
      [
        "the WMCO namespace and target namespaces of a Windows pool, at operator.*",
        { operator: { namespace: "WMCO", targetNamespaces: "All" as "AllNamespaces" } },
        (pool) => pool.machineSetNames,
        ["operator.namespace", "operator.targetNamespaces"],
      ],
      [
        "a Windows pool's RuntimeClass name and handler",
        { runtimeClass: { name: "Windows 2022", handler: "hcs" as "docker" } },
        (pool) => pool.runtimeClassName,
        ["runtimeClass.name", "runtimeClass.handler"],
      ],
    ];
    for (const [what, args, output, paths] of windowsCases) {
      it(what, async () => {
        const pool = new WindowsNodePool("win", { zones: ["us-east-2a"], ...args });
        assert.deepEqual(await pathsOf(output(pool)), paths);
        if (args.operator && args.operator.namespace) {
          assert.equal(pool.operator, undefined, "no operator is declared under names that are bad");
        }
      });
    }

    it("an infra pool's plain and Input mistakes together, in one error every output fails with", async () => {
      const pool = new InfraNodePool("infra", {
        role: "worker",
        zones: ["us-east-2a", "us-east-2a"],
        replicas: pulumi.output(-1),
        maxUnavailable: 0,
        router: { replicas: -1 },
        registry: "yes" as unknown as boolean,
      });
      assert.deepEqual(await pathsOf(pool.machineSetNames), [
        "role",
        "registry",
        "router.replicas",
        "maxUnavailable",
        "zones[1]",
        "replicas",
      ]);
      const errors = await Promise.all(
        [pool.machineSetNames, pool.placement].map((o) =>
          valueOf(o as pulumi.Output<unknown>).then(
            () => assert.fail("expected a failure"),
            (e: unknown) => e,
          ),
        ),
      );
      assert.ok(
        errors.every((e) => e === errors[0]),
        "the user reads it once",
      );
      assert.match((errors[0] as Error).message, /^InfraNodePool "infra": 6 inputs are invalid$/);
      assert.deepEqual(created(/^kubernetes:|dynamic/), [], "nothing is declared from bad input");
    });

    it("a Windows pool's plain and Input mistakes together, the operator's among them", async () => {
      const pool = new WindowsNodePool("win", {
        zones: ["us-east-2a"],
        windowsServer: "2017",
        replicas: -2,
        privateKey: pulumi.secret(ENCRYPTED_KEY),
        operator: { channel: pulumi.output(""), targetNamespaces: "All" as "AllNamespaces" },
        runtimeClass: { name: "Windows 2017" },
      });
      assert.deepEqual(await pathsOf(pool.machineSetNames), [
        "windowsServer",
        "operator.targetNamespaces",
        "runtimeClass.name",
        "operator.channel",
        "privateKey",
        "replicas",
      ]);
      assert.deepEqual(created(/^kubernetes:|dynamic/), [], "nothing is declared from bad input");
    });

    it("a ContainerRuntimeConfig's name, pool, unsupported key and every bad setting", async () => {
      const crio = new ContainerRuntimeConfig("c", {
        name: "CRIO",
        pool: "Infra Pool",
        containerRuntimeConfig: {
          maxPids: 100,
          pidsLimit: 5,
          logLevel: "verbose" as "info",
          logSizeMax: "1Ki",
          overlaySize: "-1G",
          defaultRuntime: "kata" as "crun",
        } as Record<string, unknown>,
      });
      assert.deepEqual(await pathsOf(crio.objectName), [
        "name",
        "pool",
        "containerRuntimeConfig.maxPids",
        "containerRuntimeConfig.pidsLimit",
        "containerRuntimeConfig.logLevel",
        "containerRuntimeConfig.logSizeMax",
        "containerRuntimeConfig.overlaySize",
        "containerRuntimeConfig.defaultRuntime",
      ]);
    });

    it("a MachineConfigPool's name, maxUnavailable, paused, selectableByRole and labels", async () => {
      const pool = new MachineConfigPool("worker", {
        maxUnavailable: 0,
        paused: "yes" as unknown as boolean,
        selectableByRole: 1 as unknown as boolean,
        labels: { "a b": "x" },
      });
      assert.deepEqual(await pathsOf(pool.objectName), [
        "name",
        "selectableByRole",
        "maxUnavailable",
        "paused",
        'labels["a b"]',
      ]);
    });

    it("a KubeletConfig's wait timeout with its settings", async () => {
      const kc = new KubeletConfig("kc", {
        pool: "infra",
        // @ts-expect-error: a misspelt field, refused by the type and at preview.
        kubeletConfig: { maxPod: 1 },
        waitTimeouts: { update: "an hour" },
      });
      assert.deepEqual(await pathsOf(kc.objectName), ["waitTimeouts.update", "kubeletConfig.maxPod"]);
    });

    it("every field of every taint of an infra pool", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a"],
        taints: [
          { key: "dedicated to", effect: "NoScheduled" as "NoSchedule" },
          { key: "ok", value: "x".repeat(64), effect: "NoSchedule" },
        ],
      });
      assert.deepEqual(await pathsOf(pool.placement), [
        "taints[0].key",
        "taints[0].effect",
        "taints[1].value",
      ]);
    });

    it("every monitoring component an infra pool cannot place", async () => {
      const pool = new InfraNodePool("infra", {
        zones: ["us-east-2a"],
        monitoring: {
          config: {
            prometheusK8s: "15d",
            alertmanagerMain: { nodeSelector: { a: "b" }, tolerations: [] },
            thanosQuerier: { tolerations: [] },
          },
        },
      });
      assert.deepEqual(await pathsOf(pool.placement), [
        "monitoring.config.alertmanagerMain.nodeSelector",
        "monitoring.config.alertmanagerMain.tolerations",
        "monitoring.config.prometheusK8s",
        "monitoring.config.thanosQuerier.tolerations",
      ]);
    });
  });

  describe("inputs checked as soon as they are known, while others are unknown", () => {
    beforeEach(() => resetMocks(undefined, { preview: true }));

    it("a MachineConfig path outside /etc and /var, with the file text unknown", async () => {
      const mc = new MachineConfig("99-x", {
        role: "infra",
        files: [
          { path: "/etc/a", contents: { text: unknown() } },
          { path: "/usr/local/bin/b", contents: { text: unknown() } },
        ],
      });
      await rejects(mc.objectName, "files[1].path", /under \/etc and \/var/);
    });

    it("a MachineConfig path outside /etc and /var, with the role unknown", async () => {
      const mc = new MachineConfig("99-x", {
        role: unknown(),
        files: [{ path: "/opt/x", contents: { text: "x" } }],
      });
      await rejects(mc.objectName, "files[0].path", /under \/etc and \/var/);
    });

    it("a misspelt kubelet field, with the pool unknown", async () => {
      // @ts-expect-error: a misspelt field, refused by the type and at preview.
      const kc = new KubeletConfig("kc", { pool: unknown(), kubeletConfig: { maxPod: 1 } });
      await rejects(kc.objectName, "kubeletConfig.maxPod", /did you mean maxPods/);
    });

    it("nothing about a kubelet reservation that is unknown, but the misspelt field beside it", async () => {
      const kc = new KubeletConfig("kc", {
        pool: "infra",
        // @ts-expect-error: a misspelt field, refused by the type and at preview.
        kubeletConfig: { systemReserved: { memory: unknown() }, maxPod: 1 },
      });
      await rejects(kc.objectName, "kubeletConfig.maxPod", /did you mean maxPods/);
    });

    it("a pool's maxUnavailable of 0, with paused unknown", async () => {
      const pool = new MachineConfigPool("gpu", { maxUnavailable: 0, paused: unknown() });
      await rejects(pool.objectName, "maxUnavailable", /1 or more/);
    });

    it("a CRI-O setting, with the pool unknown", async () => {
      const crio = new ContainerRuntimeConfig("c", {
        pool: unknown(),
        containerRuntimeConfig: { pidsLimit: 5 },
      });
      await rejects(crio.objectName, "containerRuntimeConfig.pidsLimit", /at least 20/);
    });

    it("the WMCO Subscription of a Windows pool at operator.*, with its channel unknown", async () => {
      const pool = new WindowsNodePool("win", {
        zones: ["us-east-2a"],
        operator: { channel: unknown(), installPlanApproval: "Always" as "Manual", source: "Red Hat" },
      });
      assert.deepEqual(await pathsOf(pool.operator!.subscriptionName), [
        "operator.installPlanApproval",
        "operator.source",
      ]);
    });

    it("a Subscription's approval, with its namespace labels unknown", async () => {
      const operator = new OperatorSubscription("op", {
        packageName: "cert-manager",
        channel: "stable",
        namespaceLabels: unknown(),
        installPlanApproval: "Always" as "Manual",
      });
      await rejects(operator.subscriptionName, "installPlanApproval", /"Automatic", "Manual"/);
    });

    const clusterUnknown = () => ({
      infrastructureId: unknown(),
      platform: "aws" as const,
      region: unknown(),
      image: unknown(),
    });

    it("duplicate zones of an infra pool, with the cluster unknown", async () => {
      const pool = new InfraNodePool("infra", { ...clusterUnknown(), zones: ["us-east-2a", "us-east-2a"] });
      await rejects(pool.machineSetNames, "zones[1]", /listed twice/);
    });

    it("negative replicas of an infra pool, with the cluster unknown", async () => {
      const pool = new InfraNodePool("infra", { ...clusterUnknown(), zones: ["us-east-2a"], replicas: -1 });
      await rejects(pool.machineSetNames, "replicas", /whole number of 0 or more/);
    });

    it("an infra pool's maxUnavailable of 0, with paused and the cluster unknown", async () => {
      const pool = new InfraNodePool("infra", {
        ...clusterUnknown(),
        zones: ["us-east-2a"],
        maxUnavailable: 0,
        paused: unknown(),
      });
      await rejects(pool.machineSetNames, "maxUnavailable", /1 or more/);
    });

    it("duplicate zones and negative replicas of a Windows pool together, with the cluster unknown", async () => {
      const pool = new WindowsNodePool("win", {
        ...clusterUnknown(),
        zones: ["us-east-2a", "us-east-2a"],
        replicas: -3,
      });
      assert.deepEqual(
        (await problemsOf(pool.machineSetNames)).map((p) => p.propertyPath),
        ["zones[1]", "replicas"],
      );
    });

    it("a bad node label, with the zones unknown", async () => {
      const pool = new InfraNodePool("infra", { zones: unknown(), nodeLabels: { "a b": "" } });
      await rejects(pool.machineSetNames, 'nodeLabels["a b"]', /not a valid label key/);
    });

    it("a ClusterAutoscaler's expander and misspelt field, with its scale-down settings unknown", async () => {
      const autoscaler = new ClusterAutoscaler("autoscaler", {
        spec: {
          scaleDown: unknown(),
          expanders: ["Cheapest" as "Random"],
          balanceSimilarNodeGroup: true,
        } as never,
      });
      assert.deepEqual(await pathsOf(autoscaler.clusterAutoscalerName), [
        "spec.balanceSimilarNodeGroup",
        "spec.expanders[0]",
      ]);
    });

    it("a ClusterAutoscaler with unknown parts and nothing wrong is declared", async () => {
      new ClusterAutoscaler("autoscaler", {
        spec: { scaleDown: { enabled: true, unneededTime: unknown() }, expanders: ["LeastWaste"] },
      });
      await settle();
      assert.ok(mocks.resources.some((r) => r.type.endsWith(":ClusterAutoscaler")));
    });

    it("good input with unknown parts passes and declares the object", async () => {
      new MachineConfig("99-ok", {
        role: unknown(),
        files: [{ path: "/etc/ok", contents: { text: unknown() } }],
      });
      await settle();
      assert.ok(mocks.resources.some((r) => r.name === "99-ok" && r.type.endsWith(":MachineConfig")));
    });
  });
});
