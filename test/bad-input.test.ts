import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import {
  ContainerRuntimeConfig,
  KubeletConfig,
  MachineConfig,
  MachineConfigPool,
} from "../components/machine-configuration/machine-configuration";
import { mocks, resetMocks, settle, valueOf } from "./mocks";

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
  // Let every registration that carries the error serialize it before its message is read.
  await settle();
  const problems: Problem[] = pulumi.InputPropertiesError.isInstance(error)
    ? error.errors
    : pulumi.InputPropertyError.isInstance(error)
      ? [{ propertyPath: error.propertyPath, reason: error.reason }]
      : assert.fail(`not an input error: ${String(error)}`);
  const message = (error as Error).message;
  assert.doesNotMatch(message, /error serializing/, message);
  assert.doesNotMatch(String((error as Error).stack), /\n\s+at /, "no stack frames");
  for (const p of problems) {
    assert.ok(p.reason.startsWith(`${p.propertyPath}: `), p.reason);
    assert.ok(message.includes(p.reason), `the message lists ${p.reason}`);
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

describe("bad input, stopped at preview", () => {
  beforeEach(() => resetMocks());

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
      const kc = new KubeletConfig("kc", { pool: unknown(), kubeletConfig: { maxPod: 1 } });
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
