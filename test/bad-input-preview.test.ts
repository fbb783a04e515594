import * as assert from "node:assert/strict";
import * as path from "node:path";
import { preview } from "../harness/deploy";
import { loadProject } from "../harness/project";

const PROGRAM = path.join(__dirname, "fixtures", "bad-input-program");
// Points nowhere: a preview of bad input reads nothing from the cluster, and a read would fail loudly.
const KUBECONFIG = path.join(__dirname, "fixtures", "kubeconfig.yaml");

describe("bad input, as a user sees it in a preview through the engine", function () {
  this.timeout(120_000);

  it("lists every mistake of each of two components at once, each at its path with what is allowed, and declares nothing", async () => {
    // The program makes three mistakes in an InfraNodePool and three in a WindowsNodePool, some in
    // plain values the components read at once, some in values they read later.
    const result = await preview({ project: loadProject(PROGRAM), kubeconfigPath: KUBECONFIG });
    assert.equal(result.ok, false);
    assert.deepEqual(result.plan, [], "nothing is planned, so nothing is created");
    const shown = [...result.errors].sort();
    assert.equal(shown.length, 2, shown.join("\n\n"));
    const expected: Array<[string, Array<[string, RegExp]>]> = [
      [
        'InfraNodePool "infra": 3 inputs are invalid:',
        [
          ["role", /"worker" is a pool every cluster already has: a custom pool needs another DNS label/],
          ["router.replicas", /must be a whole number from 1 to 2147483647, got -1/],
          ["zones[1]", /zone "us-east-2a" is listed twice \(also at zones\[0\]\)/],
        ],
      ],
      [
        'WindowsNodePool "windows": 3 inputs are invalid:',
        [
          ["windowsServer", /"2017" is not a Windows Server build WMCO supports: use "10.0.17763" \(2019\)/],
          ["operator.namespace", /"WMCO" is not a DNS label: use 1-63 lower-case letters/],
          ["replicas", /must be a whole number of 0 or more, got -2/],
        ],
      ],
    ];
    expected.forEach(([heading, problems], i) => {
      const [first, ...lines] = shown[i].split("\n");
      assert.equal(first, heading, shown[i]);
      assert.equal(lines.length, problems.length, shown[i]);
      problems.forEach(([property, allowed], j) => {
        assert.ok(lines[j].startsWith(`  ${property}: `), lines[j]);
        assert.match(lines[j], allowed);
      });
    });
    // Nothing but the mistakes: no stack frames, no SDK prefixes, no inspected fields.
    for (const error of shown)
      assert.doesNotMatch(error, /\bat .*:\d+|error serializing|\{|\[errors\]/, error);
  });
});
