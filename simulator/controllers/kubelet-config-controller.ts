/**
 * The MCO's KubeletConfig and ContainerRuntimeConfig controllers: each CR selects pools with
 * `machineConfigPoolSelector` and becomes, per pool, a generated MachineConfig
 * `99-<pool>-generated-kubelet` / `99-<pool>-generated-containerruntime` (suffixed `-N` for further CRs
 * on the same pool) labelled with the pool's role, owned by the CR and held by its finalizers. The
 * render controller then folds it into the pool's rendered config.
 */
import { Json, field, labelsOf, obj } from "../../primitives/objects";
import { ROLE_LABEL } from "../../primitives/openshift";
import { LabelSelector, selectorIsEmpty, selectorMatches } from "../../primitives/selectors";
import { baseKubeletConfiguration } from "../cluster/machineconfigs";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { CONTROLLER_VERSION, GENERATED_BY_ANNOTATION, IgnFile, dataUrlBase64 } from "./machineconfig";
import { WorkQueue } from "./workqueue";
import { Condition, K, KindRef, controllerRef, isKind, keyOf, timestamp } from "./util";

const SUFFIX_ANNOTATION = "machineconfiguration.openshift.io/mc-name-suffix";

interface GeneratorKind {
  kind: KindRef;
  /** `99-<pool>-generated-<nameSuffix>` */
  nameSuffix: string;
  /** How the controller names the kind in its errors. */
  errorName: string;
  validate(cfg: KubeObject, pool?: KubeObject): string | undefined;
  files(cfg: KubeObject): IgnFile[];
  conditions(error: string | undefined, now: string): Condition[];
}

const KUBELET_FORBIDDEN: Array<[string, (v: unknown) => string]> = [
  ["cgroupDriver", String],
  ["clusterDNS", (v) => `[${(v as string[]).join(" ")}]`],
  ["clusterDomain", String],
  [
    "featureGates",
    (v) =>
      `map[${Object.entries(obj(v))
        .map(([k, x]) => `${k}:${x}`)
        .join(" ")}]`,
  ],
  ["failSwapOn", String],
];

const CRIO_LOG_LEVELS = ["error", "fatal", "panic", "warn", "info", "debug", "trace"];

function file(path: string, contents: string): IgnFile {
  return { contents: { source: dataUrlBase64(contents) }, mode: 420, overwrite: true, path };
}

function toml(key: string, value: string | number): string {
  return `[crio]\n  [crio.runtime]\n    ${key} = ${typeof value === "string" ? JSON.stringify(value) : value}\n`;
}

