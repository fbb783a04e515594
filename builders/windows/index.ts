export * from "./windows";
