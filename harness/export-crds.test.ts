import { clusterAutoscaler, machineAutoscalersForPool } from "../builders/autoscaling";
import { machineHealthCheck } from "../builders/health-check";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fixturesFor } from "./fixtures";
import { CustomObjectsApi, KubeConfig } from "@kubernetes/client-node";
import { parse } from "yaml";
import { KINDS } from "../provider/waiting/kinds";
import { kubectl, kubectlMinorVersion } from "../simulator/apiserver/kubectl";
import { ResourceRegistry } from "../simulator/apiserver/resources";
import { crdDefinition, CrdSchemas } from "../simulator/schema";
import { CLUSTER_CATALOG_CRD, CLUSTER_EXTENSION_CRD } from "../simulator/cluster/olmv1";
import { startSimulator } from "../simulator/simulator";
import { captureConsole } from "../test/console";
import { CRDS, requireReference } from "../test/reference";
import { exportCrds, LIBRARY_CRDS, main } from "./export-crds";
import { loadProject } from "./project";
import { checkRendering, render } from "./render";

/** The CRDs the simulated cluster installs itself (OLM v1's), not loaded from the upstream directory. */
const SEEDED = [CLUSTER_EXTENSION_CRD, CLUSTER_CATALOG_CRD];
const SEEDED_NAMES = SEEDED.map((crd) => crd.metadata.name);

const EXAMPLES = ["aws-infra-windows", "azure-infra-windows"].map((e) =>
  path.resolve(__dirname, "..", "examples", e),
);

describe("crds:export", function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "crds-export-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("lists the CRDs of exactly the custom kinds the examples and the pool options render and read and the waiters watch", async () => {
    const registry = new ResourceRegistry();
    registry.define(
      SEEDED.map((crd) => crdDefinition(crd as Record<string, unknown>, "seeded")),
      new Set(),
    );
    const crdOf = (apiVersion: string, kind: string): string | undefined => {
      const r = registry.byKind(apiVersion, kind);
      assert.ok(r, `the simulator serves ${kind} (${apiVersion})`);
      return r.group === "" || r.builtin ? undefined : `${r.plural}.${r.group}`;
    };
    const used = new Set<string | undefined>(
      Object.values(KINDS).map((k) => crdOf(k.group ? `${k.group}/${k.version}` : k.version, k.kind)),
    );
    for (const example of EXAMPLES) {
      const project = loadProject(example);
      for (const { manifest } of (await render(project)).manifests) {
        used.add(crdOf(String(manifest.apiVersion), String(manifest.kind)));
      }
      for (const object of fixturesFor(project).objects) {
        used.add(crdOf(String(object.apiVersion), String(object.kind)));
      }
    }
    // Autoscaling and health checks, which the examples leave off.
    for (const manifest of [
      clusterAutoscaler(),
      ...machineAutoscalersForPool(["c-infra-us-east-2a"], { minReplicas: 1, maxReplicas: 2 }),
      machineHealthCheck({
        name: "c-infra",
        infrastructureId: "c",
        machineRole: "infra",
        machineSetNames: ["c-infra-us-east-2a"],
      }),
    ]) {
      used.add(crdOf(manifest.apiVersion, manifest.kind));
    }
    used.delete(undefined);
    assert.deepEqual(LIBRARY_CRDS, [...used].sort());
  });

  it("writes the CRDs a cluster serves, which the simulator and render --validate then load", async function () {
    requireReference(this, CRDS);
    const source = await startSimulator({ speed: 1000, crdDir: CRDS.dir });
    let result;
    try {
      result = await exportCrds(source.kubeconfig, dir);
    } finally {
      await source.stop();
    }
    assert.deepEqual(result.missing, []);
    assert.deepEqual(
      result.written,
      LIBRARY_CRDS.map((name) => `${name}.yaml`),
    );
    const upstream: { metadata?: { name?: string }; spec?: unknown }[] = [
      ...CrdSchemas.load(CRDS.dir).definitions.map((d) => d.object),
      ...SEEDED,
    ];
    for (const file of result.written) {
      const exported = parse(fs.readFileSync(path.join(dir, file), "utf8"));
      const original = upstream.find((d) => d.metadata?.name === exported.metadata.name);
      assert.deepEqual(exported.spec, original?.spec, `${file} holds the cluster's definition`);
      assert.deepEqual(exported.metadata.annotations, (original?.metadata as any).annotations);
      for (const added of ["uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"]) {
        assert.ok(!(added in exported.metadata), `${file} has no metadata.${added}`);
      }
      assert.ok(!("status" in exported), `${file} has no status`);
    }

    for (const example of EXAMPLES) {
      const { checked, invalid } = checkRendering(await render(loadProject(example)), CrdSchemas.load(dir));
      assert.deepEqual(invalid, []);
      assert.ok(checked >= 10, `${checked} manifests of ${example} checked`);
    }

    const sim = await startSimulator({ speed: 1000, crdDir: dir });
    try {
      const kc = new KubeConfig();
      kc.loadFromString(sim.kubeconfig);
      const invalid = await kc
        .makeApiClient(CustomObjectsApi)
        .createClusterCustomObject({
          group: "machineconfiguration.openshift.io",
          version: "v1",
          plural: "machineconfigpools",
          body: {
            apiVersion: "machineconfiguration.openshift.io/v1",
            kind: "MachineConfigPool",
            metadata: { name: "x" },
            spec: { paused: "yes" },
          },
        })
        .then(
          () => undefined,
          (e: { code?: number }) => e.code,
        );
      assert.equal(invalid, 422, "the simulator validates with the exported CRDs");
      if (kubectlMinorVersion() !== undefined) {
        const listed = await kubectl(sim.kubeconfigPath, ["get", "crd", "-o", "name"]);
        assert.equal(listed.code, 0, listed.stderr);
        assert.deepEqual(
          listed.stdout.trim().split("\n"),
          [...new Set([...LIBRARY_CRDS, ...SEEDED_NAMES])]
            .sort()
            .map((name) => `customresourcedefinition.apiextensions.k8s.io/${name}`),
        );
        const established = await kubectl(sim.kubeconfigPath, [
          ...["wait", "--for=condition=Established", "--timeout=5s"],
          ...LIBRARY_CRDS.map((name) => `crd/${name}`),
        ]);
        assert.equal(established.code, 0, established.stderr);
      }
    } finally {
      await sim.stop();
    }
  });

  it("names the CRDs a cluster does not serve and exits non-zero; reads $KUBECONFIG's files merged", async () => {
    const sim = await startSimulator({ speed: 1000, crdDir: false });
    // As kubectl: a missing file is skipped, the next one's cluster is used.
    const ambient = process.env.KUBECONFIG;
    process.env.KUBECONFIG = [path.join(dir, "missing"), sim.kubeconfigPath].join(path.delimiter);
    const { result, output } = await captureConsole(() => main(["--out", dir])).finally(() => {
      process.env.KUBECONFIG = ambient;
      return sim.stop();
    });
    assert.equal(result, 1);
    const absent = LIBRARY_CRDS.filter((name) => !SEEDED_NAMES.includes(name));
    for (const name of absent) assert.ok(output.includes(`✗ the cluster serves no CRD ${name}\n`), output);
    // The simulated cluster installs OLM v1's CRDs itself, with or without the upstream directory.
    assert.deepEqual(
      fs.readdirSync(dir),
      LIBRARY_CRDS.filter((name) => SEEDED_NAMES.includes(name)).map((name) => `${name}.yaml`),
    );
  });
});
