import * as assert from "node:assert/strict";
import {
  containerRuntimeConfig,
  kubeletConfig,
  machineConfig,
  MachineConfigArgs,
} from "../machineconfiguration";
import { generatedConfigs, MachineConfigLike, PoolConfigs, rolloutImpact } from ".";

const paths = (mc: MachineConfigLike) => mc.spec?.config?.storage?.files?.map((f) => f.path);
const configs = (...args: MachineConfigArgs[]): PoolConfigs => ({
  machineConfigs: args.map((a) => machineConfig(a)),
});
const change = (before: PoolConfigs, after: PoolConfigs) =>
  rolloutImpact({ pool: "infra", before, after, machineCount: 3 });
/** Each cause of a change: what changed, and the MachineConfig it comes from. */
const causes = (before: PoolConfigs, after: PoolConfigs) =>
  change(before, after).causes.map((c) => `${c.kind} ${c.name} of ${c.source}`);
const file = (name: string, path: string, text = "x\n"): MachineConfigArgs => ({
  name,
  role: "infra",
  files: [{ path, contents: { text } }],
});

// openshift/machine-config-operator pkg/controller/kubelet-config helpers.go (getManagedKubeletConfigKey,
// the kubelet.conf, node sizing and logging files) and pkg/controller/container-runtime-config
// helpers.go (a crio drop-in per field, storage.conf for overlaySize).
describe("rollout impact: the MachineConfigs the MCO generates for a pool", () => {
  it("one per KubeletConfig, by name, the first unsuffixed, writing the sizing and logging files only when set", () => {
    const generated = generatedConfigs("infra", {
      kubeletConfigs: [
        kubeletConfig({ name: "b-logging", pool: "infra", logLevel: 4 }),
        kubeletConfig({ name: "a-sizing", pool: "infra", autoSizingReserved: true }),
        kubeletConfig({ name: "c-pods", pool: "infra", kubeletConfig: { maxPods: 300 } }),
      ],
    });
    assert.deepEqual(
      generated.map((mc) => [mc.metadata.name, mc.metadata.labels, paths(mc)]),
      [
        [
          "99-infra-generated-kubelet",
          { "machineconfiguration.openshift.io/role": "infra" },
          ["/etc/kubernetes/kubelet.conf", "/etc/node-sizing-enabled.env"],
        ],
        [
          "99-infra-generated-kubelet-1",
          { "machineconfiguration.openshift.io/role": "infra" },
          ["/etc/kubernetes/kubelet.conf", "/etc/systemd/system/kubelet.service.d/20-logging.conf"],
        ],
        [
          "99-infra-generated-kubelet-2",
          { "machineconfiguration.openshift.io/role": "infra" },
          ["/etc/kubernetes/kubelet.conf"],
        ],
      ],
    );
    assert.deepEqual(generatedConfigs("infra", {}), []);
  });

  it("a KubeletConfig's TLS profile, node sizing or log level changes its pool's nodes", () => {
    const with_ = (args: Partial<Parameters<typeof kubeletConfig>[0]>) => ({
      machineConfigs: [],
      kubeletConfigs: [
        kubeletConfig({ name: "infra-kubelet", pool: "infra", kubeletConfig: { maxPods: 250 }, ...args }),
      ],
    });
    const modern = { type: "Modern" as const, modern: {} };
    assert.deepEqual(causes(with_({}), with_({ tlsSecurityProfile: modern })), [
      "file /etc/kubernetes/kubelet.conf of 99-infra-generated-kubelet",
    ]);
    assert.deepEqual(causes(with_({ autoSizingReserved: false }), with_({ autoSizingReserved: true })), [
      "file /etc/node-sizing-enabled.env of 99-infra-generated-kubelet",
    ]);
    assert.deepEqual(causes(with_({ logLevel: 2 }), with_({ logLevel: 4 })), [
      "file /etc/systemd/system/kubelet.service.d/20-logging.conf of 99-infra-generated-kubelet",
    ]);
  });

  it("one per ContainerRuntimeConfig: a crio drop-in per field set, storage.conf for the overlay size", () => {
    const [generated] = generatedConfigs("infra", {
      containerRuntimeConfigs: [
        {
          metadata: { name: "infra-crio" },
          spec: { containerRuntimeConfig: { pidsLimit: 4096, overlaySize: "10G", logLevel: undefined } },
        },
      ],
    });
    assert.equal(generated.metadata.name, "99-infra-generated-containerruntime");
    assert.deepEqual(paths(generated), [
      "/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit",
      "/etc/containers/storage.conf",
    ]);
    const crio = (overlaySize: string) => ({
      machineConfigs: [],
      containerRuntimeConfigs: [
        containerRuntimeConfig({
          name: "infra-crio",
          pool: "infra",
          containerRuntimeConfig: { overlaySize },
        }),
      ],
    });
    assert.deepEqual(causes(crio("10G"), crio("20G")), [
      "file /etc/containers/storage.conf of 99-infra-generated-containerruntime",
    ]);
  });
});

