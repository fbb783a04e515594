import * as assert from "node:assert/strict";
import { InputError, InputErrors } from "../errors";
import { kubeletConfig } from "./kubeletconfig";

const build = (config: Record<string, unknown>, over: object = {}) =>
  kubeletConfig({ name: "kc", pool: "infra", kubeletConfig: config, ...over });

/** Every error the builder reports, as `path: reason`. */
function problems(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    return InputErrors.of(e).map((error) => error.message);
  }
  assert.fail("expected the input to be rejected");
}

describe("KubeletConfiguration fields, as the MCO and the kubelet check them", () => {
  it("accepts the settings OpenShift documents, unchanged", () => {
    const config = {
      maxPods: 250,
      podsPerCore: 10,
      podPidsLimit: -1,
      systemReserved: { cpu: "500m", memory: "1Gi", "ephemeral-storage": "1Gi" },
      kubeReserved: { memory: "512Mi", pid: "1000" },
      evictionHard: { "memory.available": "500Mi", "nodefs.available": "10%", "imagefs.available": "15%" },
      evictionSoft: { "memory.available": "1Gi", "nodefs.inodesFree": "5%" },
      evictionSoftGracePeriod: { "memory.available": "1m30s", "nodefs.inodesFree": "2m" },
      evictionPressureTransitionPeriod: "0s",
      imageGCHighThresholdPercent: 80,
      imageGCLowThresholdPercent: 75,
      imageMinimumGCAge: "5m",
      containerLogMaxSize: "50Mi",
      containerLogMaxFiles: 5,
      cpuManagerPolicy: "static",
      cpuManagerReconcilePeriod: "5s",
      topologyManagerPolicy: "single-numa-node",
      reservedSystemCPUs: "0-1",
      serializeImagePulls: false,
      maxParallelImagePulls: 5,
      shutdownGracePeriod: "10m",
      registerWithTaints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }],
      authentication: { anonymous: { enabled: false } },
      // Fields of the newest KubeletConfiguration (k8s.io/kubelet v0.36, as the MCO vendors it).
      tlsCurvePreferences: [29, 23],
      memoryReservationPolicy: "TieredReservation",
    };
    assert.deepEqual(build(config).spec.kubeletConfig, config);
  });

  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ["a misspelt maxPods", { maxPod: 250 }, "kubeletConfig.maxPod", /did you mean maxPods\?/],
    ["a lower-cased field", { maxpods: 250 }, "kubeletConfig.maxpods", /did you mean maxPods\?/],
    [
      "a misspelt eviction field",
      { evictonHard: { "memory.available": "1Gi" } },
      "kubeletConfig.evictonHard",
      /did you mean evictionHard\?/,
    ],
    [
      "a made-up field",
      { turboMode: true },
      "kubeletConfig.turboMode",
      /not a KubeletConfiguration field.*maxPods/,
    ],
    [
      "a nested unknown field",
      { authentication: { anonymus: {} } },
      "kubeletConfig.authentication.anonymus",
      /did you mean anonymous\?/,
    ],
    [
      "a quantity with a space",
      { systemReserved: { memory: "1 GB" } },
      'kubeletConfig.systemReserved["memory"]',
      /not a quantity/,
    ],
    [
      "a negative reservation",
      { kubeReserved: { cpu: "-1" } },
      'kubeletConfig.kubeReserved["cpu"]',
      /must not be negative/,
    ],
    [
      "an unknown resource",
      { systemReserved: { gpu: "1" } },
      'kubeletConfig.systemReserved["gpu"]',
      /"cpu", "memory", "ephemeral-storage", "pid"/,
    ],
    [
      "an eviction threshold in words",
      { evictionHard: { "memory.available": "lots" } },
      'kubeletConfig.evictionHard["memory.available"]',
      /neither a quantity .* nor a percentage/,
    ],
    [
      "an eviction percentage over 100",
      { evictionHard: { "nodefs.available": "110%" } },
      'kubeletConfig.evictionHard["nodefs.available"]',
      /from "0%" to "100%"/,
    ],
    [
      "an unknown eviction signal",
      { evictionHard: { "memory.free": "1Gi" } },
      'kubeletConfig.evictionHard["memory.free"]',
      /"memory.available"/,
    ],
    [
      "evictionSoft without its grace period",
      { evictionSoft: { "memory.available": "1Gi" } },
      "kubeletConfig.evictionSoftGracePeriod",
      /grace period for each evictionSoft signal.*memory.available/,
    ],
    [
      "a grace period that is no duration",
      { evictionSoft: { "memory.available": "1Gi" }, evictionSoftGracePeriod: { "memory.available": "90" } },
      'kubeletConfig.evictionSoftGracePeriod["memory.available"]',
      /not a duration.*"90s"/,
    ],
    [
      "imageGCHighThresholdPercent over 100",
      { imageGCHighThresholdPercent: 120 },
      "kubeletConfig.imageGCHighThresholdPercent",
      /from 0 to 100/,
    ],
    [
      "imageGC low above high",
      { imageGCHighThresholdPercent: 70, imageGCLowThresholdPercent: 80 },
      "kubeletConfig.imageGCLowThresholdPercent",
      /less than imageGCHighThresholdPercent \(70\)/,
    ],
    [
      "a duration as a number",
      { nodeStatusUpdateFrequency: 10 },
      "kubeletConfig.nodeStatusUpdateFrequency",
      /not a duration/,
    ],
    [
      "a cpuManagerPolicy in capitals",
      { cpuManagerPolicy: "Static" },
      "kubeletConfig.cpuManagerPolicy",
      /"none", "static"/,
    ],
    [
      "a topologyManagerScope",
      { topologyManagerScope: "node" },
      "kubeletConfig.topologyManagerScope",
      /"container", "pod"/,
    ],
    ["a port out of range", { port: 70000 }, "kubeletConfig.port", /from 1 to 65535/],
    [
      "a string where a number goes",
      { maxPods: "250" },
      "kubeletConfig.maxPods",
      /whole number of 1 or more, got "250"/,
    ],
    [
      "parallel pulls with serialized pulls",
      { maxParallelImagePulls: 4 },
      "kubeletConfig.maxParallelImagePulls",
      /serializeImagePulls: false/,
    ],
    [
      "staticPodPath",
      { staticPodPath: "/etc/kubernetes/manifests" },
      "kubeletConfig.staticPodPath",
      /may not be set: the MCO manages/,
    ],
    ["featureGates", { featureGates: { Foo: true } }, "kubeletConfig.featureGates", /may not be set/],
    ["clusterDNS", { clusterDNS: ["10.0.0.10"] }, "kubeletConfig.clusterDNS", /may not be set/],
    [
      "a taint without an effect",
      { registerWithTaints: [{ key: "a", effect: "Never" }] },
      "kubeletConfig.registerWithTaints[0].effect",
      /"NoSchedule", "PreferNoSchedule", "NoExecute"/,
    ],
    [
      "qosReserved as a quantity",
      { qosReserved: { memory: "1Gi" } },
      'kubeletConfig.qosReserved["memory"]',
      /percentage/,
    ],
  ];
  for (const [what, config, path, allowed] of cases) {
    it(`rejects ${what} at ${path}`, () => {
      assert.throws(
        () => build(config),
        (e: unknown) => {
          assert.ok(e instanceof InputError, `expected one InputError, got ${String(e)}`);
          assert.equal(e.propertyPath, path);
          assert.match(e.reason, allowed);
          return true;
        },
      );
    });
  }

  it("accepts logLevel 1 to 10 only, as the MCO does", () => {
    assert.equal(kubeletConfig({ name: "kc", pool: "infra", logLevel: 4 }).spec.logLevel, 4);
    assert.deepEqual(
      problems(() => kubeletConfig({ name: "kc", pool: "infra", logLevel: 0 })),
      ["logLevel: must be a whole number from 1 to 10, got 0"],
    );
  });

  it("reports every problem of one KubeletConfig at once, each at its own path", () => {
    assert.deepEqual(
      problems(() =>
        kubeletConfig({
          name: "Bad_Name",
          pool: "infra",
          logLevel: 20,
          kubeletConfig: {
            // @ts-expect-error: a misspelt field, refused by the type and at preview.
            maxPod: 1,
            systemReserved: { memory: "1 GB" },
            evictionSoft: { "memory.available": "5%" },
          },
        }),
      ).map((m) => m.slice(0, m.indexOf(":"))),
      [
        "name",
        "kubeletConfig.maxPod",
        'kubeletConfig.systemReserved["memory"]',
        "kubeletConfig.evictionSoftGracePeriod",
        "logLevel",
      ],
    );
  });
});
