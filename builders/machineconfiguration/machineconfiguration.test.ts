import * as assert from "node:assert/strict";
import { InputError } from "../errors";
import { inputErrors } from "../../test/input-error";
import {
  containerRuntimeConfig,
  kubeletConfig,
  machineConfig,
  MachineConfigArgs,
  machineConfigPool,
  parseFileMode,
} from ".";

export const ED25519_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEA+tJeMH79euQY0M9qNe7AHHTb+bh9E8m/O+GK2Qg3B admin@example.com";
export const ECDSA_KEY =
  "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBBV3rInKMeCgopvrQStMRxE0DASxxDFHzgrJKs2w1XPBQACgDexstjzGyY839JaSKzJYkl+7atEXfLM44DLTnP8=";

const ROLE = "machineconfiguration.openshift.io/role";

describe("MachineConfigPool builder", () => {
  it("builds a custom pool that inherits the worker configuration", () => {
    assert.deepEqual(machineConfigPool({ name: "infra" }), {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      metadata: { name: "infra", labels: { "pools.operator.machineconfiguration.openshift.io/infra": "" } },
      spec: {
        machineConfigSelector: {
          matchExpressions: [{ key: ROLE, operator: "In", values: ["worker", "infra"] }],
        },
        nodeSelector: { matchLabels: { "node-role.kubernetes.io/infra": "" } },
      },
    });
  });

  it("takes maxUnavailable, paused and extra labels, sorting label keys", () => {
    const pool = machineConfigPool({
      name: "gpu",
      maxUnavailable: "25%",
      paused: true,
      selectableByRole: false,
      labels: { "z.example.com/team": "ml", "a.example.com/tier": "gold" },
    });
    assert.deepEqual(pool.metadata, {
      name: "gpu",
      labels: { "a.example.com/tier": "gold", "z.example.com/team": "ml" },
    });
    assert.equal(pool.spec.maxUnavailable, "25%");
    assert.equal(pool.spec.paused, true);
    assert.deepEqual(machineConfigPool({ name: "gpu", selectableByRole: false }).metadata, { name: "gpu" });
    assert.equal(machineConfigPool({ name: "gpu", maxUnavailable: 3 }).spec.maxUnavailable, 3);
    assert.equal(machineConfigPool({ name: "gpu", maxUnavailable: "100%" }).spec.maxUnavailable, "100%");
  });
});

const FULL_MC: MachineConfigArgs = {
  name: "99-infra-chrony",
  role: "infra",
  ignitionVersion: "3.4.0",
  files: [
    { path: "/etc/chrony.conf", contents: { text: "server 10.0.0.1 iburst\n" }, mode: "0644" },
    {
      path: "/var/lib/app/run.sh",
      contents: { source: "data:;base64,IyEvYmluL3NoCg==" },
      mode: 0o755,
      overwrite: false,
      user: "core",
      group: "core",
    },
  ],
  systemd: {
    units: [
      {
        name: "app.service",
        enabled: true,
        contents:
          "[Unit]\nDescription=App\n[Service]\nExecStart=/var/lib/app/run.sh\n[Install]\nWantedBy=multi-user.target\n",
      },
      {
        name: "kubelet.service",
        dropins: [{ name: "10-verbosity.conf", contents: "[Service]\nEnvironment=KUBELET_LOG_LEVEL=4\n" }],
      },
      { name: "rpcbind.socket", mask: true },
    ],
  },
  kernelArguments: ["nosmt", "hugepagesz=2M"],
  kernelType: "realtime",
  extensions: ["usbguard", "sysstat"],
  fips: false,
  sshAuthorizedKeys: [ED25519_KEY, ECDSA_KEY],
  osImageURL: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0123456789abcdef",
};

