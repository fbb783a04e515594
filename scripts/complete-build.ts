/**
 * The second half of `npm run build`, after the compiler's: the package command's modules (harness/,
 * simulator/) compiled beside the library, and the files the compiler does not emit.
 */
import * as path from "node:path";
import { completeBuild } from "../harness/installed";

completeBuild(path.resolve(__dirname, "..", "dist"));
