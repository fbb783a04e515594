/**
 * `openshift-topology fixtures capture <project dir> [--kubeconfig FILE] [--stack dev] [--config
 * key=value] [--out FILE]`: the fixtures file `render` and the testing mocks answer from, read from a
 * live cluster. The program runs as `pulumi preview` runs it (under mocks, nothing is applied), and
 * every object it reads is kept: the engine's reads (the Infrastructure `cluster`, the installer's
 * worker MachineSets) and the ones the components make themselves for the preview (pools, node
 * configuration, MachineConfiguration `cluster`, MachineSets and their Machines, PackageManifests, the
 * objects an adoption looks for). So the file holds what this program needs of this cluster, not a
 * dump. Nothing secret lands in it: Secrets without their data, MachineConfig files that hold a
 * credential (a pull secret, a kubeconfig, a private key) as a digest of their content, no
 * last-applied annotation. Cloud lookups cannot be read from a cluster: the `invokes` of an existing
 * file are kept and answer them. Same cluster, same program: byte-identical file.
 */
import type * as pulumi from "@pulumi/pulumi";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { type ClusterSnapshot, readCluster } from "../components/cluster/cluster-snapshot";
import { type ApiClient, createApiClient } from "../provider/waiting/api";
import { KINDS, type KubeObject, type ResourceKind } from "../provider/waiting/kinds";
import { decodeDataUrl } from "../builders/machineconfiguration";
import { commandLine, clusterKubeconfig, runCommand } from "./cli";
import {
  answerInvoke,
  apiVersionOf,
  armAnswers,
  Fixtures,
  interceptArm,
  loadFixtures,
  noFixtures,
} from "./fixtures";
import { kubeType } from "./kube-type";
import { loadProject, programDir } from "./project";
import { evaluate, HarnessMocks, HarnessResourceArgs } from "./runtime";
import { holdsCredentials, reveal } from "./secrets";

/** The kinds whose status the components read (the facts, a pool's pending rollout, a catalog's channels). */
const STATUS_READ = new Set(["Infrastructure", "MachineConfigPool", "PackageManifest"]);

/** Metadata that differs between two reads of the same state, or that the API server alone sets. */
const VOLATILE = ["managedFields", "resourceVersion", "uid", "creationTimestamp", "generation", "selfLink"];
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** The kind a read names by apiVersion and kind: a known one, else its plural as the API names most. */
function resourceKind(apiVersion: string, kind: string, namespaced: boolean): ResourceKind {
  const known = Object.values(KINDS).find((k) => apiVersionOf(k) === apiVersion && k.kind === kind);
  if (known) return known;
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  return { group, version, kind, plural: `${kind.toLowerCase()}s`, namespaced };
}

/** A MachineConfig file's content as a digest, when it holds a credential: compared as the content is. */
function withoutCredentials(file: { contents?: { source?: string } }): unknown {
  const source = file.contents?.source;
  if (typeof source !== "string") return file;
  const decoded = decodeDataUrl(source);
  if ("error" in decoded || !holdsCredentials(decoded.data.toString("utf8"))) return file;
  const digest = createHash("sha256").update(source).digest("hex");
  return { ...file, contents: { ...file.contents, source: `data:,redacted%20sha256%3A${digest}` } };
}

/** The object as the fixtures keep it: what the program reads of it, nothing volatile, nothing secret. */
export function forFixtures(kind: ResourceKind, object: KubeObject): KubeObject {
  const metadata: KubeObject["metadata"] & Record<string, unknown> = { ...object.metadata };
  for (const key of VOLATILE) delete metadata[key];
  const annotations = { ...(metadata.annotations as Record<string, string> | undefined) };
  delete annotations[LAST_APPLIED];
  if (Object.keys(annotations).length > 0) metadata.annotations = annotations;
  else delete metadata.annotations;
  const { apiVersion: _a, kind: _k, metadata: _m, status, ...rest } = object;
  if (kind === KINDS.secret) {
    delete rest.data;
    delete rest.stringData;
  }
  const kept: KubeObject = { apiVersion: apiVersionOf(kind), kind: kind.kind, metadata, ...rest };
  if (STATUS_READ.has(kind.kind) && status !== undefined) kept.status = status;
  if (kind === KINDS.machineConfig) {
    const config = (rest.spec as { config?: { storage?: { files?: unknown[] } } } | undefined)?.config;
    const files = config?.storage?.files;
    if (files) {
      const storage = { ...config!.storage, files: files.map((f) => withoutCredentials(f as object)) };
      kept.spec = { ...(rest.spec as object), config: { ...config, storage } };
    }
  }
  if (kind === KINDS.packageManifest) kept.status = withoutIcons(kept.status);
  return kept;
}

/** A PackageManifest's status without the CSVs' icons: images of kilobytes that no check reads. */
function withoutIcons(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIcons);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== "icon")
      .map(([key, v]) => [key, withoutIcons(v)]),
  );
}

/** What a capture has read: each object once, by kind, namespace and name. */
class Captured {
  private readonly objects = new Map<string, KubeObject>();

  keep(kind: ResourceKind, object: KubeObject | undefined): void {
    if (!object) return;
    const kept = forFixtures(kind, object);
    const meta = kept.metadata;
    this.objects.set([kept.apiVersion, kept.kind, meta.namespace ?? "", meta.name].join("\u0000"), kept);
  }

