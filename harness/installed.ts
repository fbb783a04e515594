/**
 * The library as a user's project holds it: compiled module by module as `npm run build` compiles it
 * (the same bytes, without the type check, in about a second) into `node_modules/<package>/dist` of a
 * project, beside a copy of a program whose import of this repository's index names the package
 * instead. There, Pulumi serializes what a waiter's provider reads from the package as a `require` of
 * it, and the program's process loads compiled modules instead of transpiling the library's sources:
 * as in a user's `pulumi up`.
 */
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import * as ts from "typescript";
import { loadProject } from "./project";

const ROOT = path.resolve(__dirname, "..");

export const PACKAGE_NAME = (
  JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { name: string }
).name;

/**
 * What the package holds besides compiled modules: the component package's manifest and schema
 * (`npm run build` copies the manifest; the schema is a JSON module the compiler emits).
 */
const ASSETS = ["plugin/PulumiPlugin.yaml", "plugin/schema.json", "harness/render-kubeconfig.yaml"];

/** The library's own folders: the package's tools (harness, simulator, testing) are no program's concern. */
const LIBRARY = ["index.ts", "primitives", "builders", "components", "provider", "plugin"];

/** The package's command (package.json `bin`): it and what it loads ship beside the library. */
const COMMAND = "harness/command.ts";

/** A relative import, require or `import()` type of a module. */
const RELATIVE_MODULE = /(?:\bfrom|\brequire\(|\bimport\()\s*"(\.{1,2}\/[^"]+)"/g;

/**
 * The command's modules outside the library (harness/, simulator/), following relative imports,
 * requires and `import()` types from `COMMAND`: what it loads, whichever command it runs, and nothing
 * else of those folders (their tests, the demo, the benchmarks' helpers).
 */
export function commandModules(): string[] {
  const found = new Set<string>();
  const queue = [path.join(ROOT, COMMAND)];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (found.has(file)) continue;
    found.add(file);
    for (const [, specifier] of fs.readFileSync(file, "utf8").matchAll(RELATIVE_MODULE)) {
      const target = path.resolve(path.dirname(file), specifier);
      const module = [`${target}.ts`, path.join(target, "index.ts")].find((f) => fs.existsSync(f));
      if (module) queue.push(module);
    }
  }
  return [...found]
    .map((file) => path.relative(ROOT, file))
    .filter((file) => !LIBRARY.includes(file.split(path.sep)[0]))
    .sort();
}

/**
 * Compiles the command's modules into `dist` as the library's build compiles (its options, no type
 * check and no declarations: `npm run typecheck` checks them, and no program imports them), leaving
 * those the build compiled already (what testing/ imports of harness/) as they are.
 */
export function emitCommand(dist: string): void {
  const { options } = buildConfig();
  for (const file of commandModules()) {
    const out = path.join(dist, file.replace(/\.ts$/, ".js"));
    if (fs.existsSync(out)) continue;
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(
      out,
      transpiled(path.join(ROOT, file), fs.readFileSync(path.join(ROOT, file), "utf8"), options),
    );
  }
}

/** What `npm run build` adds to the compiler's output: the command's modules and the assets. */
export function completeBuild(dist: string): void {
  emitCommand(dist);
  copyAssets(dist);
}

function copyAssets(dist: string): void {
  for (const asset of ASSETS) {
    fs.mkdirSync(path.dirname(path.join(dist, asset)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, asset), path.join(dist, asset));
  }
}

/** A relative import in a program; it names the library when it resolves to this repository's index. */
const RELATIVE_IMPORT = /(["'])((?:\.\.\/)+)index\1/g;

/** tsconfig.build.json as the compiler reads it: the package's files and compiler options. */
export function buildConfig(): ts.ParsedCommandLine {
  return ts.getParsedCommandLineOfConfigFile(
    path.join(ROOT, "tsconfig.build.json"),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      },
    },
  )!;
}

/** This process's compiled modules by source file: a test file installs the package again for itself. */
const compiledModules = new Map<string, { source: string; options: ts.CompilerOptions; output: string }>();

/** `source` (the text of `file`) compiled, or the same compilation again when neither has changed. */
function transpiled(file: string, source: string, options: ts.CompilerOptions): string {
  const known = compiledModules.get(file);
  if (known?.source === source && JSON.stringify(known.options) === JSON.stringify(options))
    return known.output;
  const { outputText } = ts.transpileModule(source, { compilerOptions: options, fileName: file });
  compiledModules.set(file, { source, options, output: outputText });
  return outputText;
}

/**
 * Compiles the library into `project`'s node_modules and returns the package's directory. Its own
 * dependencies resolve from a node_modules above `project` (this repository's, for a project under it),
 * or, with `linkDependencies`, from links to this repository's packages made beside it.
 */
export function installPackage(project: string, options: { linkDependencies?: boolean } = {}): string {
  const modules = path.join(project, "node_modules");
  const root = path.join(modules, ...PACKAGE_NAME.split("/"));
  fs.rmSync(root, { recursive: true, force: true });
  const config = buildConfig();
  const library = config.fileNames.filter((f) => LIBRARY.includes(path.relative(ROOT, f).split(path.sep)[0]));
  for (const file of library) {
    const out = path.join(root, "dist", path.relative(ROOT, file).replace(/\.ts$/, ".js"));
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, transpiled(file, fs.readFileSync(file, "utf8"), config.options));
  }
  copyAssets(path.join(root, "dist"));
  fs.copyFileSync(path.join(ROOT, "package.json"), path.join(root, "package.json"));
  // A project of its own, as a user's is: under this repository, a program's import of the package
  // would otherwise resolve to this repository itself (Node's self-reference through `exports`).
  const manifest = path.join(project, "package.json");
  if (!fs.existsSync(manifest)) fs.writeFileSync(manifest, JSON.stringify({ private: true }) + "\n");
  if (options.linkDependencies) linkDependencies(modules);
  return root;
}

