/**
 * `npm run crds:export -- --out DIR [--kubeconfig FILE]`: writes the CustomResourceDefinitions of the kinds
 * this library renders or reads, as the user's own cluster serves them, one `<name>.yaml` each. The
 * directory is what the simulator (`--crds`), `npm run render -- <example> --validate` and the tests
 * (`OPENSHIFT_CRDS_DIR`) read, so manifests are checked against exactly the OpenShift version in use.
 * The CRDs are read with the waiters' own API client (credentials, TLS and retries as when waiting).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { createApiClient, describeApiError } from "../provider/waiting";
import { KINDS, KubeObject, ResourceKind } from "../provider/waiting/kinds";
import { withRetry } from "../provider/waiting/retry";
import { ambientKubeconfig } from "../provider/dynamic/credentials";
import { commandLine, runCommand } from "./cli";

/**
 * Groups an aggregated API server serves, not a CRD: OLM's package server answers PackageManifests
 * (olm's pkg/package-server, registered by an APIService), which the catalog check at preview reads.
 */
const AGGREGATED_GROUPS = ["packages.operators.coreos.com"];

/** kube-apiserver's own groups without a `.k8s.io` suffix (Deployments are read by the operator wait). */
const KUBE_GROUPS = ["", "apps", "batch", "autoscaling", "policy"];

/**
 * The CRDs of the kinds the library renders or reads: those its waiters watch (`KINDS`, Kubernetes'
 * own kinds aside: the core group, `apps` and the `*.k8s.io` groups kube-apiserver serves, RuntimeClass's
 * `node.k8s.io` among them, and the aggregated APIs above), and those only its components render or read: the OperatorGroup of an operator install, the
 * Infrastructure holding the cluster facts, the IngressController and image registry Config the
 * infra placement patches, and the autoscalers and health checks of pools. A test holds this list to
 * what the examples and those pool options render and read.
 */
export const LIBRARY_CRDS: readonly string[] = [
  ...new Set([
    ...Object.values(KINDS)
      .filter(
        (k) =>
          !KUBE_GROUPS.includes(k.group) &&
          !k.group.endsWith(".k8s.io") &&
          !AGGREGATED_GROUPS.includes(k.group),
      )
      .map((k) => `${k.plural}.${k.group}`),
    "operatorgroups.operators.coreos.com",
    "infrastructures.config.openshift.io",
    "ingresscontrollers.operator.openshift.io",
    "configs.imageregistry.operator.openshift.io",
    "clusterautoscalers.autoscaling.openshift.io",
    "machineautoscalers.autoscaling.openshift.io",
    "machinehealthchecks.machine.openshift.io",
  ]),
].sort();

const CRD: ResourceKind = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};

/** The definition without what the server adds to it (status, uid, resourceVersion, managed fields). */
function definitionOf(crd: KubeObject): Record<string, unknown> {
  const { name, labels, annotations } = crd.metadata;
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name, ...(labels ? { labels } : {}), ...(annotations ? { annotations } : {}) },
    spec: crd.spec,
  };
}

export interface CrdExport {
  /** Files written, `<name>.yaml` under the output directory. */
  written: string[];
  /** CRD names the cluster does not serve. */
  missing: string[];
}

/** Reads the named CRDs from the cluster of `kubeconfig` (its content) and writes them into `outDir`. */
export async function exportCrds(
  kubeconfig: string,
  outDir: string,
  names: readonly string[] = LIBRARY_CRDS,
): Promise<CrdExport> {
  const client = createApiClient(kubeconfig);
  const crds = await Promise.all(
    names.map((name) => withRetry(() => client.get(CRD, name), { timeoutMs: 60_000 })),
  );
  fs.mkdirSync(outDir, { recursive: true });
  const result: CrdExport = { written: [], missing: [] };
  names.forEach((name, i) => {
    const crd = crds[i];
    if (!crd) {
      result.missing.push(name);
      return;
    }
    const file = `${name}.yaml`;
    fs.writeFileSync(path.join(outDir, file), stringify(definitionOf(crd), { lineWidth: 0 }));
    result.written.push(file);
  });
  return result;
}

const USAGE = () => `usage: ${commandLine("crds:export")} --out DIR [--kubeconfig FILE]
Writes the CRDs of the kinds this library renders or reads from the cluster of FILE (default: the
files of $KUBECONFIG merged as kubectl does, else ~/.kube/config) into DIR.`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: "string" },
      kubeconfig: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE());
    return 0;
  }
  if (!values.out || positionals.length > 0) throw new Error(USAGE());
  // Without --kubeconfig, every $KUBECONFIG entry merged, as kubectl reads them.
  const { file, text } = values.kubeconfig
    ? { file: values.kubeconfig, text: fs.readFileSync(values.kubeconfig, "utf8") }
    : ambientKubeconfig();
  if (text === undefined) throw new Error(`no kubeconfig could be read at ${file}: pass --kubeconfig FILE`);
  const outDir = path.resolve(values.out);
  let result: CrdExport;
  try {
    result = await exportCrds(text, outDir);
  } catch (error) {
    throw new Error(`reading CRDs with ${file}: ${describeApiError(error)}`, { cause: error });
  }
  for (const file of result.written) console.log(`  ${file}`);
  for (const name of result.missing) console.error(`✗ the cluster serves no CRD ${name}`);
  console.log(`${result.written.length} of ${LIBRARY_CRDS.length} CRDs written to ${outDir}; use them with
  ${commandLine("sim")} --crds ${outDir}
  ${commandLine("render")} <project dir> --validate ${outDir}
  OPENSHIFT_CRDS_DIR=${outDir} npm test`);
  return result.missing.length === 0 ? 0 : 1;
}

if (require.main === module) {
  runCommand(main);
}