describe("MachineConfig builder", () => {
  it("reports every field of every file, unit and list entry at once, each at its path", () => {
    const errors = inputErrors(() =>
      machineConfig({
        name: "99-x",
        role: "infra",
        files: [
          { path: "/usr/a", mode: "999", contents: { text: "" } },
          { path: "/etc/b", user: "", contents: { text: "" } },
        ],
        systemd: {
          units: [
            { name: "x", contents: "" },
            { name: "y.service", contents: 1 as never },
          ],
        },
        kernelArguments: ["", " a"],
        extensions: ["usbguard", "nope" as "usbguard"],
      }),
    );
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      [
        "files[0].path",
        "files[0].mode",
        "files[1].user",
        "systemd.units[0].name",
        "systemd.units[1].contents",
        "kernelArguments[0]",
        "kernelArguments[1]",
        "extensions[1]",
      ],
    );
  });

  it("renders every field in Ignition 3 form", () => {
    assert.deepEqual(machineConfig(FULL_MC), {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfig",
      metadata: { name: "99-infra-chrony", labels: { [ROLE]: "infra" } },
      spec: {
        config: {
          ignition: { version: "3.4.0" },
          passwd: { users: [{ name: "core", sshAuthorizedKeys: [ED25519_KEY, ECDSA_KEY] }] },
          storage: {
            files: [
              {
                path: "/etc/chrony.conf",
                contents: { source: "data:,server%2010.0.0.1%20iburst%0A" },
                mode: 420,
                overwrite: true,
              },
              {
                path: "/var/lib/app/run.sh",
                contents: { source: "data:;base64,IyEvYmluL3NoCg==" },
                mode: 493,
                overwrite: false,
                user: { name: "core" },
                group: { name: "core" },
              },
            ],
          },
          systemd: {
            units: [
              {
                name: "app.service",
                enabled: true,
                contents:
                  "[Unit]\nDescription=App\n[Service]\nExecStart=/var/lib/app/run.sh\n[Install]\nWantedBy=multi-user.target\n",
              },
              {
                name: "kubelet.service",
                dropins: [
                  { name: "10-verbosity.conf", contents: "[Service]\nEnvironment=KUBELET_LOG_LEVEL=4\n" },
                ],
              },
              { name: "rpcbind.socket", mask: true },
            ],
          },
        },
        kernelArguments: ["nosmt", "hugepagesz=2M"],
        kernelType: "realtime",
        extensions: ["usbguard", "sysstat"],
        fips: false,
        osImageURL: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0123456789abcdef",
      },
    });
  });

  it("defaults to Ignition 3.2.0 and leaves out empty sections", () => {
    assert.deepEqual(
      machineConfig({ name: "99-worker-kargs", role: "worker", kernelArguments: ["loglevel=7"] }),
      {
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "MachineConfig",
        metadata: { name: "99-worker-kargs", labels: { [ROLE]: "worker" } },
        spec: { config: { ignition: { version: "3.2.0" } }, kernelArguments: ["loglevel=7"] },
      },
    );
  });

  it("is deterministic and does not depend on label order", () => {
    const a = machineConfig({ ...FULL_MC, labels: { "x.io/a": "1", "x.io/b": "2" } });
    const b = machineConfig({ ...FULL_MC, labels: { "x.io/b": "2", "x.io/a": "1" } });
    assert.equal(JSON.stringify(a), JSON.stringify(b));
    assert.deepEqual(Object.keys(a.metadata.labels), [
      "machineconfiguration.openshift.io/role",
      "x.io/a",
      "x.io/b",
    ]);
  });

  it("takes SSH keys as read from a .pub file, trailing newline and all", () => {
    const mc = machineConfig({
      name: "99-worker-ssh",
      role: "worker",
      sshAuthorizedKeys: [`${ECDSA_KEY}\n`],
    });
    assert.deepEqual(mc.spec.config.passwd, { users: [{ name: "core", sshAuthorizedKeys: [ECDSA_KEY] }] });
  });

  it("reads file modes as octal permissions and emits Ignition's decimal", () => {
    const cases: [number | string, number][] = [
      [0o644, 420],
      [420, 420],
      ["0644", 420],
      ["644", 420],
      ["0755", 493],
      ["0600", 384],
      [0, 0],
      ["0777", 511],
    ];
    for (const [given, expected] of cases)
      assert.equal(parseFileMode("mode", given), expected, String(given));
  });
});

