import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { loadFixtures } from "./fixtures";
import { installedRootProject } from "./installed";
import { loadProject } from "./project";
import { render, writeRendering } from "./render";

const EXAMPLES = path.resolve(__dirname, "..", "examples");

function filesUnder(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, full)] = fs.readFileSync(full, "utf8");
  }
  return files;
}

describe("render", function () {
  this.timeout(20_000);
  let out: string;
  before(() => {
    out = fs.mkdtempSync(path.join(os.tmpdir(), "render-test-"));
  });
  after(() => fs.rmSync(out, { recursive: true, force: true }));

  for (const example of ["aws-infra-windows", "azure-infra-windows"]) {
    it(`${example}: byte-identical twice, waiters listed, no secret written`, async () => {
      const project = loadProject(path.join(EXAMPLES, example));
      const first = await render(project);
      assert.deepEqual(first.errors, []);
      writeRendering(first, path.join(out, example));
      const firstFiles = filesUnder(path.join(out, example));
      const second = await render(project);
      writeRendering(second, path.join(out, example));
      assert.deepEqual(filesUnder(path.join(out, example)), firstFiles);

      const kinds = first.manifests.map((m) => m.manifest.kind);
      for (const kind of [
        "MachineSet",
        "MachineConfigPool",
        "MachineConfig",
        "Subscription",
        "RuntimeClass",
        "IngressController",
      ]) {
        assert.ok(kinds.includes(kind), `${example} renders a ${kind}`);
      }
      for (const { file, manifest } of first.manifests) {
        assert.deepEqual(parse(firstFiles[file]), manifest, `${file} holds the manifest`);
        // docs/components.md "Hand edits": what the stack declares, up takes back from any hand edit without a 409.
        const annotations = (manifest.metadata as { annotations?: Record<string, string> }).annotations;
        assert.equal(annotations?.["pulumi.com/patchForce"], "true", `${file} is applied with force`);
      }

      assert.deepEqual([...new Set(first.waiters.map((w) => w.type))].sort(), [
        "MachineSetRemoval",
        "NodeConfigRemoval",
        "NodeLabelsAndTaints",
        "OperatorInstall",
        "OperatorRemoval",
        "PatchRelease",
        "PoolRollout",
        "RsaPrivateKey",
        "WindowsNodesReady",
      ]);
      const everything = Object.values(firstFiles).join("\n");
      assert.ok(!everything.includes("render-has-no-credentials"), "no kubeconfig in the output");
      assert.ok(!everything.includes("PRIVATE KEY"));
      assert.match(
        firstFiles["secret/openshift-windows-machine-config-operator/cloud-private-key.yaml"],
        /\[secret\]/,
      );
    });
  }

  it("names files by kind, group, namespace and name, so adding a resource renames nothing", async () => {
    const files = (await render(loadProject(path.join(EXAMPLES, "aws-infra-windows")))).manifests.map(
      (m) => m.file,
    );
    assert.ok(
      files.includes(path.join("machineconfig.machineconfiguration.openshift.io", "99-infra-chrony.yaml")),
    );
    assert.ok(
      files.includes(path.join("configmap", "openshift-monitoring", "cluster-monitoring-config.patch.yaml")),
    );
    const more = await render(
      loadProject(path.join(EXAMPLES, "aws-infra-windows"), "dev", [
        'windowsZones=["us-east-2a","us-east-2b"]',
        "windowsReplicas=2",
      ]),
    );
    const added = more.manifests.map((m) => m.file).filter((f) => !files.includes(f));
    assert.deepEqual(added, [
      path.join(
        "machineset.machine.openshift.io",
        "openshift-machine-api",
        "cluster-zbwlg-cbgq7-windows-worker-us-east-2b.yaml",
      ),
    ]);
  });

  it("the demo's project, laid out as npm run demo installs it, renders the example's manifests", async () => {
    const dir = installedRootProject("render-demo");
    const demo = await render(loadProject(dir));
    fs.rmSync(dir, { recursive: true, force: true });
    assert.deepEqual(demo.errors, []);
    const example = await render(loadProject(path.join(EXAMPLES, "aws-infra-windows")));
    assert.ok(demo.manifests.length > 0);
    assert.deepEqual(demo.manifests, example.manifests);
  });

  it("a lookup the fixtures do not answer is an error that says what to add", async () => {
    const project = loadProject(path.join(EXAMPLES, "aws-infra-windows"));
    const fixtures = loadFixtures(path.join(EXAMPLES, "aws-infra-windows", "fixtures.yaml"));
    const rendering = await render(project, { ...fixtures, invokes: {} });
    assert.match(
      rendering.errors[0],
      /no answer for the cloud lookup aws:ec2\/getAmi:getAmi .*add it to .*fixtures\.yaml under invokes\.aws:ec2\/getAmi:getAmi/,
    );
  });

  it("a program without fixtures.yaml that reads the cluster says which read needs the file", async () => {
    const program = path.join(__dirname, "testdata", "infra-pool");
    const rendering = await render(loadProject(program));
    assert.deepEqual(rendering.errors, [
      "the program reads Infrastructure cluster (config.openshift.io/v1) from the cluster, and without a " +
        `cluster it has no answer: there is no ${path.join(program, "fixtures.yaml")}: write it from your ` +
        "cluster with npm run fixtures -- capture <project dir>, or by hand with this answer under objects, " +
        "or give the component the values it reads (for the cluster facts: infrastructureId, platform, region)",
    ]);
  });

  it("refuses to overwrite a directory it did not write", async () => {
    const foreign = path.join(out, "foreign");
    fs.mkdirSync(foreign, { recursive: true });
    fs.writeFileSync(path.join(foreign, "keep.txt"), "mine");
    assert.throws(
      () => writeRendering({ manifests: [], waiters: [], errors: [] }, foreign),
      /was not written by render/,
    );
  });
});