/**
 * Links this repository's packages into `modules` (a project's node_modules), except the library's own
 * scope entry and the packages `without` names: a project that did not install those.
 */
export function linkDependencies(modules: string, without: readonly string[] = []): void {
  const source = path.join(ROOT, "node_modules");
  for (const entry of fs.readdirSync(source)) {
    if (entry.startsWith(".") || PACKAGE_NAME.startsWith(`${entry}/`)) continue;
    const scoped = entry.startsWith("@") && without.some((w) => w.startsWith(`${entry}/`));
    if (!scoped) {
      if (!without.includes(entry)) fs.symlinkSync(path.join(source, entry), path.join(modules, entry));
      continue;
    }
    fs.mkdirSync(path.join(modules, entry), { recursive: true });
    for (const name of fs.readdirSync(path.join(source, entry))) {
      if (without.includes(`${entry}/${name}`)) continue;
      fs.symlinkSync(path.join(source, entry, name), path.join(modules, entry, name));
    }
  }
}

/** `npm pack` of `packageDir` (the files its package.json lists) into `into`: the tarball and its files. */
export function packTarball(packageDir: string, into: string): { tarball: string; files: string[] } {
  const out = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", into], {
    cwd: packageDir,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [packed] = JSON.parse(out) as Array<{ filename: string; files: Array<{ path: string }> }>;
  return { tarball: path.join(into, packed.filename), files: packed.files.map((f) => f.path).sort() };
}

/**
 * What `npm pack` packs after `npm run build`, built into `dir` rather than this repository's dist/:
 * the compiled library with its declarations (a full `tsc` build, some 10 s of CPU), the command's
 * modules and the files npm always packs. Returns `dir`, ready for `packTarball`.
 */
export function stagePackage(dir: string): string {
  const tsc = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
  execFileSync(
    process.execPath,
    [tsc, "-p", path.join(ROOT, "tsconfig.build.json"), "--outDir", path.join(dir, "dist")],
    {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  completeBuild(path.join(dir, "dist"));
  for (const file of ["package.json", "README.md", "CHANGELOG.md", "LICENSE"]) {
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
  }
  return dir;
}

/**
 * Copies `files` (paths relative to `from`) to the same paths under `to`; a program's import of this
 * repository's index names the package instead.
 */
export function copyProgram(from: string, to: string, files: string[]): void {
  for (const file of files) {
    let text = fs.readFileSync(path.join(from, file), "utf8");
    if (file.endsWith(".ts")) {
      const dir = path.dirname(path.join(from, file));
      let named = false;
      text = text.replace(RELATIVE_IMPORT, (specifier, _quote: string, up: string) => {
        if (path.resolve(dir, `${up}index`) !== path.join(ROOT, "index")) return specifier;
        named = true;
        return JSON.stringify(PACKAGE_NAME);
      });
      if (!named) throw new Error(`${file} no longer imports this repository's index`);
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

/** This process's installed layout: the package compiled once, the programs copied beside it. */
let layout: string | undefined;

/**
 * A program of this repository (its directory's files) as a user's project holds it: beside the library
 * installed once per process, in a directory under `.bench` removed at exit. The engine's end-to-end
 * tests run their programs so: each program run loads compiled modules instead of transpiling the
 * library's sources, about 4 s less, and its waiters carry the provider users' stacks carry.
 */
export function installedProgram(programDir: string): string {
  if (!layout) {
    fs.mkdirSync(path.join(ROOT, ".bench"), { recursive: true });
    const dir = fs.mkdtempSync(path.join(ROOT, ".bench", `programs-${process.pid}-`));
    process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));
    installPackage(dir);
    layout = dir;
  }
  const target = path.join(layout, path.relative(ROOT, path.resolve(programDir)));
  // A program's directory may already hold another program's (a YAML program beside its TypeScript one).
  if (!fs.existsSync(path.join(target, "Pulumi.yaml"))) {
    const files = fs.readdirSync(programDir).filter((f) => fs.statSync(path.join(programDir, f)).isFile());
    copyProgram(programDir, target, files);
  }
  return target;
}

/**
 * The repository's root project (its Pulumi.yaml and the example it runs) in `.bench/<name>`, with
 * the library installed beside it: what `npm run demo` deploys. Only the example's own files are
 * copied; its other-language programs (yaml/, python/) are directories of their own.
 */
export function installedRootProject(name: string): string {
  const dir = installedDir(name);
  installPackage(dir);
  const main = path.dirname(loadProject(ROOT).main);
  const example = fs
    .readdirSync(main, { withFileTypes: true })
    .filter((f) => f.isFile() && !f.name.endsWith(".md"))
    .map((f) => path.relative(ROOT, path.join(main, f.name)));
  copyProgram(ROOT, dir, ["Pulumi.yaml", ...example]);
  return dir;
}