describe("KubeletConfig and ContainerRuntimeConfig builders", () => {
  it("reads CRI-O sizes as quantities, with the MCO's limits", () => {
    const size = (logSizeMax: number | string) => () =>
      containerRuntimeConfig({ name: "c", pool: "infra", containerRuntimeConfig: { logSizeMax } });
    for (const ok of ["9Ki", 8193, "1e4", "0.5Mi", "1E", "-1", 0]) assert.doesNotThrow(size(ok), String(ok));
    for (const tooSmall of ["8Ki", 8192, "8.192k", "1"])
      assert.throws(size(tooSmall), /more than 8192/, String(tooSmall));
  });

  it("targets the pool by its pools.operator label", () => {
    const input = { maxPods: 500, systemReserved: { memory: "2Gi" } };
    const kc = kubeletConfig({
      name: "infra-max-pods",
      pool: "infra",
      kubeletConfig: input,
      logLevel: 4,
      tlsSecurityProfile: { type: "Intermediate", intermediate: {} },
    });
    assert.deepEqual(kc, {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "KubeletConfig",
      metadata: { name: "infra-max-pods" },
      spec: {
        machineConfigPoolSelector: {
          matchLabels: { "pools.operator.machineconfiguration.openshift.io/infra": "" },
        },
        kubeletConfig: { maxPods: 500, systemReserved: { memory: "2Gi" } },
        logLevel: 4,
        tlsSecurityProfile: { type: "Intermediate", intermediate: {} },
      },
    });
    assert.notEqual(kc.spec.kubeletConfig, input, "the manifest does not share objects with the input");
    assert.deepEqual(kubeletConfig({ name: "auto", pool: "worker", autoSizingReserved: true }).spec, {
      machineConfigPoolSelector: {
        matchLabels: { "pools.operator.machineconfiguration.openshift.io/worker": "" },
      },
      autoSizingReserved: true,
    });
  });

  it("emits CRI-O settings in a fixed order", () => {
    assert.deepEqual(
      containerRuntimeConfig({
        name: "infra-crio",
        pool: "infra",
        containerRuntimeConfig: {
          defaultRuntime: "crun",
          overlaySize: "10G",
          logSizeMax: -1,
          logLevel: "debug",
          pidsLimit: 4096,
        },
      }),
      {
        apiVersion: "machineconfiguration.openshift.io/v1",
        kind: "ContainerRuntimeConfig",
        metadata: { name: "infra-crio" },
        spec: {
          machineConfigPoolSelector: {
            matchLabels: { "pools.operator.machineconfiguration.openshift.io/infra": "" },
          },
          containerRuntimeConfig: {
            pidsLimit: 4096,
            logLevel: "debug",
            logSizeMax: -1,
            overlaySize: "10G",
            defaultRuntime: "crun",
          },
        },
      },
    );
  });
});

const MC = (over: Partial<MachineConfigArgs>) => () =>
  machineConfig({ name: "99-infra-x", role: "infra", ...over });
const FILE = (over: object) => ({ path: "/etc/x.conf", contents: { text: "x" }, ...over });
const KC = (over: object) => () => kubeletConfig({ name: "kc", pool: "infra", ...over });
const CRC = (over: object) => () =>
  containerRuntimeConfig({ name: "crc", pool: "infra", containerRuntimeConfig: over as never });