  /** In a fixed order: by apiVersion, kind, namespace and name. */
  list(): KubeObject[] {
    return [...this.objects.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
  }

  /** `cluster` with every object it answers kept. */
  recording(cluster: ClusterSnapshot): ClusterSnapshot {
    const one = async (kind: ResourceKind, read: Promise<KubeObject | undefined>) => {
      const object = await read;
      this.keep(kind, object);
      return object;
    };
    const many = async (kind: ResourceKind, read: Promise<KubeObject[]>) => {
      const objects = await read;
      for (const object of objects) this.keep(kind, object);
      return objects;
    };
    return {
      unreachableBecause: () => cluster.unreachableBecause(),
      machineConfiguration: () => one(KINDS.machineConfiguration, cluster.machineConfiguration()),
      pool: (name) => one(KINDS.pool, cluster.pool(name)),
      objects: (kind) => many(kind, cluster.objects(kind)),
      machineConfig: (name) => one(KINDS.machineConfig, cluster.machineConfig(name)),
      machineSets: () => many(KINDS.machineSet, cluster.machineSets()),
      machines: (sets) => many(KINDS.machine, cluster.machines(sets)),
      objectsIn: (kind, namespace) => many(kind, cluster.objectsIn(kind, namespace)),
      object: (kind, name, namespace) => one(kind, cluster.object(kind, name, namespace)),
    };
  }
}

/** The engine's reads answered from the live cluster and kept; lookups from the existing fixtures. */
class CaptureMocks implements HarnessMocks {
  private readonly client: ApiClient;

  constructor(
    kubeconfig: string,
    private readonly captured: Captured,
    private readonly existing: Fixtures,
  ) {
    this.client = createApiClient(kubeconfig);
  }

  call(args: pulumi.runtime.MockCallArgs): Record<string, unknown> {
    return answerInvoke(this.existing, args.token, reveal(args.inputs) as Record<string, unknown>);
  }

  async newResource(args: HarnessResourceArgs): Promise<pulumi.runtime.MockResourceResult> {
    if (args.id) {
      const k8s = kubeType(args.type);
      if (!k8s) throw new Error(`${args.name}: a capture reads Kubernetes objects only, not ${args.type}`);
      const [namespace, name] = args.id.includes("/") ? args.id.split("/", 2) : [undefined, args.id];
      const kind = resourceKind(k8s.apiVersion, k8s.kind, namespace !== undefined);
      const object = await this.client.get(kind, name, namespace);
      if (!object)
        throw new Error(
          `the program reads ${k8s.kind} ${args.id} (${k8s.apiVersion}), which the cluster does not have`,
        );
      this.captured.keep(kind, object);
      return { id: args.id, state: object };
    }
    return { id: args.custom ? `${args.name}-captured` : undefined, state: args.custom ? args.inputs : {} };
  }
}

const USAGE = () =>
  `usage: ${commandLine("fixtures")} capture <project dir> [--kubeconfig FILE] [--stack dev] [--config key=value]... [--out FILE]`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      kubeconfig: { type: "string" },
      stack: { type: "string", default: "dev" },
      config: { type: "string", multiple: true, default: [] },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE());
    return 0;
  }
  const [action, location, ...extra] = positionals;
  if (action !== "capture" || !location || extra.length > 0) throw new Error(USAGE());
  const project = loadProject(location, values.stack, values.config);
  const out = path.resolve(values.out ?? path.join(programDir(project), "fixtures.yaml"));
  const existing = fs.existsSync(out) ? loadFixtures(out) : noFixtures(out);
  const [kubeconfigPath, source] = clusterKubeconfig(values.kubeconfig);
  const kubeconfig = fs.readFileSync(kubeconfigPath, "utf8");
  const captured = new Captured();
  // The cloud's answers are not the cluster's: lookups and Resource Manager requests from the file's.
  const restore = interceptArm(armAnswers(existing));
  const { errors } = await evaluate(project, new CaptureMocks(kubeconfig, captured, existing), {
    kubeconfigPath,
    preview: true,
    clusterReads: () => captured.recording(readCluster(kubeconfig)),
  }).finally(restore);
  if (errors.length > 0) {
    for (const error of errors) console.error(`error: ${error.message}`);
    return 1;
  }
  const objects = captured.list();
  const text = [
    `# What ${project.name} (stack ${values.stack}) reads of its cluster, written by ${commandLine("fixtures")} capture;`,
    "# read by render and by @openshift-topology/pulumi/testing. Secrets are left out; cloud lookups are under invokes",
    "# and arm (Resource Manager requests), kept from the file this one replaced.",
    stringify(
      {
        objects,
        ...(Object.keys(existing.invokes).length > 0 ? { invokes: existing.invokes } : {}),
        ...(existing.arm ? { arm: existing.arm } : {}),
      },
      { lineWidth: 0 },
    ),
  ].join("\n");
  fs.writeFileSync(out, text);
  console.log(
    `${objects.length} objects the program reads, from the cluster of ${kubeconfigPath} (${source}), written to ${path.relative(process.cwd(), out) || out}`,
  );
  return 0;
}

if (require.main === module) runCommand(main);
