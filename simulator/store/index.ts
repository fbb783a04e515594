export * from "./types";
export * from "./memory-store";
