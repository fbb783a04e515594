import * as assert from "node:assert/strict";
import {
  diagnosticsLines,
  errorLine,
  outputLines,
  planLines,
  poolLines,
  resourceLines,
  stepLine,
} from "./display";
import { UNKNOWN } from "./engine/rpc";
import { Redactor, secret } from "./secrets";
import { table } from "./view";

const STACK = "urn:pulumi:dev::shop::pulumi:pulumi:Stack::shop-dev";
const POOL = "urn:pulumi:dev::shop::openshift-topology:index:InfraNodePool::infra";
const MC = "urn:pulumi:dev::shop::openshift-topology:index:MachineConfig::99-infra-chrony";

describe("deploy command display (the Pulumi CLI's non-interactive shape)", () => {
  it("groups info and warning diagnostics per resource, errors under the failed resource and its component", () => {
    const lines = diagnosticsLines(
      [
        {
          severity: "info",
          urn: MC,
          message: "pool infra: new render; 3 nodes drain and reboot, 1 at a time",
        },
        { severity: "debug", urn: MC, message: "RegisterResource RPC prepared" },
        { severity: "warning", urn: POOL, message: "rollout impact unknown: the cluster does not answer" },
        {
          severity: "info",
          urn: MC,
          message: "pool infra: new render; 3 nodes drain and reboot, 1 at a time",
        },
        { severity: "info", urn: "", message: "two lines\nof text" },
      ],
      [
        {
          type: "pulumi-nodejs:dynamic:PoolRollout",
          name: "99-infra-chrony-rollout",
          parent: MC,
          message: "PoolRollout 99-infra-chrony-rollout: node ip-1 degraded: read-only file system",
        },
      ],
      ['InfraNodePool "edge": zones[0]: "us-east-2x" is not a zone of us-east-2'],
      { project: "shop", stack: "dev" },
    );
    assert.deepEqual(lines, [
      "Diagnostics:",
      "  openshift-topology:index:MachineConfig (99-infra-chrony):",
      "    pool infra: new render; 3 nodes drain and reboot, 1 at a time",
      "",
      "  openshift-topology:index:InfraNodePool (infra):",
      "    warning: rollout impact unknown: the cluster does not answer",
      "",
      "  pulumi:pulumi:Stack (shop-dev):",
      "    two lines",
      "    of text",
      '    error: InfraNodePool "edge": zones[0]: "us-east-2x" is not a zone of us-east-2',
      "",
      "  pulumi-nodejs:dynamic:PoolRollout (99-infra-chrony-rollout) in MachineConfig 99-infra-chrony:",
      "    error: node ip-1 degraded: read-only file system",
      "",
    ]);
    assert.deepEqual(diagnosticsLines([], [], [], { project: "shop", stack: "dev" }), []);
  });

  it("says, of a preview's diagnostics, what each pool's nodes go through: no status, debug or error line", () => {
    const urn = "urn:pulumi:dev::p::openshift-topology:index:KubeletConfig::k";
    const impact = "pool infra: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min";
    assert.deepEqual(
      poolLines([
        { severity: "info", message: "MachineSet c-infra-us-east-2a: subnet from worker MachineSet", urn },
        { severity: "info", message: impact, urn },
        {
          severity: "warning",
          message: "pool worker: rollout impact unknown: the cluster does not answer",
          urn,
        },
        { severity: "info", message: "pool infra: 1/3 updated -> rendered-infra-1a2b", urn, ephemeral: true },
        { severity: "debug", message: "pool infra: read 3 nodes", urn },
        { severity: "error", message: "pool infra: degraded", urn },
      ]),
      [impact, "pool worker: rollout impact unknown: the cluster does not answer"],
    );
  });

  it("names the component first in an error line; a resource of the stack itself has none", () => {
    const failure = {
      type: "pulumi-nodejs:dynamic:PoolRollout",
      name: "r",
      message: "PoolRollout r: failed",
    };
    assert.equal(
      errorLine({ ...failure, parent: MC }),
      "error: MachineConfig 99-infra-chrony: PoolRollout r: failed",
    );
    assert.equal(errorLine({ ...failure, parent: STACK }), "error: PoolRollout r: failed");
  });

  it("prints outputs aligned, lists and maps spread, secrets and unknowns as placeholders", () => {
    assert.deepEqual(
      outputLines({
        machineSets: ["a", "b"],
        key: secret("-----BEGIN RSA PRIVATE KEY-----"),
        facts: { region: "us-east-2", zones: [] },
        ready: UNKNOWN,
        count: 3,
        hidden: { secret: true },
      }),
      [
        "Outputs:",
        "    machineSets: [",
        '        [0]: "a"',
        '        [1]: "b"',
        "    ]",
        "    key        : [secret]",
        "    facts      : {",
        '        region: "us-east-2"',
        "        zones : []",
        "    }",
        "    ready      : [unknown]",
        "    count      : 3",
        "    hidden     : [secret]",
        "",
      ],
    );
    assert.deepEqual(outputLines({}), []);
  });

  it("lists steps as planned or as they happen, and counts them as the CLI's Resources section", () => {
    assert.deepEqual(
      planLines([
        { op: "same", urn: MC, type: "t:a", name: "a", diffs: [] },
        { op: "update", urn: MC, type: "t:b", name: "b", diffs: ["spec", "metadata"] },
        { op: "replace", urn: MC, type: "t:c", name: "c", diffs: [] },
      ]),
      [" ~  t:b b update [diff: ~spec, ~metadata]", " +- t:c c replace"],
    );
    const event = { operation: "delete" as const, type: "t:d", name: "d" };
    assert.equal(stepLine({ ...event, phase: "start" }), " -  t:d d deleting");
    assert.equal(stepLine({ ...event, phase: "done" }, 1234), " -  t:d d deleted (1.2s)");
    assert.equal(stepLine({ ...event, phase: "failed" }, 50), " -  t:d d deleting failed (0.1s)");
    assert.deepEqual(resourceLines("preview", { create: 3, replace: 1, same: 5 }), [
      "Resources:",
      "    + 3 to create",
      "    +- 1 to replace",
      "    5 unchanged",
    ]);
    assert.deepEqual(resourceLines("up", { update: 2 }), ["Resources:", "    ~ 2 updated"]);
    assert.deepEqual(resourceLines("refresh", {}), ["Resources:", "    no changes"]);
  });

  it("aligns a table's columns under its header, as oc get does", () => {
    assert.deepEqual(
      table(
        ["NAME", "STATUS", "ROLES"],
        [
          ["ip-10-0-1-1.us-east-2.compute.internal", "Ready", "infra,worker"],
          ["win-1", "NotReady", "worker"],
        ],
      ),
      [
        "NAME                                     STATUS     ROLES",
        "ip-10-0-1-1.us-east-2.compute.internal   Ready      infra,worker",
        "win-1                                    NotReady   worker",
      ],
    );
  });
});