// pkg/controller/common/helpers.go MergeMachineConfigs (Ignition's merge of files and units by path and
// name; kernel arguments and extensions appended; FIPS, a kernel type other than default and an OS
// image from any config) and pkg/daemon/update.go newMachineConfigDiff.
describe("rollout impact: what a pool's merged config changes", () => {
  const base: MachineConfigArgs = {
    name: "00-infra",
    role: "infra",
    systemd: { units: [{ name: "app.service", enabled: true, contents: "[Unit]\nDescription=a\n" }] },
  };

  it("a later config's unit merges over the earlier one's: changing its contents reboots, naming the later config", () => {
    const unit = (contents: string): MachineConfigArgs => ({
      name: "99-infra-app",
      role: "infra",
      systemd: { units: [{ name: "app.service", contents }] },
    });
    assert.deepEqual(causes(configs(base), configs(base, unit("[Unit]\nDescription=b\n"))), [
      "unit app.service of 99-infra-app",
    ]);
    assert.equal(change(configs(base), configs(base, unit("[Unit]\nDescription=a\n"))).newRender, false);
  });

  it("FIPS, the OS image, the kernel type and arguments: always reboot, whichever config sets them and whatever follows", () => {
    const later = file("99-infra-zz", "/etc/motd");
    const set = (args: Partial<MachineConfigArgs>) =>
      configs({ name: "50-infra-set", role: "infra", ...args }, later);
    const before = configs(file("50-infra-set", "/etc/motd", "y\n"), later);
    for (const [field, args] of [
      ["fips", { fips: true }],
      ["osImageURL", { osImageURL: "quay.io/example/rhcos@sha256:" + "a".repeat(64) }],
      ["kernelType", { kernelType: "realtime" }],
    ] as const) {
      const i = change(before, set(args));
      assert.deepEqual([i.action, i.causes[0].name, i.causes[0].source], ["reboot", field, "50-infra-set"]);
    }
    // A config without `config` (kernel arguments alone) merges as any other.
    const kargs: PoolConfigs = {
      machineConfigs: [
        { metadata: { name: "05-infra-kargs", labels: {} }, spec: { kernelArguments: ["nosmt"] } },
      ],
    };
    assert.deepEqual(causes({ machineConfigs: [] }, kargs), ["field kernelArguments of 05-infra-kargs"]);
    // The default kernel type is no kernel type.
    assert.equal(change(configs(base), configs({ ...base, kernelType: "default" })).newRender, false);
  });

  it("names changes in order of field, path and unit, and a removed item by the config that had it", () => {
    const many: MachineConfigArgs = {
      name: "99-infra-many",
      role: "infra",
      kernelArguments: ["nosmt"],
      extensions: ["usbguard"],
      files: ["/etc/z.conf", "/etc/a.conf"].map((path) => ({ path, contents: { text: "x\n" } })),
      systemd: { units: ["z.service", "a.service"].map((name) => ({ name, contents: "[Unit]\n" })) },
    };
    const named = [
      "field extensions",
      "field kernelArguments",
      "file /etc/a.conf",
      "file /etc/z.conf",
      "unit a.service",
      "unit z.service",
    ].map((c) => `${c} of 99-infra-many`);
    assert.deepEqual(causes(configs(base), configs(base, many)), named);
    assert.deepEqual(causes(configs(base, many), configs(base)), named);
  });

  it("the SSH keys of core: their change and their removal name the config that sets them; a user without keys is none", () => {
    const KEY =
      "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIEA+tJeMH79euQY0M9qNe7AHHTb+bh9E8m/O+GK2Qg3B a@example.com";
    const keys = configs({ name: "99-infra-ssh", role: "infra", sshAuthorizedKeys: [KEY] });
    assert.deepEqual(causes({ machineConfigs: [] }, keys), ["sshKeys core of 99-infra-ssh"]);
    assert.deepEqual(causes(keys, { machineConfigs: [] }), ["sshKeys core of 99-infra-ssh"]);
    const keyless: PoolConfigs = {
      machineConfigs: [
        { metadata: { name: "99-infra-core" }, spec: { config: { passwd: { users: [{ name: "core" }] } } } },
      ],
    };
    assert.equal(change({ machineConfigs: [] }, keyless).newRender, false);
  });
});
