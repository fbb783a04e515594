/**
 * #36 §3: everything the examples and the harness's test programs declare is admitted by a real
 * cluster's API server. Each program is rendered (no engine, no cluster: the seeded simulator's objects
 * answer its reads) and each custom resource it declares is applied to a fresh simulator API server with
 * the upstream CRDs as pulumi-kubernetes applies it: server-side apply (a patch onto the object the
 * cluster already has), `fieldValidation=Strict`. So it passes the CRD's schema, its CEL validation
 * rules (x-kubernetes-validations, which the simulator once skipped) and machine-api's webhooks, and
 * nothing of it is pruned, exactly as kube-apiserver and machine-api-operator would decide.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { seedCluster } from "../simulator/cluster/seed";
import { startTestServer, type TestServer } from "../simulator/apiserver/testing";
import { CrdSchemas } from "../simulator/schema";
import { MemoryStore } from "../simulator/store/memory-store";
import type { KubeObject } from "../simulator/store/types";
import { CRDS, requireReference } from "../test/reference";
import { Fixtures, fixturesFor } from "./fixtures";
import { loadProject } from "./project";
import { render } from "./render";

const ROOT = path.resolve(__dirname, "..");

interface Program {
  dir: string;
  platform: "aws" | "azure";
  /** Config (key=value) that makes it declare what its tests make it declare. */
  config?: string[];
}

/**
 * Each program with the options its tests use, merged where they combine, so that each kind it can
 * declare is. Left out: cluster-in-stack, whose kubeconfig comes from a resource of its own stack (render
 * creates none) and which declares what infra-pool does; broken-provider, init-failure, ignore-changes
 * and strict-kube, which declare no custom resource; the Python and YAML versions of the AWS example,
 * which declare what it does through the component package.
 */
const PROGRAMS: Program[] = [
  { dir: "examples/aws-infra-windows", platform: "aws" },
  {
    dir: "examples/azure-infra-windows",
    platform: "azure",
    config: [
      'infraNodeLabels={"example.com/team":"logging"}',
      'infraTaints=[{"key":"example.com/dedicated","value":"logging","effect":"NoSchedule"}]',
      "windowsReplicas=3",
    ],
  },
  {
    dir: "harness/testdata/infra-pool",
    platform: "aws",
    config: ["maxPods=110", "edge=true", "operator=true", "extension=true", "bootImageOwner=stack"],
  },
  {
    dir: "harness/testdata/infra-pool",
    platform: "aws",
    config: ["instanceType=m6i.2xlarge", "maxSurge=1", "maxUnavailable=0"],
  },
  { dir: "harness/testdata/infra-pool", platform: "aws", config: ["autoscale=true"] },
  { dir: "harness/testdata/autoscaled-pool", platform: "aws" },
  { dir: "harness/testdata/deploy-cli", platform: "aws", config: ["motd=hello"] },
  { dir: "harness/testdata/existing-autoscaler", platform: "aws" },
  {
    dir: "harness/testdata/node-change",
    platform: "aws",
    config: ["name=99-worker-motd", "path=/etc/motd", "text=hello"],
  },
  { dir: "harness/testdata/other-components", platform: "aws" },
  {
    dir: "harness/testdata/two-clusters",
    platform: "aws",
    config: [
      `clusterA=${fs.readFileSync(path.join(__dirname, "render-kubeconfig.yaml"), "utf8")}`,
      "workerConfig=true",
    ],
  },
  {
    dir: "harness/testdata/windows-pool",
    platform: "aws",
    config: ["healthCheck=true", "replace=true", "replicas=2"],
  },
  { dir: "harness/testdata/worker-config", platform: "aws" },
];

/** Kinds whose CRD an operator the program subscribes to installs at run time, not the cluster. */
const FROM_OPERATORS = new Set(["local.storage.openshift.io/v1 LocalVolume"]);