describe("what the harness prints keeps secrets out (harness/secrets.ts, Redactor)", () => {
  const KUBECONFIG = [
    "apiVersion: v1",
    "clusters:",
    "- cluster: {server: 'https://127.0.0.1:6443', certificate-authority-data: Q0EtREFUQQ==}",
    "  name: sim",
    "users:",
    "- name: admin",
    "  user: {token: sha256~abcdefghijklmnop}",
    "",
  ].join("\n");
  const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----\n";

  it("replaces every secret it was told of, as written and as JSON escapes it, and leaves the rest", () => {
    const redactor = new Redactor();
    redactor.add({ kubeconfig: secret(KUBECONFIG), name: "infra", short: secret("true") });
    const debug = `RegisterResource RPC finished: resp: urn,kubeconfig,,,${KUBECONFIG},name,,,infra`;
    assert.equal(
      redactor.text(debug),
      "RegisterResource RPC finished: resp: urn,kubeconfig,,,[secret],name,,,infra",
    );
    const json = `obj=${JSON.stringify({ kubeconfig: KUBECONFIG })}`;
    assert.equal(redactor.text(json), 'obj={"kubeconfig":"[secret]"}');
    assert.equal(redactor.text("wait: true"), "wait: true", "too short to replace everywhere");
  });

  it("replaces kubeconfig credentials and private keys no one marked secret", () => {
    const redactor = new Redactor();
    const text = redactor.text(
      `read ${KUBECONFIG} and ${JSON.stringify({ pem: PEM, token: "t0ken-value" })} ${PEM}`,
    );
    for (const leak of ["sha256~abcdefghijklmnop", "MIIEowIBAAKCAQEA", "t0ken-value"])
      assert.ok(!text.includes(leak), `${leak} in ${text}`);
    assert.match(text, /server: 'https:\/\/127\.0\.0\.1:6443'/);
  });
});
