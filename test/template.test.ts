/**
 * The project template a user copies (templates/typescript), checked as the user's copy would be: the
 * library built and packed as `npm pack` packs it, the tarball unpacked into the project's
 * node_modules beside the other packages it needs, and `tsc` run on the project with its own tsconfig.
 * Neither cloud SDK is there: a project that looks nothing up in a cloud installs none.
 */
import * as assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import * as ts from "typescript";
import { linkDependencies, PACKAGE_NAME, packTarball, stagePackage } from "../harness/installed";

const ROOT = path.resolve(__dirname, "..");
const TEMPLATE = path.join(ROOT, "templates", "typescript");
const CLOUD_SDKS = ["@pulumi/aws", "@pulumi/azure-native"];

/** Mistakes a user's editor must flag from the library's declarations alone. */
const MISTAKES = `import { InfraNodePool, OperatorSubscription } from "@openshift-topology/pulumi";
new OperatorSubscription("op", {
  packageName: "local-storage-operator",
  channel: "stable",
  // @ts-expect-error: one of "OwnNamespace" | "AllNamespaces"
  targetNamespaces: "OwnNamespaces",
});
new InfraNodePool("infra", {
  zones: ["us-east-2a"],
  // @ts-expect-error: a number
  replicas: "3",
});
`;

describe("The project template, type-checked against the packed library", function () {
  // The full build with declarations takes some 10 s of CPU, 40 s on a busy machine: once per suite.
  this.timeout(120_000);
  let work: string;
  let project: string;
  let packed: string[];
  let installed: string;

  before(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "template-"));
    const stage = stagePackage(fs.mkdirSync(path.join(work, "stage"), { recursive: true })!);
    const { tarball, files } = packTarball(stage, work);
    packed = files;
    project = path.join(work, "project");
    installed = path.join(project, "node_modules", ...PACKAGE_NAME.split("/"));
    fs.mkdirSync(installed, { recursive: true });
    execFileSync("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"]);
    linkDependencies(path.join(project, "node_modules"), CLOUD_SDKS);
    for (const file of fs.readdirSync(TEMPLATE))
      fs.copyFileSync(path.join(TEMPLATE, file), path.join(project, file));
    // One tsc run checks both: an expected error that does not happen is itself an error (TS2578).
    fs.writeFileSync(path.join(project, "mistakes.ts"), MISTAKES);
    fs.writeFileSync(
      path.join(project, "tsconfig.mistakes.json"),
      JSON.stringify({ extends: "./tsconfig.json", files: ["index.ts", "mistakes.ts"] }),
    );
  });

  function typeCheck(tsc: string): void {
    const result = spawnSync(process.execPath, [tsc, "-p", path.join(project, "tsconfig.mistakes.json")], {
      encoding: "utf8",
    });
    assert.equal(result.status, 0, `${result.stdout}${result.stderr}`);
  }

  after(() => work && fs.rmSync(work, { recursive: true, force: true }));

  it("packs the compiled library with its declarations, the component package, README, LICENSE and CHANGELOG, and no tests", () => {
    for (const file of [
      "package.json",
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "dist/index.js",
      "dist/index.d.ts",
      "dist/plugin/index.js",
      "dist/plugin/schema.json",
      "dist/plugin/PulumiPlugin.yaml",
    ])
      assert.ok(packed.includes(file), file);
    assert.deepEqual(
      packed.filter((f) => /\.test\.|^dist\/(test|harness|simulator|bench|scripts)\//.test(f)),
      [],
    );
  });

  it("type-checks with the TypeScript it installs, without either cloud SDK, and its mistakes are type errors", () => {
    for (const sdk of CLOUD_SDKS) assert.ok(!fs.existsSync(path.join(project, "node_modules", sdk)), sdk);
    const installed = JSON.parse(
      fs.readFileSync(path.join(project, "node_modules", "typescript", "package.json"), "utf8"),
    ) as { version: string };
    const template = JSON.parse(fs.readFileSync(path.join(TEMPLATE, "package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    const minor = template.devDependencies.typescript.replace(/^~(\d+\.\d+).*/, "$1");
    assert.ok(installed.version.startsWith(`${minor}.`), `${installed.version} is not ${minor}`);
    typeCheck(path.join(project, "node_modules", "typescript", "bin", "tsc"));
  });

  it("type-checks with TypeScript 6 as well, the same tsconfig a user copies", () => {
    // TypeScript 6 turns options 5.9 accepts into errors (esModuleInterop false, moduleResolution node10, ...).
    const typescript6 = path.join(ROOT, "test", "typescript6", "node_modules", "typescript");
    const { version } = JSON.parse(fs.readFileSync(path.join(typescript6, "package.json"), "utf8")) as {
      version: string;
    };
    assert.match(version, /^6\./);
    typeCheck(path.join(typescript6, "bin", "tsc"));
  });

  it("documents every argument of every exported component for the editor's hover, in a user's words", () => {
    const declarations = packed.filter((f) => f.endsWith(".d.ts")).map((f) => path.join(installed, f));
    // The package's own declarations only: the SDKs' types do not hold the documentation.
    const program = ts.createProgram(declarations, { noResolve: true, skipLibCheck: true, noEmit: true });
    const checker = program.getTypeChecker();
    const index = checker.getSymbolAtLocation(
      program.getSourceFile(path.join(installed, "dist", "index.d.ts"))!,
    )!;
    const undocumented: string[] = [];
    let args = 0;
    for (const exported of checker.getExportsOfModule(index)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (!symbol.name.endsWith("Args")) continue;
      args++;
      for (const property of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol))) {
        if (!ts.displayPartsToString(property.getDocumentationComment(checker)).trim())
          undocumented.push(`${symbol.name}.${property.name}`);
      }
    }
    assert.ok(args >= 8, `${args} Args types exported`);
    assert.deepEqual(undocumented, []);
    const internal = declarations.flatMap((file) =>
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter((line) => /\bseeds? \d{3}|DOMAIN\.md/.test(line))
        .map((line) => `${path.relative(installed, file)}: ${line.trim()}`),
    );
    assert.deepEqual(internal, []);
  });
});
