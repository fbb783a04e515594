import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parse } from "yaml";
import { assertMatchesCrd } from "../test/crd-schemas";
import { loadFixtures } from "./fixtures";
import { loadProject } from "./project";
import { render, writeRendering } from "./render";

const EXAMPLES = path.resolve(__dirname, "..", "examples");
/** Core kinds have no CRD; the API server's built-in validation covers them. */
const CORE_KINDS = new Set(["ConfigMap", "Namespace", "Secret", "RuntimeClass"]);

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
    it(`${example}: byte-identical twice, every CRD-backed manifest valid, waiters listed, no secret written`, async () => {
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
      let validated = 0;
      for (const { file, manifest, patch } of first.manifests) {
        const written = parse(firstFiles[file]) as Record<string, unknown>;
        assert.deepEqual(written, manifest, `${file} holds the manifest`);
        if (CORE_KINDS.has(String(manifest.kind))) continue;
        assertMatchesCrd(written, { patch });
        validated++;
      }
      assert.ok(validated >= 10, `${validated} manifests validated`);

      assert.deepEqual([...new Set(first.waiters.map((w) => w.type))].sort(), [
        "MachineSetReady",
        "MachineSetRemoval",
        "NodeConfigRemoval",
        "OperatorInstall",
        "OperatorRemoval",
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

  it("a lookup the fixtures do not answer is an error that says what to add", async () => {
    const project = loadProject(path.join(EXAMPLES, "aws-infra-windows"));
    const fixtures = loadFixtures(path.join(EXAMPLES, "aws-infra-windows", "fixtures.yaml"));
    const rendering = await render(project, { ...fixtures, invokes: {} });
    assert.match(
      rendering.errors[0],
      /has no answer for invoke aws:ec2\/getAmi:getAmi .*add one under invokes\.aws:ec2\/getAmi:getAmi/,
    );
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