const GENERATORS: GeneratorKind[] = [
  {
    kind: K.kubeletConfig,
    nameSuffix: "kubelet",
    errorName: "KubeletConfig",
    validate(cfg, pool) {
      const logLevel = field<number>(cfg, "spec", "logLevel");
      if (logLevel !== undefined && (logLevel < 0 || logLevel > 10)) {
        return `KubeletConfig's LogLevel is not valid [0,10]: ${logLevel}`;
      }
      const kc = obj(field(cfg, "spec", "kubeletConfig"));
      for (const [key, show] of KUBELET_FORBIDDEN) {
        if (kc[key] !== undefined)
          return `KubeletConfiguration: ${key} is not allowed to be set, but contains: ${show(kc[key])}`;
      }
      if (field(kc, "memorySwap", "swapBehavior")) {
        return `KubeletConfiguration: swapBehavior is not allowed to be set, but contains: ${String(field(kc, "memorySwap", "swapBehavior"))}`;
      }
      if (pool && kc.staticPodPath !== undefined) {
        if (pool.metadata.name === "master") {
          return `KubeletConfiguration: staticPodPath is not allowed to be set for control plane pool "master"`;
        }
        if (kc.staticPodPath !== "") {
          return `KubeletConfiguration: staticPodPath must be empty for pool ${JSON.stringify(pool.metadata.name)}, but contains: ${String(kc.staticPodPath)}`;
        }
      }
      return undefined;
    },
    files(cfg) {
      const kc = obj(field(cfg, "spec", "kubeletConfig"));
      const files = [
        file(
          "/etc/kubernetes/kubelet.conf",
          JSON.stringify({ ...baseKubeletConfiguration(), ...kc }, null, 2),
        ),
      ];
      const logLevel = field<number>(cfg, "spec", "logLevel");
      if (logLevel !== undefined) {
        files.push(
          file(
            "/etc/systemd/system/kubelet.service.d/20-logging.conf",
            `[Service]\nEnvironment="KUBELET_LOG_LEVEL=${logLevel}"\n`,
          ),
        );
      }
      if (field(cfg, "spec", "autoSizingReserved") === true) {
        files.push(
          file(
            "/etc/node-sizing-enabled.env",
            "NODE_SIZING_ENABLED=true\nSYSTEM_RESERVED_MEMORY=1Gi\nSYSTEM_RESERVED_CPU=500m\n",
          ),
        );
      }
      return files;
    },
    conditions(error, now) {
      // Accepted is current; Success/Failure are kept for older clients, as the MCO still writes them.
      return error
        ? [
            { type: "Accepted", status: "False", message: `Error: ${error}`, lastTransitionTime: now },
            { type: "Failure", status: "True", message: `Error: ${error}`, lastTransitionTime: now },
          ]
        : [
            { type: "Accepted", status: "True", message: "Success", lastTransitionTime: now },
            { type: "Success", status: "True", message: "Success", lastTransitionTime: now },
          ];
    },
  },
  {
    kind: K.containerRuntimeConfig,
    nameSuffix: "containerruntime",
    errorName: "containerRuntimeConfig",
    validate(cfg) {
      const c = obj(field(cfg, "spec", "containerRuntimeConfig"));
      if (c.logLevel !== undefined && !CRIO_LOG_LEVELS.includes(String(c.logLevel))) {
        return `invalid LogLevel ${JSON.stringify(c.logLevel)}, must be one of error, fatal, panic, warn, info, debug, or trace`;
      }
      if (typeof c.pidsLimit === "number" && c.pidsLimit > 0 && c.pidsLimit < 20) {
        return `invalid PidsLimit ${c.pidsLimit}`;
      }
      return undefined;
    },
    files(cfg) {
      const c = obj(field(cfg, "spec", "containerRuntimeConfig"));
      const files: IgnFile[] = [];
      if (c.logLevel !== undefined)
        files.push(file("/etc/crio/crio.conf.d/01-ctrcfg-logLevel", toml("log_level", String(c.logLevel))));
      if (typeof c.pidsLimit === "number")
        files.push(file("/etc/crio/crio.conf.d/01-ctrcfg-pidsLimit", toml("pids_limit", c.pidsLimit)));
      if (c.logSizeMax !== undefined)
        files.push(
          file("/etc/crio/crio.conf.d/01-ctrcfg-logSizeMax", toml("log_size_max", String(c.logSizeMax))),
        );
      if (c.defaultRuntime !== undefined && c.defaultRuntime !== "") {
        files.push(
          file(
            "/etc/crio/crio.conf.d/01-ctrcfg-defaultRuntime",
            toml("default_runtime", String(c.defaultRuntime)),
          ),
        );
      }
      return files;
    },
    conditions(error, now) {
      return error
        ? [{ type: "Failure", status: "True", message: `Error: ${error}`, lastTransitionTime: now }]
        : [{ type: "Success", status: "True", message: "Success", lastTransitionTime: now }];
    },
  },
];

