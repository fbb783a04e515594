// Stryker ignorer: skips the mutants listed in equivalents.json, each with why it cannot change behaviour.
// A mutant is skipped when it sits in the expression whose source text is `code`, in the file named.
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { PluginKind, declareValuePlugin } from "@stryker-mutator/api/plugin";

const root = path.resolve(import.meta.dirname, "..");
const equivalents = JSON.parse(readFileSync(path.join(root, "mutation", "equivalents.json"), "utf8"));

const ignorer = {
  shouldIgnore(nodePath) {
    const file = nodePath.hub?.file;
    const node = nodePath.node;
    if (!file?.opts?.filename || node.start == null) return undefined;
    const relative = path.relative(root, file.opts.filename);
    const code = file.code.slice(node.start, node.end);
    const entry = equivalents.find((e) => e.file === relative && e.code === code);
    return entry && `equivalent: ${entry.reason}`;
  },
};

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, "equivalents", ignorer)];