/** [what, build, property path, what the message must say is allowed] */
const BAD_INPUT: [string, () => unknown, string, RegExp][] = [
  ["pool name not a DNS label", () => machineConfigPool({ name: "Infra_1" }), "name", /DNS label/],
  [
    "pool named worker",
    () => machineConfigPool({ name: "worker" }),
    "name",
    /another DNS label.*"master" or "worker"/,
  ],
  ["pool named master", () => machineConfigPool({ name: "master" }), "name", /another DNS label/],
  [
    "maxUnavailable 0",
    () => machineConfigPool({ name: "infra", maxUnavailable: 0 }),
    "maxUnavailable",
    /1 or more.*"1%" to "100%"/,
  ],
  [
    "maxUnavailable 0%",
    () => machineConfigPool({ name: "infra", maxUnavailable: "0%" }),
    "maxUnavailable",
    /"1%" to "100%"/,
  ],
  [
    "maxUnavailable 101%",
    () => machineConfigPool({ name: "infra", maxUnavailable: "101%" }),
    "maxUnavailable",
    /"1%" to "100%"/,
  ],
  [
    "maxUnavailable 1.5",
    () => machineConfigPool({ name: "infra", maxUnavailable: 1.5 }),
    "maxUnavailable",
    /whole number of 1 or more/,
  ],
  [
    "maxUnavailable bare string",
    () => machineConfigPool({ name: "infra", maxUnavailable: "2" }),
    "maxUnavailable",
    /percentage/,
  ],
  [
    "pool label given another value",
    () =>
      machineConfigPool({
        name: "infra",
        labels: { "pools.operator.machineconfiguration.openshift.io/infra": "x" },
      }),
    'labels["pools.operator.machineconfiguration.openshift.io/infra"]',
    /set by `name` to "": leave it out of labels/,
  ],
  [
    "paused not boolean",
    () => machineConfigPool({ name: "infra", paused: "yes" as never }),
    "paused",
    /true or false/,
  ],
  ["MC name not a subdomain", MC({ name: "99_Infra" }), "name", /lower-case letters, digits, '-' or '\.'/],
  [
    "MC name of a rendered config",
    MC({ name: "rendered-infra-0a1b" }),
    "name",
    /"rendered-" belong to the MCO/,
  ],
  ["role label in labels", MC({ labels: { [ROLE]: "worker" } }), `labels["${ROLE}"]`, /set by `role`/],
  [
    "file outside /etc and /var",
    MC({ files: [FILE({ path: "/usr/local/bin/tool" })] }),
    "files[0].path",
    /under \/etc and \/var/,
  ],
  [
    "relative file path",
    MC({ files: [FILE({}), FILE({ path: "etc/x.conf" })] }),
    "files[1].path",
    /under \/etc and \/var/,
  ],
  [
    "file path escaping /etc",
    MC({ files: [FILE({ path: "/etc/../usr/bin/x" })] }),
    "files[0].path",
    /without '\/\/', '\.', '\.\.'/,
  ],
  [
    "the directory /etc itself",
    MC({ files: [FILE({ path: "/etc/" })] }),
    "files[0].path",
    /absolute path such as/,
  ],
  [
    "same path twice",
    MC({ files: [FILE({}), FILE({ path: "/etc/y" }), FILE({})] }),
    "files[2].path",
    /each path may appear once/,
  ],
  [
    "mode with a non-octal digit",
    MC({ files: [FILE({ mode: "0999" })] }),
    "files[0].mode",
    /octal permission from 0 to 0777/,
  ],
  ["mode with setuid", MC({ files: [FILE({ mode: 0o4755 })] }), "files[0].mode", /0 to 0777.*setuid/],
  [
    "mode 644 written in decimal",
    MC({ files: [FILE({ mode: 644 })] }),
    "files[0].mode",
    /644 \(octal 0o1204\).*such as 0o644 or "0644"/,
  ],
  ["negative mode", MC({ files: [FILE({ mode: -1 })] }), "files[0].mode", /0 to 0777/],
  [
    "two kinds of contents",
    MC({ files: [FILE({ contents: { text: "a", base64: "YQ==" } })] }),
    "files[0].contents",
    /exactly one of \{ text \}, \{ base64 \} or \{ source \}/,
  ],
  [
    "remote contents",
    MC({ files: [FILE({ contents: { source: "https://example.com/x" } })] }),
    "files[0].contents.source",
    /data: URL/,
  ],
  [
    "bad base64",
    MC({ files: [FILE({ contents: { base64: "not base64!" } })] }),
    "files[0].contents.base64",
    /standard base64/,
  ],
  ["bad owner", MC({ files: [FILE({ user: "Root Admin" })] }), "files[0].user", /lower-case letters, digits/],
  [
    "Ignition 2.2.0",
    MC({ ignitionVersion: "2.2.0" }),
    "ignitionVersion",
    /"3\.0\.0", "3\.1\.0", "3\.2\.0", "3\.3\.0", "3\.4\.0", "3\.5\.0"/,
  ],
  ["Ignition 3.6.0", MC({ ignitionVersion: "3.6.0-experimental" }), "ignitionVersion", /"3\.5\.0"/],
  ["Ignition version without patch", MC({ ignitionVersion: "3.2" }), "ignitionVersion", /"3\.2\.0"/],
  ["unknown kernelType", MC({ kernelType: "rt" }), "kernelType", /"default", "realtime", "64k-pages"/],
  [
    "unit without a suffix",
    MC({ systemd: { units: [{ name: "chronyd", enabled: true }] } }),
    "systemd.units[0].name",
    /\.service .*\.scope/,
  ],
  [
    "unit with a bad suffix",
    MC({ systemd: { units: [{ name: "x.conf", enabled: true }] } }),
    "systemd.units[0].name",
    /\.timer/,
  ],
  [
    "same unit twice",
    MC({
      systemd: {
        units: [
          { name: "a.service", enabled: true },
          { name: "a.service", mask: true },
        ],
      },
    }),
    "systemd.units[1].name",
    /each unit may appear once/,
  ],
  [
    "drop-in without .conf",
    MC({ systemd: { units: [{ name: "a.service", dropins: [{ name: "override", contents: "" }] }] } }),
    "systemd.units[0].dropins[0].name",
    /ending in \.conf/,
  ],
  [
    "masked and enabled",
    MC({ systemd: { units: [{ name: "a.service", enabled: true, mask: true }] } }),
    "systemd.units[0].enabled",
    /enabled or mask, not both/,
  ],
  [
    "unit that does nothing",
    MC({ systemd: { units: [{ name: "a.service" }] } }),
    "systemd.units[0]",
    /contents, dropins, enabled or mask/,
  ],
  [
    "empty kernel argument",
    MC({ kernelArguments: ["nosmt", " "] }),
    "kernelArguments[1]",
    /non-empty string/,
  ],
  [
    "kernel argument twice",
    MC({ kernelArguments: ["nosmt", "quiet", "nosmt"] }),
    "kernelArguments[2]",
    /each kernel argument may appear once/,
  ],
  ["unknown extension", MC({ extensions: ["usbguard", "wasm"] }), "extensions[1]", /"ipsec".*"usbguard"/],
  [
    "extension twice",
    MC({ extensions: ["usbguard", "usbguard"] }),
    "extensions[1]",
    /each extension may appear once/,
  ],
  [
    "private key instead of public",
    MC({ sshAuthorizedKeys: ["-----BEGIN OPENSSH PRIVATE KEY-----"] }),
    "sshAuthorizedKeys[0]",
    /<type> <base64> \[comment\].*ssh-ed25519/,
  ],
  [
    "key type and blob disagree",
    MC({ sshAuthorizedKeys: [ED25519_KEY, ED25519_KEY.replace("ssh-ed25519", "ssh-rsa")] }),
    "sshAuthorizedKeys[1]",
    /ssh-rsa/,
  ],
  [
    "the same SSH key twice, with another comment",
    MC({ sshAuthorizedKeys: [ED25519_KEY, `${ED25519_KEY.split(" ").slice(0, 2).join(" ")} laptop`] }),
    "sshAuthorizedKeys[1]",
    /each SSH public key may appear once/,
  ],
  ["fips not boolean", MC({ fips: 1 as never }), "fips", /true or false/],
  ["osImageURL not an image", MC({ osImageURL: "latest" }), "osImageURL", /registry\/repository@sha256/],
  [
    "KubeletConfig pool not a DNS label",
    KC({ pool: "Infra", autoSizingReserved: true }),
    "pool",
    /DNS label/,
  ],
  [
    "kubeletConfig not an object",
    KC({ kubeletConfig: ["maxPods=500"] }),
    "kubeletConfig",
    /plain object of JSON values/,
  ],
  [
    "kubeletConfig with undefined inside",
    KC({ kubeletConfig: { evictionHard: { x: undefined } } }),
    "kubeletConfig.evictionHard.x",
    /JSON value/,
  ],
  [
    "podPidsLimit -2",
    KC({ kubeletConfig: { podPidsLimit: -2 } }),
    "kubeletConfig.podPidsLimit",
    /-1 \(no limit\) or more/,
  ],
  ["maxPods 0", KC({ kubeletConfig: { maxPods: 0 } }), "kubeletConfig.maxPods", /whole number of 1 or more/],
  [
    "cgroupDriver set",
    KC({ kubeletConfig: { cgroupDriver: "cgroupfs" } }),
    "kubeletConfig.cgroupDriver",
    /may not be set.*cgroupDriver, clusterDNS/,
  ],
  [
    "swapBehavior set",
    KC({ kubeletConfig: { memorySwap: { swapBehavior: "LimitedSwap" } } }),
    "kubeletConfig.memorySwap.swapBehavior",
    /may not be set/,
  ],
  [
    "systemReserved with autoSizing",
    KC({ autoSizingReserved: true, kubeletConfig: { systemReserved: { cpu: "1" } } }),
    "kubeletConfig.systemReserved",
    /not both/,
  ],
  ["kubelet logLevel 11", KC({ logLevel: 11 }), "logLevel", /1 to 10/],
  [
    "unknown TLS profile",
    KC({ tlsSecurityProfile: { type: "Strict" } }),
    "tlsSecurityProfile.type",
    /"Old", "Intermediate", "Modern", "Custom"/,
  ],
  [
    "empty KubeletConfig",
    KC({}),
    "kubeletConfig",
    /kubeletConfig, autoSizingReserved, logLevel or tlsSecurityProfile/,
  ],
  [
    "CRI-O logLevel",
    CRC({ logLevel: "verbose" }),
    "containerRuntimeConfig.logLevel",
    /"fatal", "panic", "error", "warn", "info", "debug", "trace"/,
  ],
  [
    "defaultRuntime kata",
    CRC({ defaultRuntime: "kata" }),
    "containerRuntimeConfig.defaultRuntime",
    /"crun", "runc"/,
  ],
  ["pidsLimit below 20", CRC({ pidsLimit: 10 }), "containerRuntimeConfig.pidsLimit", /0 .* or at least 20/],
  ["pidsLimit -1", CRC({ pidsLimit: -1 }), "containerRuntimeConfig.pidsLimit", /0 .* or at least 20, got -1/],
  [
    "logSizeMax of 8Ki",
    CRC({ logSizeMax: "8Ki" }),
    "containerRuntimeConfig.logSizeMax",
    /more than 8192 bytes.*negative for no limit/,
  ],
  [
    "overlaySize with a space",
    CRC({ overlaySize: "10 GB" }),
    "containerRuntimeConfig.overlaySize",
    /quantity.*"10G"/,
  ],
  ["negative overlaySize", CRC({ overlaySize: "-1G" }), "containerRuntimeConfig.overlaySize", /0 or more/],
  [
    "unknown CRI-O field",
    CRC({ logSizeMax: "1Gi", storageDriver: "vfs" }),
    "containerRuntimeConfig.storageDriver",
    /use pidsLimit, logLevel, logSizeMax, overlaySize, defaultRuntime/,
  ],
  ["no CRI-O setting", CRC({}), "containerRuntimeConfig", /at least one of pidsLimit/],
];

describe("bad input", () => {
  for (const [what, build, path, allowed] of BAD_INPUT) {
    it(`rejects ${what} at ${path}`, () => {
      assert.throws(build, (e: unknown) => {
        assert.ok(e instanceof InputError, `expected an InputError, got ${String(e)}`);
        assert.equal(e.propertyPath, path);
        assert.match(e.reason, allowed);
        assert.ok(e.message.startsWith(`${path}: `));
        return true;
      });
    });
  }
});