export function startKubeletConfigController(ctx: ControllerContext): StopFn {
  const { clock } = ctx;
  const store = ctx.writer("machine-config-controller");
  const queue = new WorkQueue("kubelet-config-controller", clock, (key) => {
    const [index, name] = key.split("/");
    sync(GENERATORS[Number(index)], name);
  });

  function poolsFor(cfg: KubeObject): KubeObject[] {
    const sel = field<LabelSelector>(cfg, "spec", "machineConfigPoolSelector");
    if (selectorIsEmpty(sel)) return [];
    return store.list(K.pool.apiVersion, K.pool.kind).filter((p) => selectorMatches(sel, labelsOf(p)));
  }

  function setStatus(gen: GeneratorKind, name: string, error: string | undefined): void {
    store.mutate(
      keyOf(gen.kind, name),
      (o) => {
        const status = obj(o.status);
        const previous = (status.conditions as Condition[] | undefined) ?? [];
        const next = gen.conditions(error, timestamp(clock.now()));
        // Keep transition times of unchanged conditions so a re-sync writes nothing.
        status.conditions = next.map((c) => {
          const old = previous.find((p) => p.type === c.type);
          return old && old.status === c.status && old.message === c.message ? old : c;
        });
        status.observedGeneration = o.metadata.generation;
        o.status = status;
      },
      { subresource: "status" },
    );
  }

  function suffixFor(gen: GeneratorKind, cfg: KubeObject, pools: KubeObject[]): string {
    const own = cfg.metadata.annotations?.[SUFFIX_ANNOTATION];
    if (own !== undefined) return own;
    const poolNames = new Set(pools.map((p) => p.metadata.name));
    const others = store
      .list(gen.kind.apiVersion, gen.kind.kind)
      .filter(
        (o) =>
          o.metadata.name !== cfg.metadata.name && poolsFor(o).some((p) => poolNames.has(p.metadata.name)),
      );
    if (others.length === 0) return "";
    const max = Math.max(0, ...others.map((o) => Number(o.metadata.annotations?.[SUFFIX_ANNOTATION] || 0)));
    return String(max + 1);
  }

  function sync(gen: GeneratorKind, name: string): void {
    const cfg = store.get(keyOf(gen.kind, name));
    if (!cfg) return;
    const owned = cfg.metadata.finalizers ?? [];
    if (cfg.metadata.deletionTimestamp) {
      for (const mc of owned) store.delete(keyOf(K.machineConfig, mc));
      store.mutate(keyOf(gen.kind, name), (o) => {
        o.metadata.finalizers = [];
      });
      return;
    }
    const fail = (error: string) => setStatus(gen, name, error);
    const invalid = gen.validate(cfg);
    if (invalid) return fail(invalid);
    const pools = poolsFor(cfg);
    // kubelet_config_controller.go syncKubeletConfig and container_runtime_config_controller.go
    // syncContainerRuntimeConfig: Failure through syncStatusOnly, the kind spelled as each spells it.
    if (pools.length === 0) return fail(`${gen.errorName} ${name} does not match any MachineConfigPools`);
    for (const pool of pools) {
      const problem = gen.validate(cfg, pool);
      if (problem) return fail(problem);
    }
    const suffix = suffixFor(gen, cfg, pools);
    if (cfg.metadata.annotations?.[SUFFIX_ANNOTATION] !== suffix) {
      store.mutate(keyOf(gen.kind, name), (o) => {
        o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [SUFFIX_ANNOTATION]: suffix };
      });
    }
    const files = gen.files(cfg);
    const names: string[] = [];
    for (const pool of pools) {
      const mcName = `99-${pool.metadata.name}-generated-${gen.nameSuffix}${suffix ? `-${suffix}` : ""}`;
      names.push(mcName);
      const spec: Json = {
        config: { ignition: { version: "3.2.0" }, storage: { files } },
        extensions: [],
        fips: false,
        kernelArguments: [],
        kernelType: "",
        osImageURL: "",
      };
      const existing = store.get(keyOf(K.machineConfig, mcName));
      if (!existing) {
        store.create({
          apiVersion: K.machineConfig.apiVersion,
          kind: K.machineConfig.kind,
          metadata: {
            name: mcName,
            labels: { [ROLE_LABEL]: pool.metadata.name },
            annotations: { [GENERATED_BY_ANNOTATION]: CONTROLLER_VERSION },
            ownerReferences: [controllerRef(cfg)],
          },
          spec,
        });
      } else {
        store.mutate(keyOf(K.machineConfig, mcName), (o) => {
          o.spec = spec;
        });
      }
    }
    // MachineConfigs of pools no longer selected go; the finalizers list exactly what we own.
    for (const stale of owned.filter((n) => !names.includes(n))) store.delete(keyOf(K.machineConfig, stale));
    store.mutate(keyOf(gen.kind, name), (o) => {
      o.metadata.finalizers = names;
    });
    setStatus(gen, name, undefined);
  }

  const unsubscribe = store.subscribe(({ object }) => {
    GENERATORS.forEach((gen, i) => {
      if (isKind(object, gen.kind)) queue.add(`${i}/${object.metadata.name}`);
      // A generated MachineConfig edited or deleted by hand is put back by its owner.
      if (isKind(object, K.machineConfig)) {
        for (const ref of object.metadata.ownerReferences ?? []) {
          if (ref.kind === gen.kind.kind) queue.add(`${i}/${ref.name}`);
        }
      }
    });
    if (isKind(object, K.pool)) {
      GENERATORS.forEach((gen, i) => {
        for (const cfg of store.list(gen.kind.apiVersion, gen.kind.kind))
          queue.add(`${i}/${cfg.metadata.name}`);
      });
    }
  });
  GENERATORS.forEach((gen, i) => {
    for (const cfg of store.list(gen.kind.apiVersion, gen.kind.kind)) queue.add(`${i}/${cfg.metadata.name}`);
  });
  return unsubscribe;
}
