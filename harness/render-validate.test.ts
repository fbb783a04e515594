import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { captureConsole } from "../test/console";
import { CRDS, requireReference } from "../test/reference";
import { main } from "./render";

const EXAMPLES = path.resolve(__dirname, "..", "examples");

describe("render against the upstream CRDs", function () {
  this.timeout(20_000);
  let out: string;
  before(function () {
    requireReference(this, CRDS);
    out = fs.mkdtempSync(path.join(os.tmpdir(), "render-validate-test-"));
  });
  after(() => out && fs.rmSync(out, { recursive: true, force: true }));

  it("--validate reports every violation and pruned field per file and exits non-zero on any", async function () {
    // Four renders of the example, the first loading the library: no earlier test of the file warms it.
    this.timeout(120_000);
    const crds = path.join(out, "crds");
    fs.mkdirSync(crds);
    for (const file of fs.readdirSync(CRDS.dir).filter((f) => /\.ya?ml$/.test(f))) {
      if (file.startsWith("subscriptions.")) continue;
      const text = fs.readFileSync(path.join(CRDS.dir, file), "utf8");
      if (!file.startsWith("machineconfigpools.")) {
        fs.writeFileSync(path.join(crds, file), text);
        continue;
      }
      // A cluster whose pools know no nodeSelector, and want machineConfigSelector as a string.
      const crd = parseAllDocuments(text)[0].toJS();
      for (const version of crd.spec.versions) {
        const spec = version.schema.openAPIV3Schema.properties.spec.properties;
        delete spec.nodeSelector;
        spec.machineConfigSelector = { type: "string" };
      }
      fs.writeFileSync(path.join(crds, file), stringify(crd));
    }
    const run = async (crdDir: string) => {
      const { result, output } = await captureConsole(() =>
        main([
          path.join(EXAMPLES, "aws-infra-windows"),
          ...["--out", path.join(out, "validated"), "--validate", crdDir],
        ]),
      );
      return { code: result, output };
    };

    const bad = await run(crds);
    assert.equal(bad.code, 1);
    const pool = path.join("machineconfigpool.machineconfiguration.openshift.io", "infra.yaml");
    const subscription = path.join(
      "subscription.operators.coreos.com",
      "openshift-windows-machine-config-operator",
      "windows-machine-config-operator.yaml",
    );
    assert.ok(
      bad.output.includes(
        `✗ ${pool}\n    spec.machineConfigSelector.matchExpressions: unknown field, the server would prune it\n    spec.nodeSelector: unknown field, the server would prune it\n    spec.machineConfigSelector: Invalid value: "object": spec.machineConfigSelector in body must be of type string: "object"\n` +
          // As kube-apiserver says when a schema error keeps the CRD's CEL rules from running.
          `    <nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation`,
      ),
      bad.output,
    );
    assert.ok(
      bad.output.includes(
        `✗ ${subscription}\n    no CRD serves Subscription (operators.coreos.com/v1alpha1)`,
      ),
      bad.output,
    );
    assert.match(bad.output, /11 CRD-backed manifests checked against the CRDs in .*: 5 problems in 2 files/);

    await assert.rejects(run(path.join(out, "absent")), /--validate: no directory .*absent/);
    fs.mkdirSync(path.join(out, "empty"));
    await assert.rejects(run(path.join(out, "empty")), /--validate: no CustomResourceDefinition in .*empty/);

    const good = await run(CRDS.dir);
    assert.equal(good.code, 0, good.output);
    assert.match(good.output, /11 CRD-backed manifests checked .*: all valid, nothing pruned/);
  });
});