/** The seeded cluster's objects, as fixtures answering a program's reads (the test programs have none of their own). */
function seeded(platform: Program["platform"], store: MemoryStore): Fixtures {
  const objects: KubeObject[] = [];
  const create = store.create.bind(store);
  store.create = (object) => {
    objects.push(object);
    return create(object);
  };
  seedCluster(store, { platform });
  store.create = create;
  return { file: `the seeded ${platform} simulator`, objects, invokes: {} };
}

/** Kubernetes serves these groups itself (core, `apps`, `*.k8s.io`): no CRD defines their kinds. */
const builtin = (apiVersion: string) => !apiVersion.includes(".") || /^[^/]*\.k8s\.io\//.test(apiVersion);

describe("every object the examples and test programs declare, applied to the simulator with the upstream CRDs", function () {
  this.timeout(120_000);
  before(function () {
    requireReference(this, CRDS);
  });

  for (const program of PROGRAMS) {
    // A kubeconfig given as config is named, not printed.
    const options = program.config?.map((c) => (c.includes("\n") ? `${c.split("=")[0]}=<kubeconfig>` : c));
    const title = `${program.dir}${options ? ` (${options.join(", ")})` : ""}`;
    it(`${title}: admitted, nothing pruned, no warning`, async function () {
      const store = new MemoryStore();
      const clusterFixtures = seeded(program.platform, store);
      const project = loadProject(path.join(ROOT, program.dir), "dev", program.config ?? []);
      const own = fixturesFor(project);
      const rendering = await render(project, own.missing ? clusterFixtures : own);
      assert.deepEqual(rendering.errors, []);
      const t = await startTestServer({
        store,
        namespaces: [],
        schemas: CrdSchemas.load(CRDS.dir),
      });
      try {
        const refused: string[] = [];
        let applied = 0;
        const ordered = [...rendering.manifests].sort(
          (a, b) => Number(b.manifest.kind === "Namespace") - Number(a.manifest.kind === "Namespace"),
        );
        for (const { file, manifest } of ordered) {
          const apiVersion = String(manifest.apiVersion);
          if (manifest.kind !== "Namespace" && builtin(apiVersion)) continue;
          if (FROM_OPERATORS.has(`${apiVersion} ${String(manifest.kind)}`)) continue;
          const answer = await applyTo(t, manifest);
          applied++;
          if (answer.status >= 300 || answer.warning)
            refused.push(`${file}: ${answer.status} ${answer.message ?? ""} ${answer.warning ?? ""}`.trim());
        }
        assert.deepEqual(refused, []);
        assert.ok(applied > 0, "the program declares custom resources");
      } finally {
        await t.stop();
      }
    });
  }
});

/** The resource path of a kind, from the server's discovery (as a client finds it). */
async function resourcePath(t: TestServer, manifest: Record<string, unknown>): Promise<string> {
  const apiVersion = String(manifest.apiVersion);
  const base = apiVersion.includes("/") ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const list = (await t.request("GET", base)).json() as {
    resources: Array<{ name: string; kind: string; namespaced: boolean }>;
  };
  const resource = list.resources?.find((r) => r.kind === manifest.kind && !r.name.includes("/"));
  assert.ok(resource, `the server serves ${String(manifest.kind)} (${apiVersion})`);
  const meta = manifest.metadata as { name: string; namespace?: string };
  const namespace = resource.namespaced ? `/namespaces/${meta.namespace ?? "default"}` : "";
  return `${base}${namespace}/${resource.name}/${meta.name}`;
}

/** Server-side apply, as pulumi-kubernetes applies (and patches), with strict field validation. */
async function applyTo(t: TestServer, manifest: Record<string, unknown>) {
  const url = `${await resourcePath(t, manifest)}?fieldManager=pulumi-kubernetes&force=true&fieldValidation=Strict`;
  const answer = await t.request("PATCH", url, {
    body: manifest,
    contentType: "application/apply-patch+yaml",
  });
  return {
    status: answer.status,
    message: (answer.json() as { message?: string }).message,
    warning: answer.headers.warning,
  };
}
