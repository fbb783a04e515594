/**
 * A TypeScript program loaded in this process (render, fixtures capture) as Pulumi's language host
 * loads it: compiled on `require`, without a type check, by the TypeScript the project installs, as
 * CommonJS. This repository's scripts run under ts-node, which has registered itself already.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type * as ts from "typescript";

type Loader = (module: NodeJS.Module & { _compile(code: string, file: string): void }, file: string) => void;

/** Makes `require` load `.ts` files with the `typescript` package of the project in `projectDir`. */
export function registerTypeScript(projectDir: string): void {
  const extensions = require.extensions as unknown as Record<string, Loader | undefined>;
  if (extensions[".ts"]) return;
  let compiler: typeof ts;
  try {
    compiler = require(require.resolve("typescript", { paths: [projectDir] })) as typeof ts;
  } catch {
    throw new Error(
      `the program is TypeScript and ${projectDir} has no typescript package: npm install --save-dev typescript, as a Pulumi TypeScript project has it`,
    );
  }
  const configFile = compiler.findConfigFile(projectDir, fs.existsSync);
  const options = configFile
    ? compiler.parseJsonConfigFileContent(
        compiler.readConfigFile(configFile, (f) => fs.readFileSync(f, "utf8")).config,
        compiler.sys,
        path.dirname(configFile),
      ).options
    : {};
  const compilerOptions: ts.CompilerOptions = {
    ...options,
    module: compiler.ModuleKind.CommonJS,
    moduleResolution: undefined,
    sourceMap: false,
    inlineSourceMap: true,
    noEmit: false,
  };
  extensions[".ts"] = (module, file) => {
    const { outputText } = compiler.transpileModule(fs.readFileSync(file, "utf8"), {
      compilerOptions,
      fileName: file,
    });
    module._compile(outputText, file);
  };
}
