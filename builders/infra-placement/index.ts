export * from "./placement";
