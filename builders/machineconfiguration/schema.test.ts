import * as assert from "node:assert/strict";
import { assertMatchesCrd, crdSchemas } from "../../test/crd-schemas";
import { containerRuntimeConfig, kubeletConfig, machineConfig, machineConfigPool } from ".";
import { CRDS, requireReference } from "../../test/reference";

/** Every builder at its smallest and with every optional field, so each emitted field meets the schema. */
const MANIFESTS = {
  "minimal pool": () => machineConfigPool({ name: "infra" }),
  "full pool": () =>
    machineConfigPool({
      name: "infra",
      maxUnavailable: "34%",
      paused: true,
      labels: { "example.com/team": "ops" },
    }),
  "pool with an integer maxUnavailable": () => machineConfigPool({ name: "infra", maxUnavailable: 2 }),
  "minimal MachineConfig": () => machineConfig({ name: "99-infra-empty", role: "infra" }),
  "full MachineConfig": () =>
    machineConfig({
      name: "99-infra-all",
      role: "infra",
      ignitionVersion: "3.5.0",
      files: [
        { path: "/etc/a.conf", contents: { text: "a = 1\n" }, mode: "0600", user: "root", group: "root" },
        { path: "/var/b.bin", contents: { base64: "AAECAwQFBgc=" }, overwrite: false },
      ],
      systemd: {
        units: [
          { name: "a.service", enabled: true, contents: "[Service]\nExecStart=/bin/true\n" },
          { name: "b.timer", mask: true },
          { name: "crio.service", dropins: [{ name: "10-a.conf", contents: "[Service]\n" }] },
        ],
      },
      kernelArguments: ["nosmt"],
      kernelType: "64k-pages",
      extensions: ["kerberos"],
      fips: true,
      sshAuthorizedKeys: [
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEA+tJeMH79euQY0M9qNe7AHHTb+bh9E8m/O+GK2Qg3B admin@example.com",
      ],
      osImageURL: "quay.io/openshift/os@sha256:abc",
      labels: { "example.com/team": "ops" },
    }),
  "KubeletConfig with autoSizingReserved only": () =>
    kubeletConfig({ name: "auto", pool: "worker", autoSizingReserved: false }),
  "full KubeletConfig": () =>
    kubeletConfig({
      name: "infra-kubelet",
      pool: "infra",
      kubeletConfig: { maxPods: 250, podPidsLimit: 8192, evictionHard: { "memory.available": "500Mi" } },
      autoSizingReserved: true,
      logLevel: 3,
      tlsSecurityProfile: {
        type: "Custom",
        custom: { ciphers: ["ECDHE-RSA-AES128-GCM-SHA256"], minTLSVersion: "VersionTLS12" },
      },
    }),
  "full ContainerRuntimeConfig": () =>
    containerRuntimeConfig({
      name: "infra-crio",
      pool: "infra",
      containerRuntimeConfig: {
        pidsLimit: 2048,
        logLevel: "info",
        logSizeMax: "1Gi",
        overlaySize: 10737418240,
        defaultRuntime: "runc",
      },
    }),
};

describe("machine configuration manifests against the upstream CRDs", () => {
  before(function () {
    requireReference(this, CRDS);
  });

  for (const [name, build] of Object.entries(MANIFESTS)) {
    it(`${name} is valid and loses no field to pruning`, () => assertMatchesCrd(build()));
  }

  it("notices schema violations and undeclared fields, so the checks are not vacuous", () => {
    const crio = containerRuntimeConfig({
      name: "c",
      pool: "infra",
      containerRuntimeConfig: { pidsLimit: 0 },
    });
    const bad = {
      ...crio,
      spec: { ...crio.spec, containerRuntimeConfig: { defaultRuntime: "kata", logSizeMax: "1 G" } },
    };
    assert.throws(() => assertMatchesCrd(bad), /violates its CRD schema/);
    const pool = machineConfigPool({ name: "infra" });
    assert.deepEqual(crdSchemas().validate({ ...pool, spec: { ...pool.spec, surplus: 1 } }).pruned, [
      "spec.surplus",
    ]);
    const kc = kubeletConfig({
      name: "k",
      pool: "infra",
      kubeletConfig: { authentication: { anonymous: { enabled: false } } },
    });
    assert.deepEqual(crdSchemas().validate(kc).pruned, []);
  });
});
