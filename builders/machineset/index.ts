export * from "./provider-spec";
export * from "./naming";
export * from "./machineset";
export * from "./aws";
export * from "./azure";
export * from "./pool";
export * from "./aws-options";
export * from "./azure-options";
