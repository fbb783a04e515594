/**
 * The library as a user's project holds it: compiled module by module as `npm run build` compiles it
 * (the same bytes, without the type check, in about a second) into `node_modules/<package>/dist` of a
 * project, beside a copy of a program whose import of this repository's index names the package
 * instead. There, Pulumi serializes what a waiter's provider reads from the package as a `require` of
 * it, and the program's process loads compiled modules instead of transpiling the library's sources:
 * as in a user's `pulumi up`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";

const ROOT = path.resolve(__dirname, "..");

export const PACKAGE_NAME = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { name: string }
).name;

/** How the examples and synthetic programs import the library from this repository. */
const SOURCE_IMPORT = '"../../index"';

/**
 * Compiles the library into `project`'s node_modules and returns the package's directory. Its own
 * dependencies resolve from a node_modules above `project` (this repository's, for a project under it),
 * or, with `linkDependencies`, from links to this repository's packages made beside it.
 */
export function installPackage(project: string, options: { linkDependencies?: boolean } = {}): string {
  const modules = path.join(project, "node_modules");
  const root = path.join(modules, ...PACKAGE_NAME.split("/"));
  fs.rmSync(root, { recursive: true, force: true });
  const config = ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, "tsconfig.build.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  )!;
  for (const file of config.fileNames) {
    const { outputText } = ts.transpileModule(fs.readFileSync(file, "utf8"), {
      compilerOptions: config.options,
      fileName: file,
    });
    const out = path.join(root, "dist", path.relative(ROOT, file).replace(/\.ts$/, ".js"));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, outputText);
  }
  fs.copyFileSync(path.join(ROOT, "package.json"), path.join(root, "package.json"));
  if (options.linkDependencies) {
    for (const entry of fs.readdirSync(path.join(ROOT, "node_modules"))) {
      if (entry.startsWith(".") || PACKAGE_NAME.startsWith(`${entry}/`)) continue;
      fs.symlinkSync(path.join(ROOT, "node_modules", entry), path.join(modules, entry));
    }
  }
  return root;
}

/**
 * Copies `files` (paths relative to `from`) to the same paths under `to`; a program's import of this
 * repository's index names the package instead.
 */
export function copyProgram(from: string, to: string, files: string[]): void {
  for (const file of files) {
    let text = fs.readFileSync(path.join(from, file), "utf8");
    if (file.endsWith(".ts")) {
      if (!text.includes(SOURCE_IMPORT)) throw new Error(`${file} no longer imports ${SOURCE_IMPORT}`);
      text = text.replace(SOURCE_IMPORT, JSON.stringify(PACKAGE_NAME));
    }
    const target = path.join(to, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, text);
  }
}

/** Where the harness lays out installed projects: under this repository, whose node_modules they use. */
export function installedDir(name: string): string {
  const dir = path.join(ROOT, ".bench", name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}
